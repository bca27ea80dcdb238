package uci

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/book"
	"github.com/ponderosa-chess/ponderosa/engine/search"
	"github.com/ponderosa-chess/ponderosa/engine/syzygy"
	"github.com/ponderosa-chess/ponderosa/internal/panics"
	"github.com/ponderosa-chess/ponderosa/ponder"
)

// Names of the options of EngineBackend, as announced in reply to "uci".
const (
	OptHash         = "Hash"
	OptThreads      = "Threads"
	OptPonder       = "Ponder"
	OptMultiPV      = "MultiPV"
	OptChess960     = "UCI_Chess960"
	OptMoveOverhead = "Move Overhead"
	OptClearHash    = "Clear Hash"
	// OptBackgroundPonder (non-standard, off by default) makes the engine
	// think on the opponent's time by itself after each "bestmove", for
	// match runners that never send "go ponder" (fastchess). The next
	// "position" that extends the game converts a correct guess.
	OptBackgroundPonder = "BackgroundPonder"
	// OptUseNNUE (off by default) evaluates with the network of OptEvalFile,
	// or the net built into the binary when that is empty, instead of the
	// hand-crafted evaluation. A net that cannot be had is an error, and
	// the hand-crafted evaluation stays.
	OptUseNNUE  = "UseNNUE"
	OptEvalFile = "EvalFile"
	// OptOwnBook (off by default) plays the moves of the Polyglot book
	// OptBookFile at once, without a search, while the position is in it
	// (chosen as OptBookSelection says; not for "go ponder", "go infinite",
	// MultiPV or search moves), with no ponder move in "bestmove". A book
	// file that cannot be read is an error, and the engine plays without a
	// book.
	OptOwnBook  = "OwnBook"
	OptBookFile = "BookFile"
	// OptBookSelection (weighted_random, the default; uniform_random;
	// best_move), OptBookMinWeight (default 0: book moves of a lower
	// weight are left out; weight 0 is never played) and OptBookDepth
	// (default 0: no limit; else the last ply of the game, counted from
	// its start position, played from the book) say how the book's move
	// is chosen, as the daemon's engine.book selection, min_weight and
	// max_depth do.
	OptBookSelection = "BookSelection"
	OptBookMinWeight = "BookMinWeight"
	OptBookDepth     = "BookDepth"
	// OptSyzygyPath lists directories of Syzygy tables (separated by ':',
	// ';' on Windows). In a won position the tables hold, "go" answers at
	// once with the shortest win among the moves that keep it, so that a
	// won game is mated within the fifty-move rule, also under "go depth"
	// or "go nodes" (not for "go ponder", "go infinite", MultiPV or search
	// moves), with "info depth 0 score cp|mate ..." (a win is scored like
	// the search's tablebase wins, TBWin less the DTZ: cp 31xxx; a mating
	// move mate 1) and "info string tablebase WDL <result> DTZ <plies>". In
	// a draw or a loss, or with WDL files only, a short search among the
	// moves that keep the result decides (its limits apply), followed by
	// the same info string. A directory or
	// table that cannot be read is an error naming it, and the engine
	// plays without tables. OptSyzygy50MoveRule (on by default) counts the
	// game's fifty-move counter in the choice (wins that would come too
	// late rank below the others) and scores cursed wins in the search as
	// draws; off ignores it.
	OptSyzygyPath       = "SyzygyPath"
	OptSyzygy50MoveRule = "Syzygy50MoveRule"
	// OptSyzygyProbeDepth (default 1) and OptSyzygyProbeLimit (default 7)
	// set the search's WDL probes: right after a capture or pawn move, in
	// positions of at most ProbeLimit pieces, at depth ProbeDepth or more
	// (with fewer pieces than the limit at any depth; ProbeDepth counts
	// only when ProbeLimit is at most the pieces of the largest tables: a
	// larger limit, such as the default 7 with smaller tables, probes
	// them at any depth, as in Stockfish); "info" reports tbhits. A position of more pieces than ProbeLimit is not played
	// from the tables at the root either (tables beyond the limit are not
	// used at all, as in Stockfish); ProbeLimit 0 turns every use of the
	// tables off.
	OptSyzygyProbeDepth = "SyzygyProbeDepth"
	OptSyzygyProbeLimit = "SyzygyProbeLimit"
	// OptLearnFile (empty by default: off) is the path of the learning
	// memory's SQLite database (created when missing; see store.Memory):
	// each search starts from what earlier games found in its position,
	// and each search of depth 8 or more is recorded. Several engines may
	// share one file. UCI tells no game results, so a game's result is
	// inferred at "ucinewgame" and "quit" from our last searched score: at
	// most -5 pawns (or being mated) counts as a loss, which halves the
	// depth of what the game recorded and of the entries its searches
	// were seeded from at their roots. Only that score is judged: a game
	// drawn at -5 pawns or worse counts as a loss, one lost on time while
	// winning does not (UCI says nothing else). A file that cannot be opened is an
	// error, and the engine plays without a memory.
	OptLearnFile = "LearnFile"
	optEmptyPath = "<empty>" // how GUIs send an empty string option
)

