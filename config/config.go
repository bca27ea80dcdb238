package config

import (
	"runtime"
	"slices"
	"time"
)

// Config is the whole configuration of the bot, as written in its YAML file.
// Build one with Default, Parse or Load; a Config from Parse or Load has been
// validated. The Lichess token is never part of it: see LoadToken.
type Config struct {
	// StateDir is the bot's state directory: every file the bot keeps
	// between runs (the state database ponderosa.db, see package store,
	// and the PGNs) lives under it. A relative path is taken
	// from the config file's directory. "" (the default) is
	// $STATE_DIRECTORY when systemd sets it (StateDirectory=), else
	// $XDG_STATE_HOME/ponderosa, else ~/.local/state/ponderosa: see
	// ResolveStateDir. `ponderosa run` creates it (mode 0750); a change
	// takes effect at the next start, not on reload.
	StateDir string  `yaml:"state_dir"`
	Lichess  Lichess `yaml:"lichess"`
	Engine   Engine  `yaml:"engine"`
	// Online holds the online knowledge sources asked for a move before
	// the engine.
	Online      Online      `yaml:"online"`
	Challenge   Challenge   `yaml:"challenge"`
	Matchmaking Matchmaking `yaml:"matchmaking"`
	// Correspondence says how correspondence games are played.
	Correspondence Correspondence `yaml:"correspondence"`
	// Tournament: the arena tournaments to join (tournament.go).
	Tournament Tournament `yaml:"tournament"`
	Game       Game       `yaml:"game"`
	Log        Log        `yaml:"log"`
	Shutdown   Shutdown   `yaml:"shutdown"`
	// HTTP is the daemon's HTTP server: health and metrics (off by
	// default).
	HTTP HTTP `yaml:"http"`

	// source names the file the config came from ("" when built in code);
	// dir is that file's directory when Load read it ("" otherwise);
	// keys maps dotted key paths to the line where the key was written;
	// clamped says what was taken at a limit set after it was written
	// (see Clamped).
	source  string
	dir     string
	keys    map[string]int
	clamped []string
}

// Lichess says where the Lichess API is and how long to wait for it.
type Lichess struct {
	// BaseURL is the Lichess server, without a trailing slash.
	// Default "https://lichess.org". Plain http is allowed only for loopback
	// addresses (a local test server), so the token never travels unencrypted.
	BaseURL string `yaml:"base_url"`
	// TokenFile is an optional file holding the bot's API token. The token
	// is looked for first in $LICHESS_BOT_TOKEN, then in the systemd
	// credential $CREDENTIALS_DIRECTORY/token, then here. Default "".
	TokenFile string `yaml:"token_file"`
	// RequestTimeout bounds one ordinary API request (accept, move, chat).
	// Default 15s.
	RequestTimeout time.Duration `yaml:"request_timeout"`
	// StreamReadTimeout is how long an event or game stream may stay silent
	// before it is considered dead and reconnected (Lichess sends a
	// keep-alive line every 7 seconds). At least 10s; default 20s.
	StreamReadTimeout time.Duration `yaml:"stream_read_timeout"`
}

// Engine types.
const (
	EngineBuiltin  = "builtin"
	EngineExternal = "external"
)

// Engine chooses who picks the moves.
type Engine struct {
	// Type is "builtin" (ponderosa's own engine, the default) or "external"
	// (a UCI engine program, see External).
	Type string `yaml:"type"`
	// Ponder keeps thinking on the opponent's time. Default true.
	Ponder bool `yaml:"ponder"`
	// Builtin holds the settings of the built-in engine.
	Builtin Builtin `yaml:"builtin"`
	// External holds the settings of an external UCI engine.
	External External `yaml:"external"`
	// Variants maps a Lichess variant other than standard, chess960 and
	// fromPosition (crazyhouse, antichess, atomic, horde, kingOfTheHill,
	// racingKings, threeCheck) to the external UCI engine that plays it,
	// such as Fairy-Stockfish; the bot sets its UCI_Variant for each game
	// (VariantUCINames). A variant accepted or offered needs an entry here;
	// standard, chess960 and fromPosition are played by engine.type.
	// Default none.
	Variants map[string]External `yaml:"variants"`
	// Book holds the opening books of the built-in engine.
	Book Book `yaml:"book"`
	// Syzygy holds the endgame tablebases of the built-in engine.
	Syzygy Syzygy `yaml:"syzygy"`
}

