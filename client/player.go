package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/ponder"
)

// Player chooses the bot's moves in one game: the built-in engine (ponder
// over engine) or an external UCI engine (uci). The game's moves live in
// the game worker; a Player is told them and keeps no move list of its
// own. A game worker owns its Player and calls it from one goroutine at a
// time, in this order: NewGame; Position whenever the position changes
// (before Think, with the opponent's last move; after our move is posted,
// with it); Think for each of our moves, in the position last set;
// optionally Ponder after the Position with our move; EndGame when the game
// is over; Close when the worker is done with it.
type Player interface {
	// NewGame starts a game; called once before anything else for a game.
	NewGame(ctx context.Context, g GameInfo) error
	// Position sets the moves played so far from the game's initial
	// position (UCI; castling as king-to-destination, e.g. e1g1, in
	// standard chess, and king-takes-rook, e.g. e1h1, in Chess960). A
	// ponder search on exactly this position may be kept for Think (a
	// ponder hit); any other is stopped, at the latest by Think.
	Position(ctx context.Context, moves []string) error
	// Think chooses a move for the side to move within the clock
	// situation c: how much of the time up to c.Deadline to use is the
	// player's to decide (c.MoveTime, when set, is a fixed time). It must
	// return by c.Deadline; the worker stops waiting then (and plays a
	// fallback move). ctx is cancelled when the game ends.
	Think(ctx context.Context, c MoveClock) (Choice, error)
	// Ponder starts thinking on the opponent's time in the position last
	// set (the one after our move) and returns at once; the next Position
	// keeps it (a hit) or stops it, and Think or EndGame stops it.
	Ponder(ctx context.Context) error
	// EndGame tells the player the game is over.
	EndGame(ctx context.Context) error
	// Close releases the player (stops an engine process).
	Close() error
}

// stopMargin is how long before the hard deadline (MoveClock.Deadline) a
// player stops its search at the latest, so that its answer reaches the
// worker in time: a twentieth of the time left, between 15 and 150 ms. It
// is the players' one safety margin; it acts only when a search would
// otherwise run up to the deadline (a fixed move time as long as what is
// left, an engine that overruns), as a budget planned from our clock (the
// time left until the deadline) ends well before it.
func stopMargin(left time.Duration) time.Duration {
	return min(max(left/20, 15*time.Millisecond), 150*time.Millisecond)
}

// ResultTaker is a Player that wants to know how its game ended (the
// built-in engine's learning memory): the worker calls GameResult after
// EndGame with the result from the bot's side (win, loss, draw, aborted,
// unknown).
type ResultTaker interface {
	GameResult(result string)
}

// PonderGamer is a Player that plays with a ponder.Game (the built-in
// engine's): viewers (the web view) reach the game's snapshots and tree
// through it. PonderGame is nil before NewGame and after Close.
type PonderGamer interface {
	PonderGame() *ponder.Game
}

// PlayerFactory makes a new Player; the bot makes one per game, and another
// one when a player fails.
type PlayerFactory func(ctx context.Context) (Player, error)

// NewVariantPlayer returns a factory of players that play each game with
// the factory of its variant: perVariant[GameInfo.Variant] for a variant
// whose rules the worker does not know (KnowsRules), such as crazyhouse or
// atomic; standard for standard chess, Chess960 and games from a position.
// The variant is known at NewGame, so the player makes its real player
// (an engine process) there; NewGame fails for a variant no factory plays.
// With no per-variant factory it returns standard itself.
func NewVariantPlayer(standard PlayerFactory, perVariant map[string]PlayerFactory) PlayerFactory {
	if len(perVariant) == 0 {
		return standard
	}
	return func(ctx context.Context) (Player, error) {
		return &variantPlayer{standard: standard, perVariant: perVariant}, nil
	}
}

// variantPlayer hands a game to the player of its variant, made at
// NewGame. Close may come from another goroutine: mu guards p.
type variantPlayer struct {
	standard   PlayerFactory
	perVariant map[string]PlayerFactory

	mu     sync.Mutex
	p      Player
	closed bool
}

func (v *variantPlayer) NewGame(ctx context.Context, gi GameInfo) error {
	f := v.standard
	if !KnowsRules(gi.Variant) {
		f = v.perVariant[gi.Variant]
	}
	if f == nil {
		return fmt.Errorf("no engine plays %s: configure one for it", gi.Variant)
	}
	p, err := f(ctx)
	if err != nil {
		return fmt.Errorf("%s player: %w", gi.Variant, err)
	}
	if err := p.NewGame(ctx, gi); err != nil {
		_ = p.Close()
		return fmt.Errorf("%s player: %w", gi.Variant, err)
	}
	v.mu.Lock()
	old, closed := v.p, v.closed
	if !closed {
		v.p = p
	}
	v.mu.Unlock()
	if old != nil {
		_ = old.Close()
	}
	if closed {
		_ = p.Close()
		return errors.New("variant player closed")
	}
	return nil
}