// Defaults and ranges of the EngineBackend options.
const (
	DefaultHashMB = 64
	MaxHashMB     = 8192
	MaxThreads    = 256
	MaxMultiPV    = 256
	// DefaultMoveOverhead is what the clock allocation keeps back per move
	// for lag between the GUI's clock and ours. 30 ms lost games on time on
	// a heavily loaded 2-core machine when the clock rule let the clock sink
	// to a few tenths of a second; the rule now keeps a reserve, and 100 ms
	// covers ordinary process stalls.
	DefaultMoveOverhead = 100 * time.Millisecond
	MaxMoveOverhead     = 10 * time.Second
	// MaxBookMinWeight and MaxBookDepth bound BookMinWeight and
	// BookDepth as the daemon's engine.book min_weight and max_depth.
	MaxBookMinWeight = 65535
	MaxBookDepth     = 10000
	// MaxPerftDepth bounds "go perft": deeper counts take hours and block
	// the command loop.
	MaxPerftDepth = 12
)

// engineOptions returns the options EngineBackend announces (a fresh slice).
func engineOptions() []OptionSpec {
	return []OptionSpec{
		{Name: OptHash, Type: OptionSpin, Default: strconv.Itoa(DefaultHashMB), Min: 1, Max: MaxHashMB},
		{Name: OptThreads, Type: OptionSpin, Default: "1", Min: 1, Max: MaxThreads},
		{Name: OptPonder, Type: OptionCheck, Default: "false"},
		{Name: OptMultiPV, Type: OptionSpin, Default: "1", Min: 1, Max: MaxMultiPV},
		{Name: OptChess960, Type: OptionCheck, Default: "false"},
		{Name: OptMoveOverhead, Type: OptionSpin, Default: strconv.Itoa(int(DefaultMoveOverhead.Milliseconds())),
			Min: 0, Max: int(MaxMoveOverhead.Milliseconds())},
		{Name: OptClearHash, Type: OptionButton},
		{Name: OptBackgroundPonder, Type: OptionCheck, Default: "false"},
		{Name: OptUseNNUE, Type: OptionCheck, Default: "false"},
		{Name: OptEvalFile, Type: OptionString, Default: ""},
		{Name: OptOwnBook, Type: OptionCheck, Default: "false"},
		{Name: OptBookFile, Type: OptionString, Default: ""},
		{Name: OptBookSelection, Type: OptionCombo, Default: book.WeightedRandom.String(),
			Vars: []string{book.WeightedRandom.String(), book.UniformRandom.String(), book.BestMove.String()}},
		{Name: OptBookMinWeight, Type: OptionSpin, Default: "0", Min: 0, Max: MaxBookMinWeight},
		{Name: OptBookDepth, Type: OptionSpin, Default: "0", Min: 0, Max: MaxBookDepth},
		{Name: OptSyzygyPath, Type: OptionString, Default: ""},
		{Name: OptSyzygy50MoveRule, Type: OptionCheck, Default: "true"},
		{Name: OptSyzygyProbeDepth, Type: OptionSpin, Default: "1", Min: 1, Max: 100},
		{Name: OptSyzygyProbeLimit, Type: OptionSpin, Default: "7", Min: 0, Max: 7},
		{Name: OptLearnFile, Type: OptionString, Default: ""},
	}
}

