package client

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

// Store is where the bot keeps what must outlive a run: the archive of
// finished games and the counters of the daemon (the bot games of the last
// 24 hours, the bots that declined our challenges). cmd/ponderosa gives
// the SQLite state store (package store); the client knows only this
// interface. A Store must be safe for concurrent use.
type Store interface {
	// RecordGame archives a finished game. An error that wraps
	// ErrRecordKept says the record was kept elsewhere (spooled) and will
	// reach the archive later.
	RecordGame(ctx context.Context, r GameRecord) error
	// RecordRatingDiffs sets the rating changes of a game (nil: unknown),
	// told by Lichess' gameFinish event before or after RecordGame.
	RecordRatingDiffs(ctx context.Context, id string, white, black *int) error
	// AddBotGame counts a game against a bot, started at t, for the daily
	// limit; counting a game twice counts it once.
	AddBotGame(ctx context.Context, id string, t time.Time) error
	// BotGamesSince returns the start times of the counted bot games at
	// or after t.
	BotGamesSince(ctx context.Context, t time.Time) ([]time.Time, error)
	// AddDecline remembers that a bot declined our challenge.
	AddDecline(ctx context.Context, d DeclineRecord) error
	// DeclinesSince returns the declines at or after t.
	DeclinesSince(ctx context.Context, t time.Time) ([]DeclineRecord, error)
	// SetPause remembers that name (PauseBotDayLimit) is paused until
	// until; a later call replaces it.
	SetPause(ctx context.Context, name string, until time.Time) error
	// PauseUntil returns the end of name's pause; zero when none.
	PauseUntil(ctx context.Context, name string) (time.Time, error)
}

// PauseBotDayLimit names the matchmaker's pause after Lichess' 429 for
// the daily bot-game limit in the Store.
const PauseBotDayLimit = "matchmaking.bot_day_limit"

// ErrRecordKept is wrapped by a Store's error when what it was given is
// not lost (spooled, written later).
var ErrRecordKept = errors.New("record kept for later")

// GameRecord is a finished game for the archive.
type GameRecord struct {
	ID, URL                  string
	White, Black             string
	WhiteRating, BlackRating int // 0: unknown
	// WhiteRatingDiff and BlackRatingDiff are the rating changes when
	// known with the record (a game recovered from Lichess' export); nil
	// otherwise: Lichess' gameFinish tells them (RecordRatingDiffs).
	WhiteRatingDiff, BlackRatingDiff *int
	OurColor                         string
	Speed, Variant                   string
	Rated                            bool
	Clock                            bool // false: none (correspondence)
	ClockInitial, ClockIncrement     time.Duration
	Result                           string // win, loss, draw, aborted, unknown (from our side)
	Termination                      string // Lichess' status
	InitialFEN                       string // "": the standard start
	Started, Ended                   time.Time
	PGN                              string
	Moves                            []MoveRecord
}

// MoveRecord is one move of a GameRecord, with our figures when ours.
type MoveRecord struct {
	Ply      int
	UCI      string
	SAN      string // "": a variant without rules here
	Ours     bool
	HasScore bool
	ScoreCP  int // from our side (Mate == 0)
	Mate     int // >0: we mate
	Depth    int
	Nodes    uint64
	Time     time.Duration
	Source   string // search, ponder, ponder-at-once, tree, forced, book, fallback, ...
}

// DeclineRecord is a decline of our challenge, with the kind of challenge
// it answered ("" where unknown: declines recorded before the kinds were).
type DeclineRecord struct {
	Opponent string // lower-case id
	Reason   string // Lichess' reason key
	At       time.Time
	Variant  string // Lichess' variant key
	Speed    string // bullet, blitz, rapid, classical
	Mode     string // MatchRated or MatchCasual
}

// SetStore gives the bot its state store; call it before Run. Without one
// the bot keeps its counters in memory only and archives nothing.
func (b *Bot) SetStore(s Store) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.store = s
}

