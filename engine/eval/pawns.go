package eval

import "github.com/ponderosa-chess/ponderosa/engine/board"

// pawnTableSize is the number of pawn-structure cache entries per
// Evaluator (a power of two; 32 bytes each).
const pawnTableSize = 1 << 14

// pawnEntry caches the pawn-only part of the evaluation. It stores both
// pawn bitboards, so a hit is exact: no collision can return a wrong score.
type pawnEntry struct {
	wp, bp board.Bitboard
	score  Score // White minus Black
	passed [2]board.Bitboard
	valid  bool
}

// Masks computed once at init and only read afterwards.
var (
	forwardFile [2][64]board.Bitboard // squares ahead on the same file
	passedMask  [2][64]board.Bitboard // squares ahead on the same and adjacent files
	outpostMask [2][64]board.Bitboard // squares ahead on adjacent files only
	adjFiles    [8]board.Bitboard
	aheadRanks  [2][8]board.Bitboard // ranks strictly ahead of rank r for colour c
	behindOrEq  [2][8]board.Bitboard // ranks at or behind rank r for colour c
)

func init() {
	for f := 0; f < 8; f++ {
		if f > 0 {
			adjFiles[f] |= board.FileMask(f - 1)
		}
		if f < 7 {
			adjFiles[f] |= board.FileMask(f + 1)
		}
	}
	for r := 0; r < 8; r++ {
		for r2 := 0; r2 < 8; r2++ {
			if r2 > r {
				aheadRanks[board.White][r] |= board.RankMask(r2)
			}
			if r2 < r {
				aheadRanks[board.Black][r] |= board.RankMask(r2)
			}
			if r2 <= r {
				behindOrEq[board.White][r] |= board.RankMask(r2)
			}
			if r2 >= r {
				behindOrEq[board.Black][r] |= board.RankMask(r2)
			}
		}
	}
	for c := board.White; c <= board.Black; c++ {
		for s := board.Square(0); s < 64; s++ {
			ahead := aheadRanks[c][s.Rank()]
			forwardFile[c][s] = ahead & board.FileMask(s.File())
			outpostMask[c][s] = ahead & adjFiles[s.File()]
			passedMask[c][s] = forwardFile[c][s] | outpostMask[c][s]
		}
	}
}

func pawnIndex(wp, bp board.Bitboard) uint64 {
	h := uint64(wp)*0x9E3779B97F4A7C15 ^ uint64(bp)*0xC2B2AE3D27D4EB4F
	return (h ^ h>>29) & (pawnTableSize - 1)
}

// pawnStructure adds the pawn-only terms, from the cache when possible.
func (e *Evaluator) pawnStructure() {
	v := &e.v
	wp, bp := v.pcs[board.White][board.Pawn], v.pcs[board.Black][board.Pawn]
	if e.tr != nil {
		// Tracing must see every feature: bypass the cache.
		e.pawnTerms(board.White)
		e.pawnTerms(board.Black)
		return
	}
	ent := &e.pawns[pawnIndex(wp, bp)]
	if ent.valid && ent.wp == wp && ent.bp == bp {
		e.acc[board.White] += ent.score
		e.passed = ent.passed
		return
	}
	before := e.acc[board.White] - e.acc[board.Black]
	e.pawnTerms(board.White)
	e.pawnTerms(board.Black)
	after := e.acc[board.White] - e.acc[board.Black]
	*ent = pawnEntry{wp: wp, bp: bp, score: after - before, passed: e.passed, valid: true}
}

// pawnTerms scores colour c's pawns (isolated, doubled, backward,
// supported, phalanx, passed) and records its passed pawns.
func (e *Evaluator) pawnTerms(c board.Color) {
	v := &e.v
	them := c.Other()
	own, opp := v.pcs[c][board.Pawn], v.pcs[them][board.Pawn]
	e.passed[c] = 0
	b := own
	for b != 0 {
		s := b.PopLSB()
		f, r := s.File(), s.RelativeRank(c)
		isolated := own&adjFiles[f] == 0
		doubled := own&forwardFile[c][s] != 0
		supported := board.PawnAttacks(them, s)&own != 0
		phalanx := (s.Bitboard().East()|s.Bitboard().West())&own != 0
		if isolated {
			e.add(c, IdxIsolated, 1)
		}
		if doubled {
			e.add(c, IdxDoubled, 1)
		}
		if supported {
			e.add(c, IdxSupport+r, 1)
		}
		if phalanx {
			e.add(c, IdxPhalanx+r, 1)
		}
		if !doubled && opp&passedMask[c][s] == 0 {
			e.add(c, IdxPassed+r, 1)
			e.passed[c] |= s.Bitboard()
			continue
		}
		if !isolated && !supported && !phalanx && own&adjFiles[f]&behindOrEq[c][s.Rank()] == 0 {
			stop := s + 8
			if c == board.Black {
				stop = s - 8
			}
			if board.PawnAttacks(c, stop)&opp != 0 {
				e.add(c, IdxBackward, 1)
			}
		}
	}
}
