package ponder

import (
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/book"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/engine/search"
	"github.com/ponderosa-chess/ponderosa/engine/syzygy"
)

// Strategy says what to search on the opponent's time.
type Strategy int

const (
	// PonderPredicted (classic pondering) searches the position after the
	// predicted reply (the second move of our PV) in ponder mode; a ponder
	// hit converts that very search into our move's search.
	PonderPredicted Strategy = iota
	// PonderOpponent searches the position with the opponent to move,
	// which fills the tree and the TT for all replies; when the opponent
	// moves, a new search starts from what is there (or the tree answers at
	// once when the reply's node is deep enough).
	PonderOpponent
)

func (s Strategy) String() string {
	switch s {
	case PonderPredicted:
		return "predicted"
	case PonderOpponent:
		return "opponent"
	}
	return fmt.Sprintf("strategy(%d)", int(s))
}

// Options configure a Game.
type Options struct {
	HashMB       int           // transposition table (per game); <1 means 16
	Threads      int           // search threads; <1 means 1
	TreeMB       int           // memory cap for the tree's nodes; <1 means 4
	TreeNodes    int           // cap in nodes; overrides TreeMB when > 0 (tests, tuning)
	MoveOverhead time.Duration // reserved per move for lag
	Net          *nnue.Net     // evaluation network (search.Options.Net); nil: the hand-crafted evaluation
	// CPU, when set, is the thread budget this Game's searches share with
	// other Games (see CPUShare); nil: each search uses Threads.
	CPU      *CPUShare
	Ponder   bool // think on the opponent's time (StartPonder)
	Strategy Strategy
	// PonderDepth and PonderNodes cap a background ponder search (0: no
	// cap). A capped search waits for the opponent's move; a hit that needs
	// more then starts a new search.
	PonderDepth int
	PonderNodes uint64
	// VarietyCP > 0 plays a random root move among those whose exact score
	// is within VarietyCP centipawns of the best (never when mating or
	// being mated). The search then finds VarietyLines lines (default 3).
	VarietyCP    int
	VarietyLines int
	Seed         int64 // seeds the Game's own RNG (variety, book moves)
	// Books are opening books asked in order before each search for our
	// move (see Think); BookOptions says how a move is chosen (method,
	// min weight, max depth in plies from the game's start position).
	// SetBooks changes both.
	Books       []*book.Book
	BookOptions book.Options
	// Tablebase (Syzygy tables, nil: none) is probed before each search
	// for our move: in a position it holds, Think plays the tables' move
	// at once or searches among the moves that keep its result (see
	// tablebaseMoves). TablebaseIgnore50 leaves the game's
	// fifty-move counter out of the choice (UCI Syzygy50MoveRule false;
	// see syzygy.ProbeRoot). SetTablebase changes both.
	Tablebase         *syzygy.Tablebase
	TablebaseIgnore50 bool
	// TablebaseProbeDepth and TablebaseProbeLimit are the search's
	// probes of the tables (search.Limits.TablebaseDepth and
	// TablebaseLimit: UCI SyzygyProbeDepth, SyzygyProbeLimit); a limit of
	// 0 is the largest table, a negative one turns the search's probes off
	// (the root still plays the tables' moves). A positive limit also
	// bounds the root: a position of more pieces is searched, not played
	// from the tables (Stockfish's meaning: tables beyond the limit are
	// not used at all).
	TablebaseProbeDepth int
	TablebaseProbeLimit int
	// IrreversibleAge is how many TT generations are skipped after an
	// irreversible move (capture, pawn move, lost castling right), so the
	// entries of positions that can no longer occur are replaced first.
	// 0 means the default (3); negative turns it off.
	IrreversibleAge int
	Logger          zerolog.Logger // the game's logger (zero value: silent)
	// Memory (nil: none) is knowledge kept across games: each search
	// starts from what it knows of the position (seeding the TT) and each
	// search of LearnMinDepth (default DefaultLearnMinDepth) or more is
	// recorded under the game name MemoryGame. See Memory and SetMemory.
	Memory        Memory
	MemoryGame    string
	LearnMinDepth int
	// afterIteration, when set, is called after each iteration (each
	// MultiPV line, and aspiration failures) of every search of the Game,
	// on the search goroutine, without the Game's lock. Tests set it to
	// inject a panic into a running search (see SearchPanic).
	afterIteration func(iteration)
}

// iteration is what Options.afterIteration sees of one search iteration.
type iteration struct {
	ply       int  // game moves up to the searched position
	pondering bool // a ponder search, not (yet) the search for our move
	info      search.Info
}

// ThinkLimits are the limits of one Think, as a front end hands them over
// (UCI "go", or the Lichess bot's clock situation). Think turns them into a
// budget (PlanMove) and the engine's search.Limits. Zero values mean "no
// limit".
type ThinkLimits struct {
	WTime, BTime time.Duration
	WInc, BInc   time.Duration
	MovesToGo    int
	MoveTime     time.Duration
	Depth        int
	Nodes        uint64
	Mate         int
	Infinite     bool
	SearchMoves  []string // UCI moves; illegal ones are an error
	MultiPV      int
	// Ponder is UCI "go ponder": the current position already ends with
	// the predicted reply. Think searches it in ponder mode and blocks
	// until PonderHit (then these limits apply, pondered time counted by
	// the budget rule) or Stop.
	Ponder bool
}

// Source tells where a decision came from.
type Source int

const (
	FromSearch       Source = iota // a search started for this move
	FromPonder                     // a ponder search converted on a hit (went on searching)
	FromPonderAtOnce               // a ponder hit deep enough: replied at once
	FromTree                       // the tree already held a deep enough result
	FromForced                     // the only legal move
	FromBook                       // an opening book's move, without a search
	FromTablebase                  // the endgame tablebase's move, without a search
)