// gameRecord is the archive's record of the finished game.
func (g *gameWorker) gameRecord(st lichess.GameState, now time.Time, pgn string) GameRecord {
	f := g.full
	r := GameRecord{
		ID: g.id, URL: g.bot.gameURL(g.id),
		White: f.White.Name, Black: f.Black.Name,
		WhiteRating: f.White.Rating, BlackRating: f.Black.Rating,
		OurColor: colorName(g.white), Speed: f.Speed, Variant: f.Variant.Key, Rated: f.Rated,
		Result:      gameResult(st.Status, st.Winner, colorName(g.white)),
		Termination: st.Status,
		Ended:       now,
		PGN:         pgn,
	}
	if r.Variant == "" {
		r.Variant = "standard"
	}
	if f.Clock != nil {
		r.Clock = true
		r.ClockInitial = time.Duration(f.Clock.Initial) * time.Millisecond
		r.ClockIncrement = time.Duration(f.Clock.Increment) * time.Millisecond
	}
	if fen := f.InitialFEN; fen != "" && fen != "startpos" && fen != StartFEN {
		r.InitialFEN = fen
	}
	if f.CreatedAt > 0 {
		r.Started = time.UnixMilli(f.CreatedAt)
	}
	sans := g.sans()
	whiteFirst := g.whiteMovesFirst()
	for i, m := range g.moves {
		mr := MoveRecord{Ply: i, UCI: m, Ours: ((i%2 == 0) == whiteFirst) == g.white}
		if i < len(sans) {
			mr.SAN = sans[i]
		}
		if d, ok := g.choices[i]; ok {
			mr.HasScore, mr.ScoreCP, mr.Mate = d.HasScore, d.ScoreCP, d.Mate
			mr.Depth, mr.Nodes, mr.Time, mr.Source = d.Depth, d.Nodes, d.Duration, d.Source
		}
		r.Moves = append(r.Moves, mr)
	}
	return r
}

// whiteMovesFirst says whether White made the game's first move.
func (g *gameWorker) whiteMovesFirst() bool {
	b, err := newBoard(g.full.Variant.Key, g.full.InitialFEN, nil)
	return err != nil || b.WhiteToMove()
}

// sans are the game's moves in SAN; nil for a variant without rules here
// (or when a move cannot be replayed).
func (g *gameWorker) sans() []string {
	if !KnowsRules(g.full.Variant.Key) {
		return nil
	}
	b, err := newBoard(g.full.Variant.Key, g.full.InitialFEN, nil)
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(g.moves))
	for _, m := range g.moves {
		out = append(out, b.SAN(m))
		if b.Play(m) != nil {
			return out
		}
	}
	return out
}

