package ponder

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/search"
)

// CPUShare is the search threads that several Games share: their searches,
// thinking and pondering together, run on no more than Total threads, save
// for the safety valve of a search for a move that waited too long (below).
// One CPUShare serves all the games of a process (Options.CPU); each Game's
// Options.Threads stays the most one of its searches may use.
//
// Every search of a Game holds a lease on the share from its start to its
// end, wanting Options.Threads threads. The share hands them out in two
// rounds, one thread per lease at a time (so that leases of a round get
// equal shares, the earlier ones the odd thread): first to the searches
// for a move (Think, a converted ponder search), in the order they became
// ones, then what is left to the ponder searches, in the order they
// started. So among the searches for a move it is first come, first
// served for the first thread of each; the threads beyond one go round by
// round in that order, and a new search for a move takes a thread from an
// earlier one that holds several (Options.Threads above 1) rather than
// wait. Each change (a search starts, ends, a ponder hit turns a ponder
// search into a search for a move, a waiting search reaches its bound)
// shares them out again, and each search learns its new count through its
// search.Signals (SetThreads): a search that has to move takes threads
// from searches that only ponder, which pause the threads they lost (at
// their next check, within 1024 nodes) and get them back when the threads
// are free again; a ponder search is never restarted for it.
//
// A search for a move waits with no thread only when Total earlier
// searches for a move run, holding one thread each (more games must move
// at once than Total: those beyond the first Total wait): its search pauses as a ponder
// search does, save that its main thread first completes depth 1
// (search.Signals.SetThreads), so that it always has a searched move. It
// gets a thread as soon as one frees, before any search that became one
// for a move after it. Its wait is bounded: once it has been a search for
// a move for thinkWait of its budget (a quarter of its soft time, a second
// without one; see there) it is overdue, and an overdue search for a move
// that has no thread is given one over Total (the safety valve: what every
// such search got at once before). A waiting search cannot lose on time
// either way: its hard limit stops it whether it runs or waits, and a
// stopped search returns at once with its best move so far. A converted
// ponder search that stopped at its cap with budget left searches on in a
// new search for the same move, which takes its place and never waits
// (acquireAfter: with no thread within Total it gets one over it at once):
// a move waits once. So the threads handed out add up to more than Total
// only by one thread for each overdue search that got none of them (InUse,
// Waits).
//
// A CPUShare is safe for concurrent use. A nil *CPUShare shares nothing:
// each search runs on all its Game's threads.
type CPUShare struct {
	mu     sync.Mutex
	total  int
	leases []*lease // ponder leases in the order taken, leases for a move in the order they became ones (turn)
	turns  uint64   // how many leases became ones for a move (lease.turn)
	clock  shareClock
	waits  ShareWaits
}

// ShareWaits counts the waits for a thread of the searches for a move on a
// CPUShare that have ended (see CPUShare). It counts searches, not moves:
// a search on after a converted ponder search stopped at its cap is a
// second search for the same move (one that never waits, see
// acquireAfter); a ponder hit answered at once from the ponder search is
// none (it does not search for the move).
type ShareWaits struct {
	// Searches is how many searches for a move ended, Waited how many of
	// them waited with no thread at some time.
	Searches, Waited int
	// Total and Max are the time they waited, all together and the
	// longest one.
	Total, Max time.Duration
	// Overdue is how many searches for a move were given a thread over the
	// total at some time: those that reached their bound while waiting,
	// and those that never wait (bound 0: a search on) when they found no
	// thread within the total, or whose bound had passed while they ran
	// when a smaller total (SetTotal) left them none.
	Overdue int
}

// Bounds of a search for a move's wait for a thread (see thinkWait).
const (
	thinkWaitShare   = 0.25        // of the move's soft time
	untimedThinkWait = time.Second // a search without a time budget
)