// Builtin holds the settings of ponderosa's own engine.
type Builtin struct {
	// HashMB is the transposition table memory of all games together, in
	// MiB: each game that can run at once has HashMB / GamesAtOnce of it
	// (Config.HashPerGameMB). Default 64.
	HashMB int `yaml:"hash_mb"`
	// Threads is the most search threads one search may use. Default 1.
	Threads int `yaml:"threads"`
	// ThreadsTotal is the most search threads of all games together,
	// thinking and pondering: a game that must move takes threads from
	// games that only ponder, and from games that must move and hold
	// several; when more games must move at once than this, those that
	// began to move after the first ThreadsTotal wait for a thread, each at
	// most a quarter of its move's soft time, then it gets one over this
	// (ponder.CPUShare). 0 (the default) means the machine's cores
	// (runtime.NumCPU); see ThreadsTotalOrCores.
	ThreadsTotal int `yaml:"threads_total"`
	// TreeMemoryMB caps the persistent search tree of one game, in MiB.
	// Default 128.
	TreeMemoryMB int `yaml:"tree_memory_mb"`
	// VarietyCP lets the engine pick at random among moves scoring within
	// this many centipawns of the best one; 0 (the default) always plays the
	// best move.
	VarietyCP int `yaml:"variety_cp"`
	// Eval is the evaluation: "classical" (the hand-tuned one, the
	// default) or "nnue" (the network of EvalFile, or the one built into
	// the binary when EvalFile is empty).
	Eval string `yaml:"eval"`
	// EvalFile is the network file (docs/nnue-net.md) for eval: nnue; Load
	// takes a relative path from the config file's directory. Default "":
	// the embedded network.
	EvalFile string `yaml:"eval_file"`
	// Learn keeps a learning memory in the state database
	// (<state_dir>/ponderosa.db, table learn; see store.Memory): positions
	// searched deeply in earlier games seed the search when a game reaches
	// them again, and a lost game's entries are trusted less. Default
	// false (off until a match shows it does not lose).
	Learn bool `yaml:"learn"`
	// LearnMaxEntries bounds the learning memory (entries of all
	// evaluations together; about 150 bytes each): beyond it the entries
	// of other evaluations go first, then the shallowest, then the least
	// recently used. Default 100000.
	LearnMaxEntries int `yaml:"learn_max_entries"`
}

// ThreadsTotalOrCores is ThreadsTotal, or the machine's cores when it is
// 0 (the default).
func (b Builtin) ThreadsTotalOrCores() int {
	if b.ThreadsTotal > 0 {
		return b.ThreadsTotal
	}
	return runtime.NumCPU()
}

// GamesAtOnce is the most games that can hold an engine at once: the
// real-time slots (challenge.concurrency, the slots reserved for humans
// being among them) and, when correspondence games are accepted, the
// correspondence slots (correspondence.concurrency: each may be taken up
// at the same moment, after a restart for example). The built-in engine's
// hash is divided by it.
func (c *Config) GamesAtOnce() int {
	n := max(c.Challenge.Concurrency, 1)
	if c.AcceptsCorrespondence() {
		n += max(c.Correspondence.Concurrency, 0)
	}
	return n
}

// AcceptsCorrespondence reports whether correspondence challenges are
// accepted.
func (c *Config) AcceptsCorrespondence() bool {
	return c.Challenge.Accept && slices.Contains(c.Challenge.Speeds, SpeedCorrespondence)
}

// HashPerGameMB is the transposition table of one game of the built-in
// engine: engine.builtin.hash_mb divided by GamesAtOnce, at least 1 MiB.
func (c *Config) HashPerGameMB() int {
	return max(c.Engine.Builtin.HashMB/c.GamesAtOnce(), 1)
}

// Evaluations of the built-in engine (engine.builtin.eval).
const (
	EvalClassical = "classical"
	EvalNNUE      = "nnue"
)

