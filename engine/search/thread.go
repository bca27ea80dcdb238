// Search threads: the per-thread state of lazy SMP (stack frames, history
// tables, eval cache), node counting and the periodic stop/time check.

package search

import (
	"sync/atomic"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/eval"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
)

const (
	histMax    = 16384
	checkEvery = 1024 // nodes between stop/time checks
	stackOff   = 2    // frames before ply 0, so ply-2 is always addressable
)

// contEntry is the continuation history of one (piece, to-square): how good
// each following quiet (piece, to) has been.
type contEntry [16][64]int16

// frame is the per-ply search state.
type frame struct {
	pk         picker
	pv         [MaxPly + 1]board.Move
	pvLen      int
	killers    [2]board.Move
	staticEval int
	move       board.Move // move made at this ply (NullMove for a null move)
	piece      board.Piece
	cont       *contEntry // continuation history of move at this ply
	excluded   board.Move
	quiets     [64]board.Move
	nQuiets    int
	caps       [32]board.Move
	nCaps      int
}

// thread is one lazy-SMP search thread. All its state is private except
// the published node count.
type thread struct {
	e   *Engine
	id  int
	pos *board.Position
	ev  *eval.Evaluator
	nn  *nnue.Stack // the network's accumulators when it evaluates; nil: ev does
	ctl *control

	stack    *[MaxPly + stackOff + 2]frame
	history  *[2][64][64]int32
	contHist *[16][64]contEntry
	sentinel contEntry
	counter  [16][64]board.Move
	evalTab  *[evalCacheSize]evalCacheEntry
	capHist  *[16][64][8]int16 // moved piece, to, captured type

	nodes    uint64
	pubNodes atomic.Uint64
	// paused and looks exist only for the tests (threads_test.go), which
	// watch a paused thread sleep; the search never reads them.
	paused    atomic.Bool   // asleep in pause (or about to be), its look done
	looks     atomic.Uint64 // times pause looked whether it may go on: once per wake, not per tick
	tbHits    uint64        // tablebase probes that answered
	pubTBHits atomic.Uint64
	seldepth  int
	stopped   bool
	rootMoves []rootMove
	rootDepth int
	pvIdx     int

	completedDepth int
	knownDepth     int // the iteration Limits.Known stands for (0: none; see prepare)
	bestChanges    float64
	report         func(Info)

	netChecks, netMismatches int // features.checkNet
}

func newThread(e *Engine, id int) *thread {
	t := &thread{
		e:        e,
		id:       id,
		pos:      board.NewPosition(),
		ev:       eval.NewEvaluator(),
		stack:    new([MaxPly + stackOff + 2]frame),
		history:  new([2][64][64]int32),
		contHist: new([16][64]contEntry),
		evalTab:  new([evalCacheSize]evalCacheEntry),
		capHist:  new([16][64][8]int16),
	}
	t.setNet(e.opts.Net)
	return t
}

// setNet makes n the thread's evaluation (nil: the hand-crafted one) and
// forgets the cached evaluations of the other.
func (t *thread) setNet(n *nnue.Net) {
	switch {
	case n == nil:
		t.nn = nil
	case t.nn == nil || t.nn.Net() != n:
		t.nn = nnue.NewStack(n, MaxPly+stackOff+2)
	}
	*t.evalTab = [evalCacheSize]evalCacheEntry{}
}

// makeMove plays m on the thread's position and keeps the network's
// accumulators in step; unmakeMove, makeNullMove and unmakeNullMove
// likewise.
func (t *thread) makeMove(m board.Move) {
	t.pos.MakeMove(m)
	if t.nn != nil {
		t.nn.Push(t.pos)
	}
}

func (t *thread) unmakeMove() {
	t.pos.UnmakeMove()
	if t.nn != nil {
		t.nn.Pop()
	}
}

func (t *thread) makeNullMove() {
	t.pos.MakeNullMove()
	if t.nn != nil {
		t.nn.Push(t.pos)
	}
}

func (t *thread) unmakeNullMove() {
	t.pos.UnmakeNullMove()
	if t.nn != nil {
		t.nn.Pop()
	}
}

func (t *thread) clearHistory() {
	*t.history = [2][64][64]int32{}
	*t.contHist = [16][64]contEntry{}
	t.sentinel = contEntry{}
	t.counter = [16][64]board.Move{}
	*t.evalTab = [evalCacheSize]evalCacheEntry{}
	*t.capHist = [16][64][8]int16{}
}

func (t *thread) frame(ply int) *frame { return &t.stack[ply+stackOff] }

// checkup runs every checkEvery nodes: it notices a stop, and the main
// thread enforces the node and hard time limits.
func (t *thread) checkup() {
	t.pubNodes.Store(t.nodes)
	t.pubTBHits.Store(t.tbHits)
	if t.ctl.stopped() {
		t.stopped = true
		return
	}
	if !t.ctl.sig.mayRun(t.id) {
		t.pause(0)
		if t.stopped {
			return
		}
	}
	if t.id != 0 {
		return
	}
	t.checkLimits()
}