func (v *variantPlayer) cur() (Player, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.p == nil {
		return nil, errors.New("variant player: no game started")
	}
	return v.p, nil
}

func (v *variantPlayer) Position(ctx context.Context, moves []string) error {
	p, err := v.cur()
	if err != nil {
		return err
	}
	return p.Position(ctx, moves)
}

func (v *variantPlayer) Think(ctx context.Context, c MoveClock) (Choice, error) {
	p, err := v.cur()
	if err != nil {
		return Choice{}, err
	}
	return p.Think(ctx, c)
}

func (v *variantPlayer) Ponder(ctx context.Context) error {
	p, err := v.cur()
	if err != nil {
		return err
	}
	return p.Ponder(ctx)
}

func (v *variantPlayer) stopPonder() {
	if p, err := v.cur(); err == nil {
		if ps, ok := p.(ponderStopper); ok {
			ps.stopPonder()
		}
	}
}

func (v *variantPlayer) EndGame(ctx context.Context) error {
	p, err := v.cur()
	if err != nil {
		return nil
	}
	return p.EndGame(ctx)
}

// GameResult implements ResultTaker for the player of the game, when it
// takes results.
func (v *variantPlayer) GameResult(result string) {
	if p, err := v.cur(); err == nil {
		if rt, ok := p.(ResultTaker); ok {
			rt.GameResult(result)
		}
	}
}

func (v *variantPlayer) Close() error {
	v.mu.Lock()
	p := v.p
	v.p, v.closed = nil, true
	v.mu.Unlock()
	if p == nil {
		return nil
	}
	return p.Close()
}

// GameInfo describes a game to a Player.
type GameInfo struct {
	ID         string
	Variant    string // Lichess key: standard, chess960, fromPosition, crazyhouse, atomic, …
	Chess960   bool
	InitialFEN string // "" for the standard start position
	White      bool   // we play white
	Opponent   string
	Rated      bool
	Initial    time.Duration // clock start time (0: no clock)
	Increment  time.Duration
}

// Choice is a Player's answer to Think: the move, and what its search saw
// (the worker uses the score for draw offers, resigning, !eval and the
// record).
type Choice struct {
	Move      string   // UCI
	ScoreCP   int      // centipawns from the mover's point of view (when Mate == 0)
	Mate      int      // mate in N moves (>0 we mate, <0 we are mated); 0 = none
	HasScore  bool     // ScoreCP/Mate are meaningful
	Depth     int      // plies
	PV        []string // principal variation, UCI, starting with Move
	Nodes     uint64
	Duration  time.Duration // thinking time
	OfferDraw bool          // offer (or accept) a draw with the move; the worker also sets it by game.draw's offer rule
	Resign    bool          // resign instead of moving
	// TB is a tablebase's result for the position we move in, when one
	// was asked (the online tablebase, or the built-in engine's local
	// Syzygy tables): the worker accepts, offers and resigns by it
	// (game.draw, game.resign).
	TB TBResult
	// Source says where the move came from, for the log and the archive:
	// the built-in engine's ponder.Source (search, ponder, ponder-at-once,
	// tree, forced, book, tablebase: its local tables), "search" for an
	// external engine, an online source (online-tablebase, cloud,
	// explorer, chessdb), and the game worker's
	// own: forced (the only legal move), fallback (a legal move played
	// without the engine), quick (a fresh engine's quick move). Note says
	// why an online source chose it.
	Source string
	Note   string
	// Engine holds the built-in engine's figures of the move (pondering,
	// the tree kept, memory), for metrics; nil for other players.
	Engine *EngineFacts
}

// TBResult is a tablebase's result for the side to move (us), under the
// fifty-move rule, as Syzygy's WDL: 2 a win, 1 a win the fifty-move rule
// turns (or may turn) into a draw (cursed), 0 a draw, -1 a loss the
// fifty-move rule saves (or may save: blessed), -2 a loss. A source unsure
// whether the fifty-move rule applies (the online tablebase's maybe-win
// and maybe-loss, and its syzygy-win and syzygy-loss unless the halfmove
// clock is 0) gives ±1, so that such a position is never resigned and
// never offered as a draw we might win.
type TBResult struct {
	Known bool
	WDL   int
	// Source is where it came from, for the log: "online-tablebase" (the
	// Lichess tablebase), "syzygy" (local tables).
	Source string
}

// Result names r for the log: win, cursed-win, draw, blessed-loss, loss
// ("" when not known).
func (r TBResult) Result() string {
	if !r.Known {
		return ""
	}
	switch {
	case r.WDL >= 2:
		return "win"
	case r.WDL == 1:
		return "cursed-win"
	case r.WDL == 0:
		return "draw"
	case r.WDL == -1:
		return "blessed-loss"
	}
	return "loss"
}
