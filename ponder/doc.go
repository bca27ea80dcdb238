// Package ponder keeps one persistent search tree per game: it thinks on the
// opponent's time, re-roots the tree when a move is played, frees branches
// that can no longer happen, and decides the time budget of each move.
//
// A Game owns its own engine (search.Engine, with a transposition table
// that lives across the moves of the game) and a tree of the positions
// searched near the root. Each tree node holds the move that leads to it,
// the position's key, its score (for the side to move there, TT
// convention) and bound, the depth it was searched to, the nodes spent on
// it (root moves), its best reply and a visit count (how well-searched it
// is). The tree is filled from the search: every finished iteration writes
// its PV as a path of nodes, every finished search writes its root-move
// statistics as children with their PVs below. Nodes live in one slice and
// are linked by index; released nodes go to a free list and are reused.
//
// Front ends (the Lichess game worker, the UCI front end) drive a Game:
//
//	g := ponder.NewGame(ponder.Options{HashMB: 64, Ponder: true, Logger: log})
//	defer g.Close()
//	g.SetPosition(startFEN, chess960, moves) // or g.Play(move)
//	d, err := g.Think(ctx, ponder.ThinkLimits{WTime: …, BTime: …}, info)
//	// play d.UCI, then g.Play(d.UCI)
//	g.StartPonder(ctx) // returns at once; thinks until the next Think
//
// SetPosition walks the tree down when the new position extends the game;
// the re-rooting (which frees everything but the played subtree) happens at
// the next Think or PonderHit, so a speculative "position … moves <pred>"
// for UCI "go ponder" keeps the pondered subtree if the move is played and
// loses nothing if it is not. Positions made unreachable by an irreversible
// move are aged out of the TT (search.TT.AgeOut) before the next search.
// The tree is capped (Options.TreeMB); when full, the least promising
// branches (large score gap to their best sibling, few nodes and visits,
// far from the root) are freed first; the root, the current position, the
// running search's node and the chain of best replies are never freed.
//
// Opening books: with Options.Books (engine/book Polyglot books, asked in
// order; Options.BookOptions chooses the move), Think first asks the books
// and plays a book move at once, without a search (Source FromBook, logged
// as source=book): a running ponder search is stopped first, then the move
// is chosen, and the tree is re-rooted as for any move, so it goes on
// following the game. A book move comes with no ponder move (a GUI would
// otherwise ponder on a reply from the tree and, on ponderhit, play a
// searched move in a position the book may know). Not for "go
// ponder" nor an analysis (MultiPV, search moves, mate), and not past
// BookOptions.MaxDepth plies from the game's start position. SetBooks
// changes the books between moves.
//
// Endgame tablebases: with Options.Tablebase (engine/syzygy), Think then
// probes the tables' root moves. In a win known by DTZ it plays the
// shortest win at once (Source FromTablebase, source=tablebase;
// Decision.Tablebase, WDL and DTZ say why), so a won game is mated within
// the fifty-move rule; likewise when a single move keeps the result. In a
// draw or a loss (where a fallible opponent may still go wrong), and in a
// win known only by the WDL tables (no .rtbz: syzygy.ProbeRootWDL), it runs
// a short search (half the budget) among the moves that keep the result
// (Source FromSearch with Decision.Tablebase set). Same exclusions as the
// books; an unreadable table is logged and the search decides.
// Decision.TB is the position's result whenever the tables hold it (with
// the tables' move, the restricted search, and also an analysis, which the
// search decides among all moves): the Lichess bot's draw and resign rules
// use it. The searches (also
// ponder searches) probe the WDL tables after captures and pawn moves
// (search.Limits.Tablebase; Options.TablebaseProbeDepth and
// TablebaseProbeLimit). A positive TablebaseProbeLimit bounds the root
// too: a position of more pieces is searched and its result is not known.
//
// Learning memory: with Options.Memory (package store keeps one in SQLite),
// a search starts from what earlier games found: before it starts, the
// memory's entries of its position and, breadth-first, of the known
// positions below it (one Memory.Lookup per ply, never per node) are
// stored into the TT, never over a deeper entry; the TT's move is then
// searched first at the root and is the predicted reply for pondering.
// When the memory knows the root exactly (an exact score and a legal best
// move) at depth d, the search (not a ponder search, nor one restricted to
// some moves, nor where the game's history may change the result: a root
// with a repetition behind it or a long fifty-move count, or a known move
// back into a position of the game, nor when the TT or the tree already
// holds a deeper root result, or one as deep with another move) takes that result as its iteration of depth d right after
// depth 1 and goes on at d+1 with the aspiration window round the known
// score (search.Limits.Known; a timed one at most at the depth its budget
// is expected to reach, and never without a history of depths; a depth
// limit's own depth is always searched); stopped
// before d+1 completes, it plays the known move. The known iteration is
// reported and recorded in the tree like a searched one. A root known only
// by a bound is searched from depth 1 up. The iteration times of a search
// that took the known result (search.Info.KnownDepth: not with MultiPV, a
// mate search, a depth limit of 2) are not counted in that history. Only the TT is seeded, not the tree (the
// known iteration a search reports is recorded like its others): the
// tree holds what this game's searches found (root moves, bounds, visits),
// and a tree node as deep as the budget reaches is played without a search
// (Think's shortcut), so a learnt entry put there would be played
// unchecked; through the TT it orders the root (its move first) and lets
// the search start deep, and the search's own results then fill the tree.
// Each search of Options.LearnMinDepth or more is recorded as it ends:
// the TT's entries of its root and of the positions below it searched to
// LearnMinDepth (3 at least) or more, breadth-first up to 256 and without
// those the memory holds as deeply already (HeldDepther), gathered on a
// goroutine of their own (whatever clears or resizes the TT waits for it) and handed to Memory.Record, which only
// queues them (not for the first search after the network changed: its
// table still holds the other evaluation's scores). Nothing is recorded for a root whose fifty-move counter is
// above 40 or whose reversible history holds a repetition, and no draw
// score of exactly 0 nor tablebase score is kept: those depend on the
// history or the tables, not the evaluation. Entries carry the evaluation's identity (search.EvalID);
// GameOver tells the memory a game's result (a loss makes its entries,
// and those of the roots its searches were seeded from, told by
// Memory.Used, trusted less).
//
// Pondering: with Strategy PonderPredicted the expected reply (the second
// move of our PV, else the TT move) is played on a copy and that position
// is searched in ponder mode. When the opponent's move arrives: on a hit
// the running search is converted (never restarted) — or stopped at once
// when it is already as deep as this move's budget would reach (estimated
// from the recent depth/time history); on a miss it is stopped and a new
// search starts, helped by the TT. PonderOpponent searches the position
// with the opponent to move instead, which fills the tree and TT for every
// reply; the new search (or the tree, when deep enough) answers.
//
// Locking: one mutex (Game.mu) guards the Game and its runs. It is taken
// only where a call enters the package (the exported methods) or a
// goroutine of the package starts work (the search goroutine's onInfo and
// its end, the hard-limit timer, the watch on the caller's context); every
// unexported method of Game is called with it held and returns with it
// held. The one place it is let go in between is wait, while a search
// ends (the search goroutine needs the mutex to record its lines), so the
// state can change across a wait. The engine (search.Engine) is safe for
// concurrent use and searches without the mutex.
//
// Viewers (the web view) never touch the tree: Snapshot copies the game's
// state under the mutex (position, moves, the latest iteration's PV and
// figures, the current position's children with score, bound, depth,
// nodes and visits, our last move's re-rooting and ponder figures, and the
// scores of our moves); it is published after each iteration (first
// MultiPV line), when a search ends, after each of our moves and when the
// position changes. Watch returns a channel that is closed at the next
// publication (the search never blocks on a viewer). Expand lists the
// children of a node named by a NodeView.Ref, holding the mutex for at
// most the position's legal moves; refs are valid for one tree generation
// (a re-rooting or a new tree starts another), and older ones give
// ErrStaleRef.
//
// Each run's search is stopped and hit only through the run's own
// search.Signals (run.stop, convert), so a stop or ponder-hit given before
// the search goroutine enters Engine.Search is kept, and none reaches the
// search of another run.
//
// Sharing the CPU: Games given the same CPUShare (Options.CPU) never
// search, thinking and pondering together, on more threads than its total.
// Each run holds a lease on it from the start of its search to its end
// (released before the run is seen to end); a run for our move is served
// first, a ponder search gets what is left, and a ponder hit (convert)
// turns the run's lease into one for a move (not a hit answered at once,
// which stops its search). Threads go from one search to another through
// the runs' search.Signals (SetThreads): a ponder search pauses the
// threads it lost and is never restarted for it. Runs for a move get their
// first thread first come first served and the others round by round, so
// a new one takes a thread from one that holds several (Options.Threads
// above 1); only when as many earlier runs for a move as the total hold
// one thread each does a later one wait with none (after depth 1), for at
// most a quarter of its soft time; then it gets one thread over the total.
// Its hard limit stops it waiting or not. The run that searches on after a
// converted run stopped at its cap keeps that run's place and never waits
// (run.goesOn). Game.SearchThreads tells what the running search holds.
// See CPUShare.
//
// Panics: a panic on a run's search goroutine (in the engine or one of its
// helper threads, in recording the search into the tree, in the info
// callback) is recovered there. It is logged with its stack on the game's
// logger, the engine's table and thread state are made anew
// (search.Engine.Reset) and so is the tree, at the current position; the
// Think waiting on the run returns a *SearchPanic, for which the front end
// plays a fallback move, and a background ponder search simply ends. The
// Game is used on as before.
//
// The time budget of a move (PlanMove) starts from engine/search's clock
// allocation and counts the time already pondered on the position p:
// Target = Base + p/2, time left on our clock = max(Target − p, MinThink),
// hard limit never above the clock's. A fixed move time (UCI "go
// movetime") is used whole: no overhead off, no pondering rule, no early
// stop (neither the stability rule nor a deep enough ponder hit).
package ponder