// checkLimits is the main thread's check of the node and hard time limits.
func (t *thread) checkLimits() {
	total := t.e.totalNodes()
	t.e.nodesPub.Store(total)
	if t.completedDepth < 1 {
		return // always finish depth 1 so there is a move to play
	}
	if (t.ctl.lim.Nodes > 0 && total >= t.ctl.lim.Nodes) || t.ctl.timeUp() {
		t.ctl.halt()
		t.stopped = true
	}
}

// pause waits while the search's Signals do not let t run (SetThreads),
// until they do or the search is stopped (then t.stopped is set). The main
// thread does not pause before it has completed depth 1, and while paused
// it still enforces the limits.
//
// A paused thread sleeps: it wakes when the Signals change (SetThreads,
// Stop, PonderHit), when the search is stopped (control.halt), and the
// main thread also at its hard time limit and when a helper pauses (whose
// nodes may reach the node limit). Nothing polls.
//
// soft is the main thread's soft time limit scale (softScale) when it
// pauses at an iteration boundary after an iteration that checked the soft
// limit, else 0. With it the main thread also wakes at that soft deadline
// and returns (t.stopped not set) once it has passed: iterate re-checks
// softUp and starts no new iteration.
func (t *thread) pause(soft float64) {
	if t.id == 0 && t.completedDepth < 1 {
		return
	}
	ctl := t.ctl
	t.pubNodes.Store(t.nodes)
	t.pubTBHits.Store(t.tbHits)
	if t.id != 0 && ctl.lim.Nodes > 0 {
		ctl.sig.wake() // a paused main thread counts the nodes just published
	}
	for {
		changed := ctl.sig.changes() // before the look: see Signals.changes
		t.looks.Add(1)
		if ctl.sig.mayRun(t.id) {
			return
		}
		if ctl.stopped() {
			t.stopped = true
			return
		}
		var deadline *time.Timer
		var expired <-chan time.Time
		if t.id == 0 {
			if t.checkLimits(); t.stopped {
				return
			}
			now := time.Now()
			left, ok := ctl.hardLeft(now)
			if softLeft, softOK := ctl.softLeft(now, soft); softOK {
				if softLeft <= 0 {
					return // past the soft deadline: iterate ends the search
				}
				if !ok || softLeft < left {
					left, ok = softLeft, true
				}
			}
			if ok {
				deadline = time.NewTimer(left)
				expired = deadline.C
			}
		}
		var slept time.Time
		if t.id == 0 {
			slept = time.Now()
		}
		t.paused.Store(true)
		select {
		case <-changed:
		case <-ctl.done:
		case <-expired:
		}
		t.paused.Store(false)
		if deadline != nil {
			deadline.Stop()
		}
		if t.id == 0 {
			ctl.paused += time.Since(slept) // Info.Paused
		}
	}
}

// totalTBHits is the sum of the threads' published tablebase hits.
func (e *Engine) totalTBHits() uint64 {
	var n uint64
	for _, t := range e.threads {
		n += t.pubTBHits.Load()
	}
	return n
}

func (e *Engine) totalNodes() uint64 {
	var n uint64
	for _, t := range e.threads {
		n += t.pubNodes.Load()
	}
	return n
}

const evalCacheSize = 1 << 16

// evalCacheEntry caches one static evaluation by position key (per thread,
// so no synchronisation; the key is stored in full).
type evalCacheEntry struct {
	key  uint64
	eval int32
}

// evaluate returns the static evaluation, clamped away from mate scores.
func (t *thread) evaluate() int {
	key := t.pos.Key()
	ce := &t.evalTab[key&(evalCacheSize-1)]
	if ce.key == key && key != 0 && !t.e.feat.checkNet {
		return int(ce.eval)
	}
	var v int
	if t.nn != nil {
		v = t.nn.Evaluate(t.pos)
		if t.e.feat.checkNet {
			t.checkNet(v)
		}
	} else {
		v = t.ev.Evaluate(t.pos)
	}
	v = max(min(v, TBWinInMaxPly-1), -TBWinInMaxPly+1) // below every tablebase win and mate
	ce.key, ce.eval = key, int32(v)
	return v
}

// checkNet compares the incremental evaluation v with the reference.
func (t *thread) checkNet(v int) {
	t.netChecks++
	if v != t.nn.Net().Evaluate(t.pos) {
		t.netMismatches++
	}
}

func (t *thread) isDraw(ply int) bool {
	p := t.pos
	if p.IsRepetition(ply) || p.IsInsufficientMaterial() {
		return true
	}
	// Fifty-move rule: a checkmate on the 100th half-move still counts.
	return p.HalfmoveClock() >= 100 && (!p.InCheck() || p.HasLegalMoves())
}