// thinkWait is the longest that a search for a move under budget b waits
// with no thread of a CPUShare before it is given one over the total.
//
// A timed move waits at most a quarter of its Soft time (the time the move
// is to spend on our clock; a ponder hit's Soft is what is left after the
// pondering). The wait costs the move no clock time beyond its budget (its
// soft and hard limits count from the move's start whether it runs or
// waits) and never its move: its main thread completes depth 1 before it
// pauses, and the hard limit stops it, waiting or not. What the wait may
// cost is depth: after a quarter, at least three quarters of Soft are left
// to search (half of it when the soft stop ends a stable search at 0.75 of
// Soft), which at the usual doubling of time per depth is about one depth
// less than the move would reach alone on one thread; longer waits would
// leave moves of depth 1 or 2, shorter ones would put most of the waiting
// searches over the total, as before. A search with no time budget (a
// depth, a node count, an analysis) waits at most a second.
//
// Invariant: a timed bound falls before Soft (or is 0: no wait). A waiting
// search reports no iteration, so the soft stop (checkSoft, run at each
// iteration) never sees it: only the bound lifts it in time, and a bound
// at or past Soft would leave it waiting to its hard limit.
// TestThinkWaitBelowSoft pins it for every budget.
func thinkWait(b Budget) time.Duration {
	if !b.Timed {
		return untimedThinkWait
	}
	return time.Duration(thinkWaitShare * float64(b.Soft))
}

// shareClock is the time a CPUShare reads and its timers: the real one, or
// a test's.
type shareClock interface {
	Now() time.Time
	// AfterFunc calls f on its own goroutine after d; the function it
	// returns cancels that (false once f was called).
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// realClock is the time of the machine.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// lease is one search's hold on a CPUShare. Its fields are the share's
// (under its lock), save held.
type lease struct {
	want     int    // threads the search may use at most
	thinking bool   // a search for a move (served first), not a ponder search
	turn     uint64 // its place among the searches for a move (see acquireAfter)
	granted  int    // threads handed out now
	sig      *search.Signals
	released bool

	// granted as the search last heard it (SetThreads), for readers that
	// do not take the share's lock (Game.SearchThreads).
	held atomic.Int32

	// A search for a move's wait (see CPUShare).
	overdue   bool        // its bound has passed: it never waits any more
	over      bool        // its one thread now is over the total
	stopBound func() bool // the bound's timer, while it runs
	waitFrom  time.Time   // since when it waits with no thread (zero: it does not)
	waited    time.Duration
	didWait   bool // it waited at some time
	wentOver  bool // it was given a thread over the total at some time
}

// NewCPUShare returns a share of total threads (<1: 1).
func NewCPUShare(total int) *CPUShare {
	return &CPUShare{total: max(total, 1), clock: realClock{}}
}

// Total is the number of threads shared.
func (s *CPUShare) Total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// SetTotal changes the number of threads shared (<1: 1); the running
// searches are given their new counts at once.
func (s *CPUShare) SetTotal(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total = max(n, 1)
	s.shareLocked()
}

// InUse is the number of threads handed out now: never above Total, save
// one for each overdue search for a move that got none of Total's (see
// CPUShare).
func (s *CPUShare) InUse() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, l := range s.leases {
		n += l.granted
	}
	return n
}

// Waits counts the waits for a thread of the searches for a move that have
// ended so far.
func (s *CPUShare) Waits() ShareWaits {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waits
}

// acquire gives sig's search a lease wanting want threads (<1: 1) and sets
// its thread count; a search for a move (thinking) waits at most bound
// when it finds no thread (thinkWait; <= 0: it never waits). nil on a nil
// share.
func (s *CPUShare) acquire(sig *search.Signals, want int, thinking bool, bound time.Duration) *lease {
	return s.acquireAfter(sig, want, thinking, bound, nil)
}

// acquireAfter is acquire, save for a search for a move that goes on from
// prev, the released lease of the search for the same move before it (a
// converted ponder search that stopped at its cap with budget left): the
// new lease takes prev's place among the searches for a move, so that it
// gets the thread prev held back from searches that became ones after it,
// and it never waits (bound 0: with no thread within the total it is
// given one over it at once), since its move has had its wait with prev.
// Without prev, or when prev was no search for a move, it is acquire.
func (s *CPUShare) acquireAfter(sig *search.Signals, want int, thinking bool, bound time.Duration, prev *lease) *lease {
	if s == nil {
		return nil
	}
	l := &lease{want: max(want, 1), sig: sig}
	s.mu.Lock()
	defer s.mu.Unlock()
	sig.SetThreads(0)
	if thinking && prev != nil && prev.thinking {
		l.thinking, l.turn, l.overdue = true, prev.turn, true
		at := len(s.leases)
		for i, x := range s.leases {
			if x.thinking && x.turn > l.turn {
				at = i
				break
			}
		}
		s.leases = slices.Insert(s.leases, at, l)
	} else {
		s.leases = append(s.leases, l)
		if thinking {
			s.thinkLocked(l, bound)
		}
	}
	s.shareLocked()
	return l
}