// External describes an external UCI engine program.
type External struct {
	// Path is the engine program: an absolute path, or a name looked up in
	// $PATH. Required when engine.type is "external".
	Path string `yaml:"path"`
	// Args are passed to the program. Default none.
	Args []string `yaml:"args"`
	// Dir is the working directory of the program. Default "" (inherit).
	Dir string `yaml:"dir"`
	// Options are UCI options sent with "setoption" before the first game,
	// e.g. {Hash: 256, Threads: 2}. Ponder, UCI_Chess960 and UCI_Variant
	// are set by the bot itself and may not appear here.
	Options map[string]string `yaml:"options"`
}

// Lichess variant keys, as used by the API.
const (
	VariantStandard      = "standard"
	VariantChess960      = "chess960"
	VariantFromPosition  = "fromPosition"
	VariantCrazyhouse    = "crazyhouse"
	VariantAntichess     = "antichess"
	VariantAtomic        = "atomic"
	VariantHorde         = "horde"
	VariantKingOfTheHill = "kingOfTheHill"
	VariantRacingKings   = "racingKings"
	VariantThreeCheck    = "threeCheck"
)

// VariantUCINames maps the Lichess variants played by a per-variant engine
// (Engine.Variants) to the value of the engine's UCI_Variant option, as
// Fairy-Stockfish names them.
var VariantUCINames = map[string]string{
	VariantCrazyhouse:    "crazyhouse",
	VariantAntichess:     "antichess",
	VariantAtomic:        "atomic",
	VariantHorde:         "horde",
	VariantKingOfTheHill: "kingofthehill",
	VariantRacingKings:   "racingkings",
	VariantThreeCheck:    "3check",
}

// Plays reports whether the configuration has an engine for a Lichess
// variant: standard, chess960 and fromPosition are played by engine.type
// (the built-in engine or engine.external), the others by their entry in
// engine.variants.
func (c *Config) Plays(variant string) bool {
	if slices.Contains(standardVariants, variant) {
		return true
	}
	_, ok := c.Engine.Variants[variant]
	return ok && VariantUCINames[variant] != ""
}

// Orders of the challenge queue (Challenge.SortBy).
const (
	SortFirst = "first"
	SortBest  = "best"
)

// Lichess speed keys, as used by the API.
const (
	SpeedUltraBullet    = "ultraBullet"
	SpeedBullet         = "bullet"
	SpeedBlitz          = "blitz"
	SpeedRapid          = "rapid"
	SpeedClassical      = "classical"
	SpeedCorrespondence = "correspondence"
)

// Challenge holds the rules for accepting incoming challenges.
type Challenge struct {
	// Accept turns accepting challenges on; false declines every challenge
	// (useful with matchmaking only). Default true.
	Accept bool `yaml:"accept"`
	// Concurrency is the most real-time games played at once;
	// correspondence games have their own Correspondence.Concurrency.
	// Default 1.
	Concurrency int `yaml:"concurrency"`
	// GamesReservedForHumans of the Concurrency slots are for human
	// opponents: a bot's challenge waits while only these are free.
	// Default 0.
	GamesReservedForHumans int `yaml:"games_reserved_for_humans"`
	// MaxSimultaneousGamesPerUser bounds the games against one opponent at
	// once; a further challenge of theirs waits in the queue. Default 5.
	MaxSimultaneousGamesPerUser int `yaml:"max_simultaneous_games_per_user"`
	// QueueLength is how many challenges that pass the rules may wait for
	// a free slot (Lichess keeps a challenge open until it is answered);
	// one that finds the queue full is declined "later". 0 keeps no
	// queue. Default 10.
	QueueLength int `yaml:"queue_length"`
	// QueueMaxAge: a challenge that has waited this long is declined
	// "later". Default 10m.
	QueueMaxAge time.Duration `yaml:"queue_max_age"`
	// SortBy orders the queue: first (arrival order, the default) or best
	// (the highest-rated challenger first).
	SortBy string `yaml:"sort_by"`
	// Variants accepted, as Lichess variant keys: standard, chess960 and
	// fromPosition (played by engine.type), and any other variant that has
	// an engine in engine.variants. Default [standard, chess960,
	// fromPosition].
	Variants []string `yaml:"variants"`
	// Speeds accepted, as Lichess speed keys; not ultraBullet, which
	// Lichess does not let bots play. Default [bullet, blitz, rapid,
	// classical].
	Speeds []string `yaml:"speeds"`
	// TimeControls narrows each speed by its base time and increment.
	TimeControls TimeControls `yaml:"time_controls"`
	// AcceptRated and AcceptCasual say which modes are accepted.
	// Both default true.
	AcceptRated  bool `yaml:"accept_rated"`
	AcceptCasual bool `yaml:"accept_casual"`
	// AcceptBots and AcceptHumans say who may challenge. Both default true.
	AcceptBots   bool `yaml:"accept_bots"`
	AcceptHumans bool `yaml:"accept_humans"`
	// OpponentRating is the challenger's rating range, in the challenge's
	// variant and speed. Default 0 to 4000 (anyone).
	OpponentRating RatingRange `yaml:"opponent_rating"`
	// AllowList, when not empty, is the only players who may challenge the
	// bot (the other rules still apply). Usernames, any case. Default empty.
	AllowList []string `yaml:"allow_list"`
	// BlockList is players whose challenges are always declined.
	BlockList []string `yaml:"block_list"`
	// MaxBotGamesPerDay caps games against bots per rolling day, incoming,
	// matchmaking and arena games together; 0 leaves only Lichess' own limit.
	// Default 100 (Lichess' bot-vs-bot daily limit).
	MaxBotGamesPerDay int `yaml:"max_bot_games_per_day"`
}