// EngineBackend is a Backend over ponderosa's own engine, driven through
// one persistent per-game tree (ponder.Game): "go ponder", "ponderhit" and
// "stop" run on the same tree, and a "position … moves …" that extends the
// previous one walks the tree down instead of starting over (the re-rooting
// is deferred to the next "go", so a ponder hit keeps its subtree). Create
// it with NewEngineBackend; the zero value is not usable.
//
// Castling is written king-to-target ("e1g1") unless UCI_Chess960 is on or
// the position was set from a FEN whose castling rights only make sense in
// Chess960 (king or rook off its standard square); then it is written
// king-takes-rook ("e1h1"). Input accepts both forms.
type EngineBackend struct {
	// BenchDepth is the depth of "bench" (search.BenchDepth when < 1).
	BenchDepth int

	mu       sync.Mutex // guards the fields below
	game     *ponder.Game
	gopts    ponder.Options
	fen      string          // start FEN of the last good "position"
	moves    []string        // its moves
	pos      *board.Position // the position they lead to
	fen960   bool            // fen has Chess960-only castling rights
	ponder   bool            // the Ponder option (informative: "go ponder" always works)
	chess960 bool            // the UCI_Chess960 option
	multiPV  int
	useNNUE  bool              // the UseNNUE option
	evalFile string            // the EvalFile option
	ownBook  bool              // the OwnBook option
	bookFile string            // the BookFile option
	tb       *syzygy.Tablebase // the tables of SyzygyPath (nil: none)
	learn    learning          // the memory of LearnFile
	// advanced: the game was moved past pos by our own bestmove to ponder
	// in the background (BackgroundPonder); the next go resets it to pos.
	advanced bool
	// seedSource gives the seed of each game made anew (its RNG picks the
	// book moves); nil takes one from the clock each time. Tests set a
	// fixed or counting source.
	seedSource func() int64
}

// NewEngineBackend returns a backend with the default options (Hash 64 MB,
// one thread, Move Overhead 100 ms) at the starting position.
func NewEngineBackend() *EngineBackend {
	b := &EngineBackend{
		gopts: ponder.Options{HashMB: DefaultHashMB, Threads: 1, MoveOverhead: DefaultMoveOverhead,
			TablebaseProbeDepth: 1, TablebaseProbeLimit: 7},
		fen:     board.StartFEN,
		pos:     board.NewPosition(),
		multiPV: 1,
	}
	b.game = ponder.NewGame(b.gopts)
	return b
}

// SetLogger makes l the logger of b's games (ponder.Options.Logger: a
// recovered panic of a search with its stack, each move's statistics). The
// game is made anew at the current position: call it before the first
// search.
func (b *EngineBackend) SetLogger(l zerolog.Logger) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.gopts.Logger = l
	b.resetGame()
}

// Engine returns the search engine behind b (it changes when Move Overhead
// is set).
func (b *EngineBackend) Engine() *search.Engine {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.game.Engine()
}

// Game returns the per-game tree behind b (it changes when Move Overhead is
// set).
func (b *EngineBackend) Game() *ponder.Game {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.game
}

// Options implements Backend.
func (b *EngineBackend) Options() []OptionSpec {
	return engineOptions()
}

// NewGame implements Backend: it clears the hash table, the tree and the
// move ordering statistics and goes back to the starting position. With a
// LearnFile, the game that ends is judged first (see OptLearnFile).
func (b *EngineBackend) NewGame() {
	b.mu.Lock()
	defer b.mu.Unlock()
	// The background ponder search stops before the game is judged, so
	// that what it found is recorded under the game that ends.
	_ = b.game.StopPonder()
	b.concludeLearnGame()
	if err := b.game.NewGame(); err != nil {
		// Busy or closed: never expected (the Server sends no ucinewgame
		// during a search); a fresh game is the same thing.
		b.resetGame()
	}
	b.fen, b.moves, b.pos, b.fen960 = board.StartFEN, nil, board.NewPosition(), false
	b.advanced = false
	b.nextLearnGame()
}

