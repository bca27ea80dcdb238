package client

import "time"

// Settings are everything the Bot can be told; cmd fills them from the
// configuration. UpdateSettings replaces them while the bot runs: running
// games keep the settings they started with.
type Settings struct {
	Challenge   ChallengePolicy
	Matchmaking MatchmakingSettings
	Clock       ClockSettings
	Game        GameSettings
	Chat        ChatSettings
	// Correspondence: how correspondence games are played
	// (correspondence.go).
	Correspondence CorrespondenceSettings
	// Tournament: the arena tournaments to play in (tournament.go).
	Tournament TournamentSettings
	// StateDir is the bot's state directory, made before the bot starts:
	// every file the bot keeps between runs lives under it. It is the
	// same for the life of the process (cmd keeps it on reload).
	StateDir string
	// PGNDir is where the PGN of every finished game is saved ("" = not
	// saved); a folder of StateDir unless the configuration names another.
	PGNDir string
	// ReconnectMin and ReconnectMax bound the backoff between attempts to
	// reopen a dropped stream. Defaults 1 s and 60 s.
	ReconnectMin, ReconnectMax time.Duration
}

// GameSettings are the rules a game worker follows besides choosing moves.
type GameSettings struct {
	// AbortAfter: abort the game when the opponent has not made their first
	// move this long after it became their turn. Default 30 s; negative
	// never aborts.
	AbortAfter time.Duration
	// AcceptDraws: answer draw offers by the rule below (false: decline all).
	// A draw offer is accepted from full move DrawAfterMove on (counted
	// from the initial FEN's move number) when our last evaluation is
	// within DrawWithinCP centipawns of 0, and at once when we cannot win
	// on material, or, with DrawTablebase, when the tablebase result for
	// the position of the offer says a draw or a loss for us: an offer made
	// on our turn is then answered with our move, whose result is for that
	// position (game_offers.go); a result one move old never answers.
	AcceptDraws   bool
	DrawAfterMove int
	DrawWithinCP  int
	// DrawTablebase lets tablebase results (Choice.TB) accept offers (a
	// draw or a loss for us) and, with OfferDraws, make them (a draw or a
	// blessed loss).
	DrawTablebase bool
	// OfferDraws: offer a draw with our move (drawoffer.go) when our score
	// has been within OfferWithinCP centipawns of 0 for OfferForMoves of
	// our scored moves in a row (at least 1), from full move
	// OfferAfterMove on (counted from the initial FEN's move number), or
	// when the tablebase says drawn; never while the opponent's offer is
	// pending and refused (our offer would accept it); only with at
	// most OfferMaxPieces pieces on the board (0: any); not during the
	// OfferPauseMoves moves of ours that follow a refused offer; never
	// while the opponent's clock is below OfferMinOpponentClock or below a
	// quarter of ours.
	OfferDraws            bool
	OfferWithinCP         int
	OfferForMoves         int
	OfferMaxPieces        int
	OfferAfterMove        int
	OfferPauseMoves       int
	OfferMinOpponentClock time.Duration
	// Resign: resign when our evaluation has been at or below
	// -ResignBelowCP for ResignForMoves of our moves in a row (defaults
	// 1000 and 5 when Resign is set).
	Resign         bool
	ResignBelowCP  int
	ResignForMoves int
	// ResignTablebase: resign when the tablebase result of our move is a
	// loss within the fifty-move rule (TB.WDL == -2), whether or not
	// Resign is set.
	ResignTablebase bool
	// AcceptTakebacks: accept takeback requests (false: decline them).
	AcceptTakebacks bool
	// OnOpponentGone: what to do when the opponent left and a claim is
	// possible: OpponentGoneClaimVictory (default; a draw is claimed when
	// we cannot win on material), OpponentGoneClaimDraw, OpponentGoneWait.
	OnOpponentGone string
}

// Choices of GameSettings.OnOpponentGone.
const (
	OpponentGoneClaimVictory = "claim_victory"
	OpponentGoneClaimDraw    = "claim_draw"
	OpponentGoneWait         = "wait"
)

// ChatSettings: messages and commands in the game chat.
type ChatSettings struct {
	// Greeting and Goodbye are written at the start and the end of a game,
	// per room ("" = nothing). {opponent} and {me} are replaced by the
	// names.
	Greeting, Goodbye ChatMessages
	// Name answers the !name command, e.g. "ponderosa 0.1".
	Name string
}

// ChatMessages are lines for the player and the spectator room.
type ChatMessages struct {
	Player, Spectator string
}

func (s Settings) withDefaults() Settings {
	s.Challenge = s.Challenge.withDefaults()
	s.Clock = s.Clock.withDefaults()
	s.Matchmaking = s.Matchmaking.withDefaults()
	s.Correspondence = s.Correspondence.withDefaults()
	s.Tournament = s.Tournament.withDefaults()
	if s.Game.AbortAfter == 0 {
		s.Game.AbortAfter = 30 * time.Second
	}
	if s.Game.ResignBelowCP <= 0 {
		s.Game.ResignBelowCP = 1000
	}
	if s.Game.OfferForMoves <= 0 {
		s.Game.OfferForMoves = 1
	}
	if s.Game.ResignForMoves <= 0 {
		s.Game.ResignForMoves = 5
	}
	if s.Game.OnOpponentGone == "" {
		s.Game.OnOpponentGone = OpponentGoneClaimVictory
	}
	if s.ReconnectMin <= 0 {
		s.ReconnectMin = time.Second
	}
	if s.ReconnectMax <= 0 {
		s.ReconnectMax = 60 * time.Second
	}
	if s.ReconnectMax < s.ReconnectMin {
		s.ReconnectMax = s.ReconnectMin
	}
	return s
}

// backoff yields growing delays between reconnection attempts.
type backoff struct {
	min, max, cur time.Duration
}

func (b *backoff) next() time.Duration {
	if b.cur < b.min {
		b.cur = b.min
	} else {
		b.cur = min(2*b.cur, b.max)
	}
	return b.cur
}

func (b *backoff) reset() { b.cur = 0 }