// TimeControls holds the accepted clock range of each real-time speed and
// the accepted days per move of correspondence. Keys are Lichess speed keys.
type TimeControls struct {
	UltraBullet    ClockRange `yaml:"ultraBullet"`
	Bullet         ClockRange `yaml:"bullet"`
	Blitz          ClockRange `yaml:"blitz"`
	Rapid          ClockRange `yaml:"rapid"`
	Classical      ClockRange `yaml:"classical"`
	Correspondence DaysRange  `yaml:"correspondence"`
}

// ClockRange bounds the base time and increment of a real-time clock, both
// ends included. Defaults: base 0s to 3h, increment 0s to 3m (anything).
type ClockRange struct {
	BaseMin      time.Duration `yaml:"base_min"`
	BaseMax      time.Duration `yaml:"base_max"`
	IncrementMin time.Duration `yaml:"increment_min"`
	IncrementMax time.Duration `yaml:"increment_max"`
}

// Contains reports whether a clock of base time and increment lies in r.
func (r ClockRange) Contains(base, increment time.Duration) bool {
	return base >= r.BaseMin && base <= r.BaseMax &&
		increment >= r.IncrementMin && increment <= r.IncrementMax
}

// DaysRange bounds the days per move of correspondence games, both ends
// included. Default 1 to 14.
type DaysRange struct {
	DaysMin int `yaml:"days_min"`
	DaysMax int `yaml:"days_max"`
}

// Contains reports whether days per move lies in r.
func (r DaysRange) Contains(days int) bool { return days >= r.DaysMin && days <= r.DaysMax }

// Clock returns the clock range of a real-time speed key, and false for
// correspondence or an unknown key.
func (t TimeControls) Clock(speed string) (ClockRange, bool) {
	switch speed {
	case SpeedUltraBullet:
		return t.UltraBullet, true
	case SpeedBullet:
		return t.Bullet, true
	case SpeedBlitz:
		return t.Blitz, true
	case SpeedRapid:
		return t.Rapid, true
	case SpeedClassical:
		return t.Classical, true
	}
	return ClockRange{}, false
}

// RatingRange bounds a rating, both ends included.
type RatingRange struct {
	Min int `yaml:"min"`
	Max int `yaml:"max"`
}

// Contains reports whether rating lies in r.
func (r RatingRange) Contains(rating int) bool { return rating >= r.Min && rating <= r.Max }

