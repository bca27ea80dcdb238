package ponder

import (
	"sync"

	"github.com/ponderosa-chess/ponderosa/engine/search"
)

// CPUShare is the search threads that several Games share: their searches,
// thinking and pondering together, run on no more than Total threads, save
// when more searches must move at once than there are threads (below).
// One CPUShare serves all the games of a process (Options.CPU); each Game's
// Options.Threads stays the most one of its searches may use.
//
// Every search of a Game holds a lease on the share from its start to its
// end, wanting Options.Threads threads. The share hands them out in two
// rounds, one thread per lease at a time (so that leases of a round get
// equal shares, the earlier ones the odd thread): first to the searches
// for a move (Think, a converted ponder search), then what is left to the
// ponder searches. Each change (a search starts, ends, or a ponder hit
// turns a ponder search into a search for a move) shares them out again,
// and each search learns its new count through its search.Signals
// (SetThreads): a search that has to move takes threads from searches that
// only ponder, which pause the threads they lost (at their next check,
// within 1024 nodes) and get them back when the threads are free again; a
// ponder search is never restarted for it. Searches for a move share the
// total among themselves likewise, except that each of them gets one
// thread at least: when more games must move at once than there are
// threads, they run on one thread each, over Total, rather than one of
// them waiting (a game that must move never waits for a thread: it could
// lose on time, or play its depth-1 move). Otherwise the threads handed
// out never add up to more than Total.
//
// A CPUShare is safe for concurrent use. A nil *CPUShare shares nothing:
// each search runs on all its Game's threads.
type CPUShare struct {
	mu     sync.Mutex
	total  int
	leases []*lease // in the order they were taken
}

// lease is one search's hold on a CPUShare.
type lease struct {
	want     int  // threads the search may use at most
	thinking bool // a search for a move (served first), not a ponder search
	granted  int  // threads handed out now
	sig      *search.Signals
}

// NewCPUShare returns a share of total threads (<1: 1).
func NewCPUShare(total int) *CPUShare {
	return &CPUShare{total: max(total, 1)}
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

// InUse is the number of threads handed out now (never above Total).
func (s *CPUShare) InUse() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, l := range s.leases {
		n += l.granted
	}
	return n
}

// acquire gives sig's search a lease wanting want threads (<1: 1) and sets
// its thread count. nil on a nil share.
func (s *CPUShare) acquire(sig *search.Signals, want int, thinking bool) *lease {
	if s == nil {
		return nil
	}
	l := &lease{want: max(want, 1), thinking: thinking, sig: sig}
	s.mu.Lock()
	defer s.mu.Unlock()
	sig.SetThreads(0)
	s.leases = append(s.leases, l)
	s.shareLocked()
	return l
}

// think turns l into the lease of a search for a move (a ponder hit).
func (s *CPUShare) think(l *lease) {
	if s == nil || l == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !l.thinking {
		l.thinking = true
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
			l.granted = 0
			s.shareLocked()
			return
		}
	}
}

// shareLocked hands the threads out again (see CPUShare) and tells each
// search its count: those that lose threads first, so that the counts the
// searches see never add up to more than the total either.
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
	for _, l := range s.leases {
		if l.thinking && l.granted == 0 {
			l.granted = 1 // over the total: a search for a move never waits
		}
	}
	for i, l := range s.leases {
		if l.granted < old[i] {
			l.sig.SetThreads(l.granted)
		}
	}
	for i, l := range s.leases {
		if l.granted > old[i] {
			l.sig.SetThreads(l.granted)
		}
	}
}