// archive records the finished game in the store: never blocking the end
// of the game for long (the store's own lock timeout bounds it), and a
// failure only logged (the store spools what it could not write).
func (g *gameWorker) archive(ctx context.Context, st lichess.GameState) {
	s := g.bot.storeOf()
	if s == nil || g.archived || g.full == nil {
		return
	}
	g.archived = true
	now := time.Now()
	pgn, err := g.pgn(st, now)
	if err != nil {
		g.l().Warn().Err(err).Msg("archive: no PGN for the game")
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	switch err := s.RecordGame(ctx, g.gameRecord(st, now, pgn)); {
	case err == nil:
		g.l().Debug().Msg("game archived")
	case errors.Is(err, ErrRecordKept):
		g.l().Warn().Err(err).Msg("archive: the database did not take the game; it is spooled and will be written when the database works")
	default:
		g.l().Error().Err(err).Msg("archive: the game could not be recorded")
	}
}

func (b *Bot) storeOf() Store {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.store
}

// persist hands a counter update to the store writer (Run's goroutine),
// so that a slow or locked database never holds up the caller (which may
// hold b.mu). Without a store, or when the writer is behind by more than
// its buffer, the update stays in memory only (logged).
func (b *Bot) persist(what string, f func(context.Context, Store) error) {
	if b.store == nil {
		return
	}
	select {
	case b.storeC <- storeOp{what, f}:
	default:
		b.log.Warn().Str("what", what).Msg("state store: writer behind; kept in memory only")
	}
}

type storeOp struct {
	what string
	f    func(context.Context, Store) error
}

// storeWriter applies counter updates until ctx ends, then what is
// already queued.
func (b *Bot) storeWriter(ctx context.Context, s Store) {
	do := func(op storeOp) {
		octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := op.f(octx, s); err != nil && !errors.Is(err, ErrRecordKept) {
			b.log.Warn().Err(err).Str("what", op.what).Msg("state store: not saved")
		} else if err != nil {
			b.log.Warn().Err(err).Str("what", op.what).Msg("state store: spooled")
		}
	}
	for {
		select {
		case op := <-b.storeC:
			do(op)
		case <-ctx.Done():
			for {
				select {
				case op := <-b.storeC:
					do(op)
				default:
					return
				}
			}
		}
	}
}

// countBotGame counts a game against a bot now (b.mu held).
func (b *Bot) countBotGameLocked(id string) {
	now := time.Now()
	b.botGames.add(now)
	if id == "" {
		id = "unknown-" + now.UTC().Format(time.RFC3339Nano)
	}
	b.persist("bot game", func(ctx context.Context, s Store) error { return s.AddBotGame(ctx, id, now) })
}

// loadState reads the counters of earlier runs from the store, once per
// Bot: the bot games of the last 24 hours (Lichess counts a sliding day),
// the decline history (the declines still in their cool-down, and those
// the block list is derived from: matchmaking.block_after_declines) and
// the matchmaker's pause for Lichess' daily bot-game limit.
func (b *Bot) loadState(ctx context.Context) {
	b.mu.Lock()
	s, loaded := b.store, b.stateLoaded
	b.stateLoaded = true
	b.mu.Unlock()
	if s == nil || loaded {
		return
	}
	now := time.Now()
	games, gerr := s.BotGamesSince(ctx, now.Add(-24*time.Hour))
	mm := b.Settings().Matchmaking
	cool := mm.DeclineCooldown
	decl, derr := s.DeclinesSince(ctx, now.Add(-max(cool, mm.BlockFor)))
	pause, perr := s.PauseUntil(ctx, PauseBotDayLimit)
	if err := errors.Join(gerr, derr, perr); err != nil {
		b.log.Warn().Err(err).Msg("state store: cannot read the counters of earlier runs (read what the spool holds)")
	}
	b.mu.Lock()
	b.botGames.load(games)
	for _, d := range decl {
		id := strings.ToLower(d.Opponent)
		// A reason about the kind of challenge cools down that kind only
		// (from the history, see refuses).
		if declineAbout(d.Reason) == aboutBot && now.Sub(d.At) <= cool && d.At.After(b.mm.declined[id]) {
			b.mm.declined[id] = d.At
		}
	}
	// The decline history of the block list, before what this run added.
	b.mm.history = append(slices.Clone(decl), b.mm.history...)
	slices.SortStableFunc(b.mm.history, func(x, y DeclineRecord) int { return x.At.Compare(y.At) })
	if c := clampDayLimitPause(pause, now); !c.Equal(pause) {
		b.log.Warn().Time("stored", pause).Time("until", c).
			Msg("state store: the stored daily-limit pause ends more than 24 hours from now; taken as 24 hours")
		pause = c
	}
	paused := pause.After(now) && pause.After(b.mm.dayLimitUntil)
	if paused {
		b.mm.dayLimitUntil = pause
	}
	b.mu.Unlock()
	b.log.Info().Int("bot_games_24h", len(games)).Int("declines", len(decl)).Msg("state store: counters of earlier runs loaded")
	if paused {
		b.log.Warn().Time("until", pause).
			Msg("matchmaking: paused by an earlier run for Lichess' daily bot-game limit (429 bot.vsBot.day); no challenges until then")
	}
}