// Matchmaking holds the rules for challenging other bots when idle.
type Matchmaking struct {
	// Enabled turns matchmaking on. Default false.
	Enabled bool `yaml:"enabled"`
	// TimeControls offered, "minutes+seconds" like "3+2"; one is picked at
	// random per challenge. Default ["3+2", "5+3"], or none when
	// CorrespondenceDays is written and TimeControls is not (then only
	// correspondence is offered).
	TimeControls []TimeControl `yaml:"time_controls"`
	// CorrespondenceDays offered in correspondence challenges, days per
	// move (Lichess' days: 1, 2, 3, 5, 7, 10 or 14; no clock), one picked
	// at random: lichess-bot's challenge_days. With time controls too,
	// each challenge is real-time or correspondence at random (as
	// lichess-bot draws). A correspondence challenge goes out only while a
	// slot of correspondence.concurrency is free (it takes that slot, not
	// a real-time one), and its days must be ones the bot accepts:
	// correspondence in challenge.speeds, within
	// challenge.time_controls.correspondence. Default none.
	CorrespondenceDays []int `yaml:"correspondence_days"`
	// Variants offered; one is picked at random. Each must be playable,
	// as for Challenge.Variants. Default [standard].
	Variants []string `yaml:"variants"`
	// VariantTimeControls gives a variant of Variants its own time
	// controls, in the place of TimeControls: {chess960: ["10+5"]}. A
	// variant not named here is offered TimeControls. Default none.
	VariantTimeControls map[string][]TimeControl `yaml:"variant_time_controls"`
	// Rated makes the challenges rated. Default true. Mode, when set,
	// takes its place.
	Rated bool `yaml:"rated"`
	// Mode is lichess-bot's challenge_mode: rated, casual, or random (each
	// challenge rated or casual at random). Default "": as Rated says.
	Mode string `yaml:"mode"`
	// OpponentRating bounds the bots challenged, in the rating of the
	// challenge offered: its clock's speed, or for a variant (but
	// standard) that variant's. Default 0 to 4000.
	OpponentRating RatingRange `yaml:"opponent_rating"`
	// RatingDifference is the largest difference between a bot's rating
	// and ours, in that same rating, for it to be challenged
	// (lichess-bot's opponent_rating_difference); 0 means no limit, the
	// default.
	RatingDifference int `yaml:"rating_difference"`
	// IdleTime is how long a slot must have been free (since the bot went
	// from busy to idle: a real-time game ended while no slot was free, or
	// the bot started) before the bot challenges someone to fill it. A slot is free for matchmaking when fewer
	// real-time games run (or are accepted) than challenge.concurrency,
	// less challenge.games_reserved_for_humans and less the challenges
	// waiting in the queue, and no challenge of ours is out. For a
	// correspondence challenge (CorrespondenceDays), a slot of
	// correspondence.concurrency, less the correspondence challenges
	// waiting, free this long. Default 10m.
	IdleTime time.Duration `yaml:"idle_time"`
	// ChallengeTimeout is how long to wait for an answer before cancelling
	// the challenge; it holds its slot until Lichess confirms the cancel
	// (a game may start from it meanwhile). Default 1m.
	ChallengeTimeout time.Duration `yaml:"challenge_timeout"`
	// BlockList is bots never challenged (challenge.block_list also applies).
	BlockList []string `yaml:"block_list"`
	// BlockAfterDeclines: a bot that declined our challenges this many
	// times within BlockDays days (reasons other than "later"; a bot that
	// Lichess would not let us challenge for its daily limit does not
	// count) is not challenged while that many are within the last
	// BlockDays days: until the oldest of them is BlockDays days old. A
	// reason about the kind of challenge (tooFast, tooSlow, timeControl,
	// variant, standard, rated, casual) counts for challenges of that kind
	// only (lichess-bot's challenge_filter: fine).
	// Read from the decline history in the state store, so a restart keeps
	// it. 0: never. Default 3.
	BlockAfterDeclines int `yaml:"block_after_declines"`
	// BlockDays is that window, in days. Default 7.
	BlockDays int `yaml:"block_days"`
}

// Matchmaking modes (Matchmaking.Mode).
const (
	ModeRated  = "rated"
	ModeCasual = "casual"
	ModeRandom = "random"
)

// ChallengeMode is the mode of the matchmaker's challenges: Mode, or when
// it is not set, rated or casual as Rated says.
func (m Matchmaking) ChallengeMode() string {
	if m.Mode != "" {
		return m.Mode
	}
	if m.Rated {
		return ModeRated
	}
	return ModeCasual
}