func (s Source) String() string {
	return [...]string{"search", "ponder", "ponder-at-once", "tree", "forced", "book", "tablebase"}[s]
}

// Decision is the answer of Think.
type Decision struct {
	Move      board.Move
	UCI       string
	Ponder    board.Move // expected reply (NoMove if unknown, and always with a book move)
	PonderUCI string
	Score     int // centipawns from the side to move's view (or mate score)
	Mate      int
	Depth     int
	Nodes     uint64 // nodes of the search that produced the move
	Time      time.Duration
	PV        []string
	Source    Source
	Budget    Budget
	RootMoves []search.RootMove
	NoMove    bool // the position has no legal move (game over)
	// Tablebase is set when the endgame tablebase chose Move (a
	// FromTablebase decision) or the moves it was searched among (a
	// FromSearch decision in a draw or a loss, or a win known only by WDL);
	// WDL and DTZ are then the tables' verdict on Move (DTZ in plies from
	// the current position, positive when we win, 0 when only WDL tables
	// were found; see syzygy.RootMove). A FromTablebase decision has Depth
	// 0 and Score (and Mate) from the tables: a win is search.TBWin less
	// its DTZ, a loss the negative, a draw 0, a move that mates a mate in
	// 1 (see Game.tablebaseScore).
	Tablebase bool
	WDL       syzygy.WDL
	DTZ       int
	// TB is the tables' result for the position we move in, whenever the
	// tables hold it: with FromTablebase, with a search restricted to the
	// moves that keep the result (Tablebase set), and also when a search
	// decides among all moves there (an analysis, which never plays from
	// nor is restricted by the tables).
	TB TBResult
}

// TBResult is the endgame tables' result for the side to move: Known
// when the tables hold the position; WDL counts the game's fifty-move
// counter, so cursed wins and blessed losses stay apart from wins and
// losses (the best WDL among the best-ranked moves, syzygy.Best).
type TBResult struct {
	Known bool
	WDL   syzygy.WDL
}

// ErrClosed is returned by every call after Close.
var ErrClosed = errors.New("ponder: game closed")

// ErrBusy is returned when a call needs the engine while Think runs.
var ErrBusy = errors.New("ponder: a search is running")

// prediction is what we expected the opponent to play at ply.
type prediction struct {
	ply  int
	move board.Move
	top3 []board.Move
}

// Game owns one engine (search.Engine with its TT) and one tree for one
// game. Its methods are safe for concurrent use (a UCI front end calls
// PonderHit and Stop while Think runs).
type Game struct {
	opts Options
	log  zerolog.Logger
	eng  *search.Engine
	rng  *rand.Rand

	mu       sync.Mutex
	closed   bool
	tree     *tree
	startFEN string
	chess960 bool
	moves    []board.Move
	uciMoves []string
	irrev    []bool // irrev[i]: moves[i] was irreversible
	rootPly  int    // the tree root is the position after moves[:rootPly]
	agedPly  int    // irreversible moves up to here were aged out of the TT
	// the predicted reply aged out when pondering on it started
	agedPredPly  int
	agedPredMove board.Move
	cur          int32 // node of the current position (descendant of the root)
	pos          *board.Position
	run          *run
	pred         *prediction
	depths       depthClock
	pending      MoveStats // stats gathered for the move being decided
	rootTB       TBResult  // the tables' result for the position of the Think in progress (finish hands it on)
	stats        GameStats
	searches     int                 // engine searches started
	searching    atomic.Pointer[run] // the run whose search holds its threads (SearchThreads)
	tbMoves      []syzygy.RootMove   // buffer of tablebaseMoves
	// Viewers (see Snapshot, Watch, Expand).
	live    live          // latest iteration
	version uint64        // snapshot version
	changed chan struct{} // closed at the next publication (nil: nobody watches)
	gen     uint32        // tree generation: node references of others are stale
	// The learning memory (see memory.go).
	seeded     map[uint64]seedMemo // positions whose memory entries were seeded into the TT: the root's learnt depth
	seedKeys   []uint64            // buffer of seed
	learntNet  *nnue.Net           // the net of the last search learn saw
	learntSeen bool                // learntNet is set
	learning   sync.WaitGroup      // gatherings of learn under way
}

// NewGame returns a Game at the standard start position.
func NewGame(opts Options) *Game {
	if opts.TreeMB < 1 {
		opts.TreeMB = 4
	}
	if opts.VarietyLines < 2 {
		opts.VarietyLines = 3
	}
	if opts.IrreversibleAge == 0 {
		opts.IrreversibleAge = 3
	}
	capNodes := opts.TreeNodes
	if capNodes <= 0 {
		capNodes = opts.TreeMB * 1024 * 1024 / NodeBytes
	}
	g := &Game{
		opts: opts,
		log:  opts.Logger,
		eng:  search.New(search.Options{Threads: opts.Threads, HashMB: opts.HashMB, Net: opts.Net}),
		rng:  rand.New(rand.NewSource(opts.Seed)),
		tree: newTree(capNodes),
	}
	g.tree.protect = g.protected
	g.stats.NodeBytes = NodeBytes
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.setPosition(board.StartFEN, false, nil); err != nil {
		panic(err) // the start position always parses
	}
	return g
}

// Engine exposes the game's engine (TT probes, options).
func (g *Game) Engine() *search.Engine { return g.eng }

// Searches is the number of engine searches this Game started.
func (g *Game) Searches() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.searches
}