// think turns l into the lease of a search for a move (a ponder hit), which
// waits at most bound for a thread (see acquire); it comes after the
// searches for a move that were ones before it.
func (s *CPUShare) think(l *lease, bound time.Duration) {
	if s == nil || l == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.thinking || l.released {
		return
	}
	for i, x := range s.leases {
		if x == l {
			s.leases = append(append(s.leases[:i:i], s.leases[i+1:]...), l)
			break
		}
	}
	s.thinkLocked(l, bound)
	s.shareLocked()
}

// thinkLocked makes l a lease for a move and starts the timer of its bound.
func (s *CPUShare) thinkLocked(l *lease, bound time.Duration) {
	s.turns++
	l.thinking, l.turn = true, s.turns
	if bound <= 0 {
		l.overdue = true
		return
	}
	l.stopBound = s.clock.AfterFunc(bound, func() { s.expire(l) })
}

// expire marks l overdue (its bound has passed) and, when it waits, gives
// it a thread.
func (s *CPUShare) expire(l *lease) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.released || l.overdue {
		return
	}
	l.overdue, l.stopBound = true, nil
	if l.granted == 0 {
		s.shareLocked()
	}
}

// release ends l (its search has returned) and shares its threads out;
// releasing it again does nothing.
func (s *CPUShare) release(l *lease) {
	if s == nil || l == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.leases {
		if x == l {
			s.leases = append(s.leases[:i], s.leases[i+1:]...)
			l.released, l.granted, l.over = true, 0, false
			l.held.Store(0)
			if l.stopBound != nil {
				l.stopBound()
				l.stopBound = nil
			}
			s.endWaitLocked(l)
			s.shareLocked()
			return
		}
	}
}

// endWaitLocked counts l's waits into the share's (its search has ended).
func (s *CPUShare) endWaitLocked(l *lease) {
	if !l.thinking {
		return
	}
	if !l.waitFrom.IsZero() {
		l.waited += s.clock.Now().Sub(l.waitFrom)
		l.waitFrom = time.Time{}
	}
	s.waits.Searches++
	if l.wentOver {
		s.waits.Overdue++
	}
	if !l.didWait {
		return
	}
	s.waits.Waited++
	s.waits.Total += l.waited
	s.waits.Max = max(s.waits.Max, l.waited)
}

// shareLocked hands the threads out again (see CPUShare) and tells each
// search its count: those that lose threads first, so that the counts the
// searches see never add up to more than the share hands out either.
func (s *CPUShare) shareLocked() {
	old := make([]int, len(s.leases))
	for i, l := range s.leases {
		old[i], l.granted = l.granted, 0
	}
	free := s.total
	for _, thinking := range []bool{true, false} {
		for more := true; more && free > 0; {
			more = false
			for _, l := range s.leases {
				if l.thinking == thinking && l.granted < l.want && free > 0 {
					l.granted++
					free--
					more = true
				}
			}
		}
	}
	var now time.Time
	for _, l := range s.leases {
		if !l.thinking {
			continue
		}
		// The safety valve: an overdue search for a move never waits.
		l.over = l.granted == 0 && l.overdue
		if l.over {
			l.granted, l.wentOver = 1, true
		}
		switch waiting := l.granted == 0; {
		case waiting && l.waitFrom.IsZero():
			if now.IsZero() {
				now = s.clock.Now()
			}
			l.waitFrom, l.didWait = now, true
		case !waiting && !l.waitFrom.IsZero():
			if now.IsZero() {
				now = s.clock.Now()
			}
			l.waited += now.Sub(l.waitFrom)
			l.waitFrom = time.Time{}
		}
	}
	for i, l := range s.leases {
		if l.granted < old[i] {
			l.held.Store(int32(l.granted))
			l.sig.SetThreads(l.granted)
		}
	}
	for i, l := range s.leases {
		if l.granted > old[i] {
			l.held.Store(int32(l.granted))
			l.sig.SetThreads(l.granted)
		}
	}
}