// Correspondence says how correspondence games (days per move) are played:
// the bot thinks MoveTime on each move, keeps the game's stream open
// DisconnectTime for a quick answer, then lets it go; it takes the game up
// again when Lichess says the opponent moved, every CheckinPeriod, and after
// a restart. The keys are lichess-bot's, but concurrency.
type Correspondence struct {
	// MoveTime is how long to think on each move. Default 1m.
	MoveTime time.Duration `yaml:"move_time"`
	// CheckinPeriod is how often the bot lists its games in progress to take
	// up the correspondence games where it is its move. Default 10m; at
	// most MaxCheckinPeriod.
	CheckinPeriod time.Duration `yaml:"checkin_period"`
	// DisconnectTime is how long the game's stream stays open after our move
	// before it is let go. Default 150s.
	DisconnectTime time.Duration `yaml:"disconnect_time"`
	// Ponder thinks on the opponent's time while the stream is open.
	// Default false.
	Ponder bool `yaml:"ponder"`
	// Concurrency is the most correspondence games in progress at once,
	// waiting ones included; apart from challenge.concurrency, which counts
	// real-time games only. Default 5.
	Concurrency int `yaml:"concurrency"`
}

// CorrespondenceDaysAllowed are the days per move Lichess takes in a
// correspondence challenge. Read-only.
var CorrespondenceDaysAllowed = []int{1, 2, 3, 5, 7, 10, 14}

// MaxCheckinPeriod is the longest correspondence.checkin_period. The
// check-in is what takes a game up when Lichess' word that the opponent
// moved (the gameStart event) is lost, a stream cut say: the shortest
// correspondence clock Lichess has is 1 day a move, so the check-in must
// come several times within a day, with correspondence.move_time (at most
// an hour) still to think after it. 6 hours leaves at least three check-ins
// and the thinking well before such a clock could run out.
const MaxCheckinPeriod = 6 * time.Hour

// Opponent-gone behaviours.
const (
	OpponentGoneClaimVictory = "claim_victory"
	OpponentGoneClaimDraw    = "claim_draw"
	OpponentGoneWait         = "wait"
)

// Game holds the behaviour during a game.
type Game struct {
	// MoveOverhead is subtracted from our clock for each move, to cover
	// network lag. It applies to both engine types. Default 200ms.
	MoveOverhead time.Duration `yaml:"move_overhead"`
	// Greeting is said when a game starts, Goodbye when it ends. {me} and
	// {opponent} are replaced by the usernames; "" says nothing.
	Greeting Messages `yaml:"greeting"`
	Goodbye  Messages `yaml:"goodbye"`
	// Draw says when a draw offer is accepted, and when one is made.
	Draw DrawRule `yaml:"draw"`
	// Resign says when the bot resigns.
	Resign ResignRule `yaml:"resign"`
	// AbortAfter aborts a game whose opponent has not made a first move in
	// this long (Lichess allows aborting before both sides have moved);
	// 0 never aborts. Default 30s.
	AbortAfter time.Duration `yaml:"abort_after"`
	// PGNDir is where finished games are saved as PGN, one file per game;
	// "" saves nothing. A relative path is taken under StateDir (e.g.
	// "games"); an absolute one is used as it is. Default "". See
	// Config.ResolvePGNDir.
	PGNDir string `yaml:"pgn_dir"`
	// OpponentGone is what to do when Lichess says the opponent left and a
	// claim is possible: claim_victory (default), claim_draw or wait.
	OpponentGone string `yaml:"opponent_gone"`
	// AcceptTakebacks accepts the opponent's takeback proposals.
	// Default false.
	AcceptTakebacks bool `yaml:"accept_takebacks"`
}

// Messages are chat lines for the player room and the spectator room.
type Messages struct {
	Player    string `yaml:"player"`
	Spectator string `yaml:"spectator"`
}