// Close stops any search (a background ponder search goes on after Go
// returned) and frees the game. b must not be used afterwards.
func (b *EngineBackend) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	// Pondering stops first, so that the game's result comes after all
	// it recorded.
	_ = b.game.StopPonder()
	b.concludeLearnGame()
	closeGame(b.game)
	if b.tb != nil {
		b.tb.Close()
		b.tb = nil
	}
	b.closeMemory()
}

// closeGame closes g after stopping its background ponder search:
// ponder.Game.Close alone can wait forever for a ponder search started just
// before (its stop is cleared when the search begins, and a closed game no
// longer repeats it), while StopPonder repeats it.
func closeGame(g *ponder.Game) {
	_ = g.StopPonder()
	g.Close()
}

// resetGame replaces the game by a new one with b.gopts, at the current
// position. With books, the new game gets a fresh seed (see newSeed), so it
// does not replay the book line of the one it replaces. Called with b.mu
// held.
func (b *EngineBackend) resetGame() {
	closeGame(b.game)
	if len(b.gopts.Books) > 0 {
		b.gopts.Seed = b.newSeed()
	}
	b.game = ponder.NewGame(b.gopts)
	// The position was accepted before, so it is accepted again.
	_ = b.game.SetPosition(b.fen, b.chess960 || b.fen960, b.moves)
	b.advanced = false
}

// newSeed returns the seed of a game made anew: from b.seedSource when set
// (deterministic), else from the clock, so that book moves differ from one
// game and one session to the next. Called with b.mu held.
func (b *EngineBackend) newSeed() int64 {
	if b.seedSource != nil {
		return b.seedSource()
	}
	return time.Now().UnixNano()
}

// SetOption implements Backend.
func (b *EngineBackend) SetOption(name, value string) error {
	spec, ok := FindOption(engineOptions(), name)
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownOption, name)
	}
	v, err := spec.Validate(value)
	if err != nil {
		return err
	}
	n, _ := strconv.Atoi(v) // spin values are validated integers
	b.mu.Lock()
	defer b.mu.Unlock()
	// A background ponder search holds the engine: stop it first.
	if err := b.game.StopPonder(); err != nil {
		return err
	}
	switch spec.Name {
	case OptHash:
		if err := b.game.SetHashMB(n); err != nil {
			return fmt.Errorf("resizing the hash table: %w", err)
		}
		b.gopts.HashMB = n
	case OptThreads:
		b.gopts.Threads = n
		b.game.Engine().SetThreads(n)
	case OptMoveOverhead:
		b.gopts.MoveOverhead = time.Duration(n) * time.Millisecond
		b.resetGame()
	case OptPonder:
		b.ponder = v == "true"
	case OptMultiPV:
		b.multiPV = n
	case OptChess960:
		b.chess960 = v == "true"
		return b.game.SetPosition(b.fen, b.chess960 || b.fen960, b.moves)
	case OptClearHash:
		if err := b.game.ClearHash(); err != nil {
			return fmt.Errorf("clearing the hash table: %w", err)
		}
	case OptBackgroundPonder:
		if on := v == "true"; on != b.gopts.Ponder {
			b.gopts.Ponder = on
			b.resetGame()
		}
	case OptUseNNUE:
		b.useNNUE = v == "true"
		return b.chooseNet()
	case OptEvalFile:
		b.evalFile = pathOption(v)
		if b.useNNUE {
			return b.chooseNet()
		}
	case OptOwnBook:
		b.ownBook = v == "true"
		return b.chooseBook()
	case OptBookFile:
		b.bookFile = pathOption(v)
		return b.chooseBook()
	case OptBookSelection, OptBookMinWeight, OptBookDepth:
		o := &b.gopts.BookOptions
		switch spec.Name {
		case OptBookSelection:
			o.Method, _ = book.ParseMethod(v) // one of the combo's vars
		case OptBookMinWeight:
			o.MinWeight = n
		default:
			o.MaxDepth = n
		}
		b.game.SetBooks(b.gopts.Books, *o)
	case OptSyzygyPath:
		return b.chooseTablebase(pathOption(v))
	case OptLearnFile:
		return b.chooseMemory(pathOption(v))
	case OptSyzygy50MoveRule, OptSyzygyProbeDepth, OptSyzygyProbeLimit:
		switch spec.Name {
		case OptSyzygy50MoveRule:
			b.gopts.TablebaseIgnore50 = v != "true"
		case OptSyzygyProbeDepth:
			b.gopts.TablebaseProbeDepth = n
		default:
			b.gopts.TablebaseProbeLimit = n
			if n == 0 {
				b.gopts.TablebaseProbeLimit = -1 // no probes in the search
			}
		}
		b.setTablebase()
	}
	return nil
}

