package search

import (
	"math/bits"
	"sync/atomic"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// Bound tells how a stored score relates to the true score of a position.
type Bound uint8

// Bound values. BoundExact = BoundLower|BoundUpper.
const (
	BoundNone  Bound = 0
	BoundUpper Bound = 1 // fail-low: true score <= stored score
	BoundLower Bound = 2 // fail-high: true score >= stored score
	BoundExact Bound = 3
)

// Score constants shared by the search and the table.
const (
	MaxPly       = 128
	Infinity     = 32001
	MateScore    = 32000
	MateInMaxPly = MateScore - MaxPly // scores >= this are "we mate"
	NoScore      = -32768             // never a real score
)

const (
	entriesPerBucket = 4
	bucketWords      = entriesPerBucket * 2 // each entry: key^data, data
	bucketBytes      = bucketWords * 8      // 64 bytes: one cache line
	depthOffset      = 16                   // stored depth = depth + offset (qsearch depths are <= 0)
	genBits          = 6
	genMask          = 1<<genBits - 1
)

// TTEntry is one unpacked transposition-table entry.
type TTEntry struct {
	Move  board.Move
	Score int // score as stored; use ScoreFromTT to adjust mate scores by ply
	Eval  int // static evaluation of the position (NoScore if unknown)
	Depth int
	Bound Bound
	Gen   uint8
}

// TT is a lock-free transposition table shared by all search threads.
//
// Each entry is two 64-bit words written and read with atomic operations:
// the first holds key XOR data, the second data. A reader accepts an entry
// only when word0 ^ word1 == key, so a torn write (two threads storing at the
// same time) shows up as a miss, never as wrong data for the key.
type TT struct {
	words    []uint64
	nBuckets uint64
	gen      atomic.Uint32
	sizeMB   int
}

// NewTT returns a table of about sizeMB megabytes (at least one bucket).
func NewTT(sizeMB int) *TT {
	t := &TT{}
	t.Resize(sizeMB)
	return t
}

// Resize reallocates the table to about sizeMB megabytes; it clears all entries.
// It must not be called while a search uses the table.
func (t *TT) Resize(sizeMB int) {
	if sizeMB < 1 {
		sizeMB = 1
	}
	n := uint64(sizeMB) * 1024 * 1024 / bucketBytes
	if n == 0 {
		n = 1
	}
	t.sizeMB = sizeMB
	t.nBuckets = n
	t.words = make([]uint64, n*bucketWords)
	t.gen.Store(0)
}

// SizeMB is the size the table was last given.
func (t *TT) SizeMB() int { return t.sizeMB }

// Clear empties the table (a new game). It must not be called during a search.
func (t *TT) Clear() {
	clear(t.words)
	t.gen.Store(0)
}

// NewSearch advances the generation so that entries from earlier searches
// age and are replaced first. Entries are kept: the table lives across the
// moves of a game.
func (t *TT) NewSearch() {
	t.gen.Store((t.gen.Load() + 1) & genMask)
}

// Generation is the current generation (0..63).
func (t *TT) Generation() uint8 { return uint8(t.gen.Load()) }

func (t *TT) bucket(key uint64) uint64 {
	hi, _ := bits.Mul64(key, t.nBuckets)
	return hi * bucketWords
}

func pack(move board.Move, score, eval, depth int, bound Bound, gen uint8) uint64 {
	d := depth + depthOffset
	if d < 0 {
		d = 0
	} else if d > 255 {
		d = 255
	}
	return uint64(move) |
		uint64(uint16(int16(score)))<<16 |
		uint64(uint16(int16(eval)))<<32 |
		uint64(d)<<48 |
		uint64(bound&3)<<56 |
		uint64(gen&genMask)<<58
}

func unpack(d uint64) TTEntry {
	return TTEntry{
		Move:  board.Move(uint16(d)),
		Score: int(int16(uint16(d >> 16))),
		Eval:  int(int16(uint16(d >> 32))),
		Depth: int(uint8(d>>48)) - depthOffset,
		Bound: Bound(d>>56) & 3,
		Gen:   uint8(d>>58) & genMask,
	}
}

// Probe looks key up. The returned score is as stored (not ply-adjusted).
func (t *TT) Probe(key uint64) (TTEntry, bool) {
	b := t.bucket(key)
	w := t.words[b : b+bucketWords : b+bucketWords]
	for i := 0; i < bucketWords; i += 2 {
		data := atomic.LoadUint64(&w[i+1])
		if data != 0 && atomic.LoadUint64(&w[i])^data == key {
			return unpack(data), true
		}
	}
	return TTEntry{}, false
}

// Store writes an entry for key. score must already be converted with
// ScoreToTT. If the key is already present the entry is overwritten
// (keeping the old move when the new one is empty) unless the old entry is
// much deeper and from the current search and the new one is not exact.
// Otherwise the entry to replace is the one with the least depth, with older
// generations counting as shallower.
func (t *TT) Store(key uint64, move board.Move, score, eval, depth int, bound Bound) {
	gen := uint8(t.gen.Load())
	b := t.bucket(key)
	w := t.words[b : b+bucketWords : b+bucketWords]
	victim := -1
	worst := 1 << 30
	for i := 0; i < bucketWords; i += 2 {
		data := atomic.LoadUint64(&w[i+1])
		if data == 0 {
			if worst > -1<<20 { // the first empty slot beats any used one
				victim, worst = i, -1<<20
			}
			continue
		}
		if atomic.LoadUint64(&w[i])^data == key {
			old := unpack(data)
			if move == 0 {
				move = old.Move
			}
			if bound != BoundExact && old.Gen == gen && old.Depth > depth+3 {
				return
			}
			victim = i
			break
		}
		e := unpack(data)
		age := int((gen - e.Gen) & genMask)
		v := e.Depth - 8*age
		if v < worst {
			victim, worst = i, v
		}
	}
	data := pack(move, score, eval, depth, bound, gen)
	atomic.StoreUint64(&w[victim+1], data)
	atomic.StoreUint64(&w[victim], key^data)
}

// Hashfull is the permille of sampled entries written in the current generation.
func (t *TT) Hashfull() int {
	gen := uint8(t.gen.Load())
	n, used := 0, 0
	for i := 1; i < len(t.words) && n < 1000; i += 2 {
		n++
		d := atomic.LoadUint64(&t.words[i])
		if d != 0 && unpack(d).Gen == gen {
			used++
		}
	}
	if n == 0 {
		return 0
	}
	return used * 1000 / n
}

// ScoreToTT converts a score relative to the root into one relative to the
// node at ply, as stored in the table: mate and tablebase-win distances
// (scores at or beyond ±TBWinInMaxPly) counted from the node.
func ScoreToTT(s, ply int) int {
	if s >= TBWinInMaxPly {
		return s + ply
	}
	if s <= -TBWinInMaxPly {
		return s - ply
	}
	return s
}

// ScoreFromTT converts a stored score back to one relative to the root.
func ScoreFromTT(s, ply int) int {
	if s >= TBWinInMaxPly {
		return s - ply
	}
	if s <= -TBWinInMaxPly {
		return s + ply
	}
	return s
}