// DrawRule says when a draw offer is accepted and when the bot offers one
// itself (with its move, as Lichess allows).
type DrawRule struct {
	// Accept turns accepting draw offers on. Default true.
	Accept bool `yaml:"accept"`
	// AfterMove is the first full move (counted from the starting
	// position's number) at which an offer may be accepted by the
	// evaluation. Default 30.
	AfterMove int `yaml:"after_move"`
	// WithinCP is the largest absolute score, in centipawns, at which an
	// offer is accepted. Default 25.
	WithinCP int `yaml:"within_cp"`
	// Tablebase uses a tablebase's result (the online tablebase today),
	// when our move's answer has one: with Accept, an offer made on our
	// turn is answered with our next move, by its result for the position
	// of the offer (accepted if a draw or a loss for us); with
	// Offer, a draw is offered in one it calls a draw (a blessed loss
	// included). Default true.
	Tablebase bool `yaml:"tablebase"`
	// Offer turns offering draws on. Default false.
	Offer bool `yaml:"offer"`
	// OfferWithinCP is the largest absolute score, in centipawns, that
	// counts as level for offering. Default 25.
	OfferWithinCP int `yaml:"offer_within_cp"`
	// OfferMoves is how many of our moves in a row must have a level
	// score for an offer (lichess-bot's offer_draw_moves). Default 10.
	OfferMoves int `yaml:"offer_moves"`
	// OfferPieces is the most pieces (kings and pawns included) on the
	// board for an offer; 0 = any number. Default 0.
	OfferPieces int `yaml:"offer_pieces"`
	// OfferAfterMove is the first full move at which the evaluation may
	// make an offer (a tablebase draw may come earlier). Default 40.
	OfferAfterMove int `yaml:"offer_after_move"`
	// OfferPauseMoves is how many of our moves after a refused offer (one
	// the opponent did not accept by their move) make none. Default 10.
	OfferPauseMoves int `yaml:"offer_pause_moves"`
	// OfferMinOpponentClock: no offer while the opponent's clock is below
	// this, or below a quarter of ours: an opponent in time trouble is
	// left to play on. 0 keeps only the quarter. Default 10s.
	OfferMinOpponentClock time.Duration `yaml:"offer_min_opponent_clock"`
}

// ResignRule resigns when the engine's score has been at or below -BelowCP
// centipawns for ForMoves consecutive moves of ours, and, with Tablebase,
// in a position a tablebase proves lost.
type ResignRule struct {
	// Enabled turns resigning by the evaluation on. Default false (play
	// every game out).
	Enabled bool `yaml:"enabled"`
	// BelowCP is the losing margin, in centipawns, positive. Default 1000.
	BelowCP int `yaml:"below_cp"`
	// ForMoves is how many of our moves in a row. Default 5.
	ForMoves int `yaml:"for_moves"`
	// Tablebase resigns, whether or not Enabled is set, when a tablebase
	// (the online tablebase today) proves our position lost within the
	// fifty-move rule; never a blessed loss or a loss it is unsure of.
	// Default false.
	Tablebase bool `yaml:"tablebase"`
}

// Log formats.
const (
	LogAuto    = "auto"
	LogJSON    = "json"
	LogConsole = "console"
)

// Log chooses what is logged and how.
type Log struct {
	// Level is trace, debug, info (default), warn or error.
	Level string `yaml:"level"`
	// Format is auto (default: console on a terminal, JSON otherwise, e.g.
	// under systemd/journald), json or console.
	Format string `yaml:"format"`
	// File, when set, is where `ponderosa run` writes its log instead of
	// stderr: appended to, created with mode 0640, and opened again on
	// SIGHUP (so that logrotate can move it). Its directory must exist. A
	// relative path is taken from the config file's directory. Default ""
	// (stderr, which systemd sends to the journal).
	File string `yaml:"file"`
}

// Shutdown says how the bot stops.
type Shutdown struct {
	// GracePeriod is how long running games may go on after a stop is
	// asked (SIGTERM, Ctrl-C) while no new game starts; games still
	// running afterwards are resigned or aborted. Keep the systemd unit's
	// TimeoutStopSec above it. Default 10m.
	GracePeriod time.Duration `yaml:"grace_period"`
}