// SetPosition implements Backend. On error the previous position stays.
func (b *EngineBackend) SetPosition(fen string, moves []string) error {
	pos, err := board.ParseFEN(fen)
	if err != nil {
		return fmt.Errorf("set position: %w", err)
	}
	fen960 := pos.Chess960()
	for i, s := range moves {
		m, err := pos.ParseUCIMove(s)
		if err != nil {
			return fmt.Errorf("set position: move %d: %w", i+1, err)
		}
		pos.MakeMove(m)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.game.SetPosition(fen, b.chess960 || fen960, moves); err != nil {
		return err
	}
	b.fen, b.moves, b.pos, b.fen960 = fen, append([]string(nil), moves...), pos, fen960
	b.advanced = false
	return nil
}

// snapshot returns the game, a copy of the current position with the
// castling output form set, and the MultiPV option.
func (b *EngineBackend) snapshot(forGo bool) (*ponder.Game, *board.Position, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if forGo && b.advanced {
		// Go again without a new position: back to it (it was accepted
		// before, and it is a prefix of the game, so the tree stays).
		_ = b.game.SetPosition(b.fen, b.chess960 || b.fen960, b.moves)
		b.advanced = false
	}
	pos := b.pos.Clone()
	pos.SetChess960(b.chess960 || b.fen960)
	return b.game, pos, b.multiPV
}

// Position returns a copy of the current position (for tests and tools).
func (b *EngineBackend) Position() *board.Position {
	_, pos, _ := b.snapshot(false)
	return pos
}

// gameLimits converts UCI limits to the game's limits in pos. elapsed is
// the time since the "go" was received, taken off the clock and the move
// time (not for a ponder search, whose clock starts at "ponderhit").
// Search moves that are not legal in pos are dropped; if none is left the
// restriction is dropped too (the GUI gets a move rather than none).
func gameLimits(pos *board.Position, l GoLimits, multiPV int, elapsed time.Duration) ponder.ThinkLimits {
	gl := ponder.ThinkLimits{
		Depth:     l.Depth,
		MoveTime:  l.MoveTime,
		Infinite:  l.Infinite,
		Mate:      l.Mate,
		WTime:     l.WTime,
		BTime:     l.BTime,
		WInc:      l.WInc,
		BInc:      l.BInc,
		MovesToGo: l.MovesToGo,
		MultiPV:   multiPV,
		Ponder:    l.Ponder,
	}
	if l.Nodes > 0 {
		gl.Nodes = uint64(l.Nodes)
	}
	if !l.Ponder && elapsed > 0 {
		sub := func(d time.Duration) time.Duration {
			if d == 0 {
				return 0 // absent stays absent
			}
			return max(d-elapsed, time.Millisecond)
		}
		gl.MoveTime = sub(gl.MoveTime)
		if pos.SideToMove() == board.White {
			gl.WTime = sub(gl.WTime)
		} else {
			gl.BTime = sub(gl.BTime)
		}
	}
	for _, s := range l.SearchMoves {
		if m, err := pos.ParseUCIMove(s); err == nil {
			gl.SearchMoves = append(gl.SearchMoves, pos.MoveToUCI(m))
		}
	}
	return gl
}

// Go implements Backend.
func (b *EngineBackend) Go(ctx context.Context, p GoParams, info func(Info)) (best, ponderMove string) {
	game, pos, multiPV := b.snapshot(true)
	var elapsed time.Duration
	if !p.Received.IsZero() {
		elapsed = time.Since(p.Received)
	}
	lim := gameLimits(pos, p.GoLimits, multiPV, elapsed)
	chess960 := pos.Chess960()

	// started is closed at the first report: only then does the game have
	// the ponder search that a PonderHit converts (one before it would be
	// ignored).
	started := make(chan struct{})
	var startOnce sync.Once
	done := make(chan struct{})
	var wg sync.WaitGroup
	var hitPanic *panics.Error // the watcher's panic, raised again below
	if p.GoLimits.Ponder && p.PonderHit != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer panics.Recover(func(e *panics.Error) { hitPanic = e })
			select {
			case <-p.PonderHit:
			case <-done:
				return
			}
			select {
			case <-started:
				game.PonderHit()
			case <-done:
			}
		}()
	}
	var lastPV string // first move of the last line 1 reported
	report := func(si search.Info) {
		startOnce.Do(func() { close(started) })
		if si.MultiPV <= 1 && len(si.PV) > 0 {
			lastPV = si.PV[0].UCI(chess960)
		}
		if info != nil {
			info(convertInfo(si, chess960))
		}
	}
	d, err := game.Think(ctx, lim, report)
	close(done)
	wg.Wait()
	if hitPanic != nil {
		panic(hitPanic) // on the search goroutine, where the Server recovers it
	}

	if d.NoMove {
		return "", ""
	}
	if err == nil && d.UCI == "" && d.Move != board.NoMove && pos.IsLegal(d.Move) {
		// A stopped "go ponder" decision carries the move only.
		d.UCI = d.Move.UCI(chess960)
		d.PonderUCI = ""
		if d.Ponder != board.NoMove {
			pos.MakeMove(d.Move)
			if pos.IsLegal(d.Ponder) {
				d.PonderUCI = d.Ponder.UCI(chess960)
			}
			pos.UnmakeMove()
		}
	}
	if err != nil || d.UCI == "" {
		// Never expected: the position and the limits were checked. Any
		// legal move beats none.
		if info != nil && err != nil {
			info(Info{Text: "error: " + err.Error()})
		}
		var ml board.MoveList
		pos.GenerateLegal(&ml)
		if ml.N == 0 {
			return "", ""
		}
		return ml.Moves[0].UCI(chess960), ""
	}
	if info != nil && d.Source == ponder.FromTablebase {
		// The tables' move, without a search: depth 0 with the tables'
		// score (see ponder.Decision.Score).
		info(decisionInfo(d))
	}
	if info != nil && d.Tablebase {
		info(Info{Text: fmt.Sprintf("tablebase WDL %s DTZ %d", d.WDL, d.DTZ)})
	}
	if info != nil && d.UCI != lastPV && d.Depth > 0 {
		// The move came from an unfinished iteration, the tree or a
		// variety pick: say so in a last info line, so that the GUI's last
		// PV starts with the bestmove.
		info(decisionInfo(d))
	}
	if info != nil && !p.GoLimits.Ponder && !p.GoLimits.Infinite {
		if ms, ok := game.LastMove(); ok && ms.Move == d.UCI {
			info(Info{Text: treeStatsText(ms)})
		}
	}
	if !p.GoLimits.Ponder && !p.GoLimits.Infinite {
		b.noteScore(game, d)
		b.ponderAfter(game, d.UCI)
	}
	return d.UCI, d.PonderUCI
}