// HTTP configures the daemon's read-only HTTP server (/healthz, /metrics
// and the web view). It never serves the Lichess token.
type HTTP struct {
	// Listen is the address to serve on, host:port, e.g.
	// "127.0.0.1:8080". Default "" (no server). A host that is not a
	// loopback address, or none (":8080", every interface), makes the
	// server reachable from other machines: check-config and the daemon
	// warn, louder without an access token.
	Listen string `yaml:"listen"`
	// AccessToken, when set, is asked of every request: the header
	// "Authorization: Bearer <token>" or the query parameter
	// access_token=<token>. It is never logged nor served. Default ""
	// (no token asked).
	AccessToken string `yaml:"access_token"`
}

// Default returns the configuration used for every key the file leaves out.
func Default() *Config {
	anyClock := ClockRange{BaseMin: 0, BaseMax: 3 * time.Hour, IncrementMin: 0, IncrementMax: 3 * time.Minute}
	return &Config{
		Lichess: Lichess{
			BaseURL:           "https://lichess.org",
			RequestTimeout:    15 * time.Second,
			StreamReadTimeout: 20 * time.Second,
		},
		Engine: Engine{
			Type:   EngineBuiltin,
			Ponder: true,
			Builtin: Builtin{
				HashMB:          64,
				Threads:         1,
				TreeMemoryMB:    128,
				Eval:            EvalClassical,
				LearnMaxEntries: 100_000,
			},
			Book:   Book{Selection: "weighted_random"},
			Syzygy: Syzygy{FiftyMoveRule: true, ProbeDepth: 1, ProbeLimit: 7},
		},
		Online: defaultOnline(),
		Challenge: Challenge{
			Accept:                      true,
			Concurrency:                 1,
			MaxSimultaneousGamesPerUser: 5,
			QueueLength:                 10,
			QueueMaxAge:                 10 * time.Minute,
			SortBy:                      SortFirst,
			Variants:                    []string{VariantStandard, VariantChess960, VariantFromPosition},
			Speeds:                      []string{SpeedBullet, SpeedBlitz, SpeedRapid, SpeedClassical},
			TimeControls: TimeControls{
				UltraBullet:    anyClock,
				Bullet:         anyClock,
				Blitz:          anyClock,
				Rapid:          anyClock,
				Classical:      anyClock,
				Correspondence: DaysRange{DaysMin: 1, DaysMax: 14},
			},
			AcceptRated:       true,
			AcceptCasual:      true,
			AcceptBots:        true,
			AcceptHumans:      true,
			OpponentRating:    RatingRange{Min: 0, Max: 4000},
			MaxBotGamesPerDay: 100,
		},
		Matchmaking: Matchmaking{
			TimeControls: []TimeControl{
				{Base: 3 * time.Minute, Increment: 2 * time.Second},
				{Base: 5 * time.Minute, Increment: 3 * time.Second},
			},
			Variants:           []string{VariantStandard},
			Rated:              true,
			OpponentRating:     RatingRange{Min: 0, Max: 4000},
			IdleTime:           10 * time.Minute,
			ChallengeTimeout:   time.Minute,
			BlockAfterDeclines: 3,
			BlockDays:          7,
		},
		Correspondence: Correspondence{
			MoveTime:       time.Minute,
			CheckinPeriod:  10 * time.Minute,
			DisconnectTime: 150 * time.Second,
			Concurrency:    5,
		},
		Game: Game{
			MoveOverhead: 200 * time.Millisecond,
			Greeting:     Messages{Player: "Hi {opponent}! I'm {me}, a ponderosa bot. Good luck!"},
			Goodbye:      Messages{Player: "Good game, {opponent}!"},
			Draw: DrawRule{Accept: true, AfterMove: 30, WithinCP: 25, Tablebase: true,
				OfferWithinCP: 25, OfferMoves: 10, OfferAfterMove: 40, OfferPauseMoves: 10, OfferMinOpponentClock: 10 * time.Second},
			Resign:       ResignRule{Enabled: false, BelowCP: 1000, ForMoves: 5},
			AbortAfter:   30 * time.Second,
			OpponentGone: OpponentGoneClaimVictory,
		},
		Log:      Log{Level: "info", Format: LogAuto},
		Shutdown: Shutdown{GracePeriod: 10 * time.Minute},
	}
}

// Source is the name of the file the config was read from ("" when built in
// code).
func (c *Config) Source() string { return c.source }