// AfterPanic implements PanicRecoverer: after a panic in Go, the game (its
// tree, hash table and any search left running) is dropped and a fresh one
// made at the current position, and the first legal move is the answer.
func (b *EngineBackend) AfterPanic() (fallback string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.resetGame()
	var ml board.MoveList
	b.pos.GenerateLegal(&ml)
	if ml.N == 0 {
		return ""
	}
	return ml.Moves[0].UCI(b.chess960 || b.fen960)
}

// ponderAfter plays our move in the game and starts a background ponder
// search when BackgroundPonder is on (the game's Ponder option). The search
// runs until the next position that does not extend the game, go, setoption
// or ucinewgame.
func (b *EngineBackend) ponderAfter(game *ponder.Game, best string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.gopts.Ponder || game != b.game {
		return
	}
	if err := game.Play(best); err != nil {
		return
	}
	b.advanced = true
	game.StartPonder(context.Background())
}

// treeStatsText is the "info string" text that reports how the per-game tree
// served a decision, one key=value per field, so that match logs can be
// summed up (scripts/tree-stats.py): where the move came from, the share of
// the tree that the new root kept, whether the opponent's move was the
// predicted reply or among the top 3, the depth on hand when the position
// became ours, and the time used against the budget.
func treeStatsText(ms ponder.MoveStats) string {
	return fmt.Sprintf("treestats ply=%d source=%s kept=%.3f kept_nodes=%d tree_before=%d predicted=%t hit=%t top3=%t depth_at_move=%d depth=%d pondered_ms=%d used_ms=%d budget_ms=%d saved_ms=%d tree_nodes=%d",
		ms.Ply, ms.Source, ms.KeptFraction, ms.KeptNodes, ms.TreeNodesBefore, ms.Predicted, ms.PonderHit, ms.PonderTop3,
		ms.DepthAtMove, ms.Depth, ms.Pondered.Milliseconds(), ms.TimeUsed.Milliseconds(), ms.Budget.Base.Milliseconds(),
		ms.TimeSaved.Milliseconds(), ms.TreeNodes)
}

// decisionInfo is the info line of a decision.
func decisionInfo(d ponder.Decision) Info {
	in := Info{Depth: d.Depth, MultiPV: 1, Nodes: int64(d.Nodes), Time: d.Time}
	if d.Mate != 0 {
		in.Score = Mate(d.Mate)
	} else {
		in.Score = CP(d.Score)
	}
	if len(d.PV) > 0 && d.PV[0] == d.UCI {
		in.PV = d.PV
	} else {
		in.PV = []string{d.UCI}
		if d.PonderUCI != "" {
			in.PV = append(in.PV, d.PonderUCI)
		}
	}
	return in
}

// convertInfo turns a search report into a UCI info line.
func convertInfo(si search.Info, chess960 bool) Info {
	in := Info{
		Depth:    si.Depth,
		SelDepth: si.SelDepth,
		MultiPV:  si.MultiPV,
		Nodes:    int64(si.Nodes),
		NPS:      int64(si.NPS),
		Time:     si.Time,
		HashFull: si.Hashfull,
		TBHits:   int64(si.TBHits),
	}
	if si.Mate != 0 {
		in.Score = Mate(si.Mate)
	} else {
		in.Score = CP(si.Score)
	}
	switch si.Bound {
	case search.BoundLower:
		in.Score.Bound = BoundLower
	case search.BoundUpper:
		in.Score.Bound = BoundUpper
	}
	if len(si.PV) > 0 {
		in.PV = make([]string, len(si.PV))
		for i, m := range si.PV {
			in.PV[i] = m.UCI(chess960)
		}
	}
	return in
}

// Perft implements Backend: one "move: count" line per legal move, a blank
// line and "Nodes searched: N".
func (b *EngineBackend) Perft(depth int, out io.Writer) error {
	if depth > MaxPerftDepth {
		return fmt.Errorf("depth %d is more than %d", depth, MaxPerftDepth)
	}
	_, pos, _ := b.snapshot(false)
	var total uint64
	var sb strings.Builder
	if depth < 1 {
		total = 1
	} else {
		for _, d := range board.Divide(pos, depth) {
			fmt.Fprintf(&sb, "%s: %d\n", d.UCI, d.Nodes)
			total += d.Nodes
		}
	}
	fmt.Fprintf(&sb, "\nNodes searched: %d\n", total)
	_, err := io.WriteString(out, sb.String())
	return err
}

// Bench implements Backend: search.Bench at BenchDepth, which prints a line
// per position and the total nodes and nodes per second, with the
// evaluation the options chose (UseNNUE, EvalFile). The total node count of
// the default, hand-crafted evaluation is the engine's signature.
func (b *EngineBackend) Bench(out io.Writer) error {
	_, err := search.BenchNet(out, b.BenchDepth, b.Net())
	return err
}

// Display implements Displayer: the board and its FEN.
func (b *EngineBackend) Display(out io.Writer) error {
	_, pos, _ := b.snapshot(false)
	_, err := fmt.Fprintf(out, "%s\nKey: %016x\n", pos, pos.Key())
	return err
}

var (
	_ Backend        = (*EngineBackend)(nil)
	_ Displayer      = (*EngineBackend)(nil)
	_ PanicRecoverer = (*EngineBackend)(nil)
)
