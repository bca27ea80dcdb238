// Package eval is ponderosa's static evaluation: a tapered (middlegame /
// endgame) sum of hand-chosen features whose weights live in one table
// (Weights) that the tuner in internal/tune fits to game results.
//
// Evaluate returns centipawns from the side to move's point of view. An
// Evaluator is not safe for concurrent use: make one per search thread.
package eval

import (
	"math/bits"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// MaxPhase is the game phase of the full set of non-pawn pieces
// (knight and bishop 1, rook 2, queen 4).
const MaxPhase = 24

// ScaleNormal is the endgame scale factor of an ordinary position; smaller
// factors pull drawish endgames towards 0.
const ScaleNormal = 64

// view is the part of a position the evaluation reads, copied out of
// board.Position so the feature code does not depend on its layout.
type view struct {
	pcs [2][7]board.Bitboard // by colour and board.PieceType (index 0 unused)
	occ [2]board.Bitboard
	all board.Bitboard
	stm board.Color
	ksq [2]board.Square
}

// Evaluator evaluates positions. It owns a pawn-structure cache and scratch
// space, so Evaluate allocates nothing. Use one per goroutine.
type Evaluator struct {
	w     *Weights
	pawns []pawnEntry
	tr    *Trace

	v        view
	acc      [2]Score
	pawnAtt  [2]board.Bitboard
	att      [2]board.Bitboard // squares attacked by colour
	att2     [2]board.Bitboard // squares attacked at least twice
	attBy    [2][7]board.Bitboard
	zone     [2]board.Bitboard // king zone of colour c
	kAttCnt  [2]int            // pieces of c attacking the enemy king zone
	kAttN    [2][4]int         // attacks of c's N, B, R, Q on the enemy king zone
	kd       [2][NumKD]int     // king-danger features of c attacking the enemy king
	noShield [2]int            // files next to c's king without a shield pawn
	passed   [2]board.Bitboard
}

// NewEvaluator returns an evaluator with the built-in (tuned) weights.
func NewEvaluator() *Evaluator { return NewEvaluatorWith(&defaultWeights) }

// NewEvaluatorWith returns an evaluator that uses w. w is read, never
// written; the caller must not change it while the evaluator is in use.
func NewEvaluatorWith(w *Weights) *Evaluator {
	return &Evaluator{w: w, pawns: make([]pawnEntry, pawnTableSize)}
}

// DefaultWeights returns a copy of the built-in weights.
func DefaultWeights() Weights { return defaultWeights }

// Evaluate returns the static evaluation of p in centipawns from the side
// to move's point of view.
func (e *Evaluator) Evaluate(p *board.Position) int {
	e.load(p)
	v := e.evaluate()
	if e.v.stm == board.Black {
		return -v
	}
	return v
}

func (e *Evaluator) add(c board.Color, idx, n int) {
	e.acc[c] += e.w[idx] * Score(n)
	if e.tr != nil {
		if c == board.White {
			e.tr.Coef[idx] += int32(n)
		} else {
			e.tr.Coef[idx] -= int32(n)
		}
	}
}

func popcnt(b board.Bitboard) int { return bits.OnesCount64(uint64(b)) }

func pawnAttacks(c board.Color, p board.Bitboard) board.Bitboard {
	if c == board.White {
		return (p&^board.FileA)<<7 | (p&^board.FileH)<<9
	}
	return (p&^board.FileA)>>9 | (p&^board.FileH)>>7
}

// pstIndex folds square s of a piece of colour c onto the 32-entry table.
func pstIndex(t board.PieceType, c board.Color, s board.Square) int {
	r := s.RelativeRank(c)
	f := s.File()
	if f > 3 {
		f = 7 - f
	}
	return IdxPST + (int(t)-1)*32 + r*4 + f
}

// evaluate returns the score from White's point of view.
func (e *Evaluator) evaluate() int {
	v := &e.v
	if drawnMaterial(v) {
		if e.tr != nil {
			e.tr.Drawn = true
		}
		return 0
	}
	e.acc = [2]Score{}
	e.kAttCnt = [2]int{}
	e.kAttN = [2][4]int{}

	phase := popcnt(v.pcs[0][board.Knight]|v.pcs[1][board.Knight]|v.pcs[0][board.Bishop]|v.pcs[1][board.Bishop]) +
		2*popcnt(v.pcs[0][board.Rook]|v.pcs[1][board.Rook]) +
		4*popcnt(v.pcs[0][board.Queen]|v.pcs[1][board.Queen])
	if phase > MaxPhase {
		phase = MaxPhase
	}

	for c := board.White; c <= board.Black; c++ {
		pa := pawnAttacks(c, v.pcs[c][board.Pawn])
		e.pawnAtt[c] = pa
		ka := board.KingAttacks(v.ksq[c])
		e.zone[c] = ka | v.ksq[c].Bitboard()
		e.attBy[c] = [7]board.Bitboard{}
		e.attBy[c][board.Pawn] = pa
		e.attBy[c][board.King] = ka
		var pw, pe board.Bitboard
		if c == board.White {
			pw, pe = (v.pcs[c][board.Pawn]&^board.FileA)<<7, (v.pcs[c][board.Pawn]&^board.FileH)<<9
		} else {
			pw, pe = (v.pcs[c][board.Pawn]&^board.FileA)>>9, (v.pcs[c][board.Pawn]&^board.FileH)>>7
		}
		e.att[c] = pa | ka
		e.att2[c] = pw&pe | pa&ka
	}

	e.material()
	e.pawnStructure()
	e.pieces(board.White)
	e.pieces(board.Black)
	for c := board.White; c <= board.Black; c++ {
		e.kingSafety(c)
		e.threats(c)
		e.passedExtras(c)
	}
	e.kingDanger(board.White)
	e.kingDanger(board.Black)
	e.add(v.stm, IdxTempo, 1)

	d := e.acc[board.White] - e.acc[board.Black]
	mg, eg := d.MG(), d.EG()
	scale := scaleFactor(v, eg)
	if e.tr != nil {
		e.tr.Phase = phase
		e.tr.Scale = scale
	}
	return (mg*phase*ScaleNormal + eg*(MaxPhase-phase)*scale) / (MaxPhase * ScaleNormal)
}

func (e *Evaluator) material() {
	v := &e.v
	for c := board.White; c <= board.Black; c++ {
		for t := board.Pawn; t <= board.King; t++ {
			b := v.pcs[c][t]
			if t != board.King {
				e.add(c, IdxMaterial+int(t)-1, popcnt(b))
			}
			for b != 0 {
				s := b.PopLSB()
				e.add(c, pstIndex(t, c, s), 1)
			}
		}
	}
}

// pieces scores knights, bishops, rooks and queens of colour c: mobility,
// king-zone attacks, outposts, files, and fills the attack maps.
func (e *Evaluator) pieces(c board.Color) {
	v := &e.v
	them := c.Other()
	ownP, oppP := v.pcs[c][board.Pawn], v.pcs[them][board.Pawn]
	mobArea := ^(ownP | v.pcs[c][board.King] | e.pawnAtt[them])
	mobIdx := [7]int{board.Knight: IdxMobN, board.Bishop: IdxMobB, board.Rook: IdxMobR, board.Queen: IdxMobQ}

	if v.pcs[c][board.Bishop].More() &&
		v.pcs[c][board.Bishop]&board.LightSquares != 0 && v.pcs[c][board.Bishop]&board.DarkSquares != 0 {
		e.add(c, IdxBPair, 1)
	}

	for t := board.Knight; t <= board.Queen; t++ {
		b := v.pcs[c][t]
		for b != 0 {
			s := b.PopLSB()
			a := board.Attacks(t, s, v.all)
			e.attBy[c][t] |= a
			e.att2[c] |= e.att[c] & a
			e.att[c] |= a
			e.add(c, mobIdx[t]+popcnt(a&mobArea), 1)
			if z := a & e.zone[them]; z != 0 {
				e.kAttCnt[c]++
				e.kAttN[c][t-board.Knight] += popcnt(z)
			}
			switch t {
			case board.Knight, board.Bishop:
				rr := s.RelativeRank(c)
				if rr >= 3 && rr <= 5 && e.pawnAtt[c].Has(s) && oppP&outpostMask[c][s] == 0 {
					if t == board.Knight {
						e.add(c, IdxNOutpost, 1)
					} else {
						e.add(c, IdxBOutpost, 1)
					}
				}
				front := s.Bitboard().North()
				if c == board.Black {
					front = s.Bitboard().South()
				}
				if ownP&front != 0 {
					e.add(c, IdxMinorBP, 1)
				}
				if t == board.Bishop {
					sq := board.DarkSquares
					if board.LightSquares.Has(s) {
						sq = board.LightSquares
					}
					e.add(c, IdxBPawns, popcnt(ownP&sq))
				}
			case board.Rook:
				f := board.FileMask(s.File())
				if ownP&f == 0 {
					if oppP&f == 0 {
						e.add(c, IdxROpen, 1)
					} else {
						e.add(c, IdxRSemi, 1)
					}
				}
				if s.RelativeRank(c) == 6 &&
					(v.ksq[them].RelativeRank(c) == 7 || oppP&board.RankMask(relRankToRank(c, 6)) != 0) {
					e.add(c, IdxR7th, 1)
				}
			}
		}
	}
}

func relRankToRank(c board.Color, r int) int { return r ^ int(c)*7 }

// kingSafety scores colour c's attack on the enemy king and c's own king
// shelter (pawn shield, enemy pawn storm, open files).
func (e *Evaluator) kingSafety(c board.Color) {
	v := &e.v
	them := c.Other()
	n := e.kAttCnt[c]
	if n > 7 {
		n = 7
	}
	e.add(c, IdxKAttCnt+n, 1)
	kd := &e.kd[c]
	*kd = [NumKD]int{KDBias: 1, KDAttN: e.kAttN[c][0], KDAttB: e.kAttN[c][1], KDAttR: e.kAttN[c][2],
		KDAttQ: e.kAttN[c][3], KDAttackers: e.kAttCnt[c]}
	if v.pcs[c][board.Queen] == 0 {
		kd[KDNoQueen] = 1
	}
	if e.kAttCnt[c] >= 2 {
		m := min(e.kAttCnt[c], 5)
		for i := 0; i < 4; i++ {
			if e.kAttN[c][i] != 0 {
				e.add(c, IdxKAttack+i, e.kAttN[c][i])
				e.add(c, IdxKAttX+i, e.kAttN[c][i]*m)
			}
		}
	}
	// Enemy king-zone squares we attack that nothing but the king defends.
	if x := e.zone[them] & e.att[c] &^ (e.att2[them] | (e.att[them] &^ e.attBy[them][board.King])); x != 0 {
		e.add(c, IdxKWeak, popcnt(x))
		kd[KDWeak] = popcnt(x)
	}
	// Safe checks against the enemy king.
	ks := v.ksq[them]
	safe := ^e.att[them] &^ v.occ[c]
	rChk := board.RookAttacks(ks, v.all) & safe
	bChk := board.BishopAttacks(ks, v.all) & safe
	if x := board.KnightAttacks(ks) & safe & e.attBy[c][board.Knight]; x != 0 {
		e.add(c, IdxSafeChk+0, popcnt(x))
		kd[KDChkN] = popcnt(x)
	}
	if x := bChk & e.attBy[c][board.Bishop]; x != 0 {
		e.add(c, IdxSafeChk+1, popcnt(x))
		kd[KDChkB] = popcnt(x)
	}
	if x := rChk & e.attBy[c][board.Rook]; x != 0 {
		e.add(c, IdxSafeChk+2, popcnt(x))
		kd[KDChkR] = popcnt(x)
	}
	if x := (rChk | bChk) & e.attBy[c][board.Queen]; x != 0 {
		e.add(c, IdxSafeChk+3, popcnt(x))
		kd[KDChkQ] = popcnt(x)
	}

	// Own king shelter.
	k := v.ksq[c]
	kf := k.File()
	if kf == 0 {
		kf = 1
	} else if kf == 7 {
		kf = 6
	}
	ownP, oppP := v.pcs[c][board.Pawn], v.pcs[them][board.Pawn]
	ahead := aheadRanks[c][k.Rank()] | board.RankMask(k.Rank())
	missing := 0
	for f := kf - 1; f <= kf+1; f++ {
		fm := board.FileMask(f)
		if (ownP|oppP)&fm == 0 {
			e.add(c, IdxKOpen, 1)
		}
		sh := nearestRelRank(c, ownP&fm&ahead)
		if sh == 0 {
			missing++
		}
		e.add(c, IdxShield+sh, 1)
		e.add(c, IdxStorm+nearestRelRank(c, oppP&fm&ahead), 1)
	}
	e.noShield[c] = missing
}

// kingDanger adds the non-linear king attack term of c against the enemy
// king from the features kingSafety collected.
func (e *Evaluator) kingDanger(c board.Color) {
	kd := &e.kd[c]
	kd[KDShelter] = e.noShield[c.Other()]
	d := 0
	for j, f := range kd {
		d += f * e.w[IdxKDanger+j].MG()
	}
	if e.tr != nil {
		e.tr.KD[c] = *kd
	}
	if d > 0 {
		e.acc[c] += S(d*d/KingDangerMG, d/KingDangerEG)
	}
}

// nearestRelRank returns the relative rank (seen from c) of the pawn in b
// closest to c's back rank, or 0 if b is empty.
func nearestRelRank(c board.Color, b board.Bitboard) int {
	if b == 0 {
		return 0
	}
	if c == board.White {
		return b.LSB().RelativeRank(c)
	}
	return b.MSB().RelativeRank(c)
}

// threats scores colour c's attacks on enemy pieces.
func (e *Evaluator) threats(c board.Color) {
	v := &e.v
	them := c.Other()
	pieces := v.occ[them] &^ v.pcs[them][board.Pawn] &^ v.pcs[them][board.King]
	if x := e.pawnAtt[c] & pieces; x != 0 {
		e.add(c, IdxThrPawn, popcnt(x))
	}
	minor := e.attBy[c][board.Knight] | e.attBy[c][board.Bishop]
	rook := e.attBy[c][board.Rook]
	for t := board.Pawn; t <= board.Queen; t++ {
		tb := v.pcs[them][t]
		if t == board.Pawn {
			tb &^= e.att[them] // only undefended pawns are a threat
		}
		if x := minor & tb; x != 0 {
			e.add(c, IdxThrMinor+int(t)-1, popcnt(x))
		}
		if x := rook & tb; x != 0 {
			e.add(c, IdxThrRook+int(t)-1, popcnt(x))
		}
	}
	if x := pieces & e.att[c] &^ e.att[them]; x != 0 {
		e.add(c, IdxHanging, popcnt(x))
	}
}

// passedExtras scores colour c's passed pawns by what depends on pieces and
// kings (not cacheable by pawn structure alone).
func (e *Evaluator) passedExtras(c board.Color) {
	v := &e.v
	them := c.Other()
	b := e.passed[c]
	for b != 0 {
		s := b.PopLSB()
		r := s.RelativeRank(c)
		stop := s + 8
		if c == board.Black {
			stop = s - 8
		}
		front := forwardFile[c][s]
		if front&v.all == 0 {
			e.add(c, IdxPassFree+r, 1)
		}
		if front&e.att[them] == 0 {
			e.add(c, IdxPassSafe+r, 1)
		}
		e.add(c, IdxPassOwnK+r, distance(v.ksq[c], stop))
		e.add(c, IdxPassOppK+r, distance(v.ksq[them], stop))
	}
}

func distance(a, b board.Square) int {
	df := a.File() - b.File()
	if df < 0 {
		df = -df
	}
	dr := a.Rank() - b.Rank()
	if dr < 0 {
		dr = -dr
	}
	if df > dr {
		return df
	}
	return dr
}

// drawnMaterial reports positions no side can win: no pawns, no rooks or
// queens, and at most a lone minor each, or two knights against at most a
// minor.
func drawnMaterial(v *view) bool {
	if v.pcs[0][board.Pawn]|v.pcs[1][board.Pawn]|v.pcs[0][board.Rook]|v.pcs[1][board.Rook]|
		v.pcs[0][board.Queen]|v.pcs[1][board.Queen] != 0 {
		return false
	}
	var minors, bishops [2]int
	for c := 0; c < 2; c++ {
		bishops[c] = popcnt(v.pcs[c][board.Bishop])
		minors[c] = bishops[c] + popcnt(v.pcs[c][board.Knight])
	}
	if minors[0] <= 1 && minors[1] <= 1 {
		return true
	}
	for c := 0; c < 2; c++ {
		if minors[c] == 2 && bishops[c] == 0 && minors[1-c] <= 1 {
			return true
		}
	}
	return false
}

// scaleFactor returns the endgame scale (out of ScaleNormal) for positions
// where the side ahead in the endgame score has trouble converting.
func scaleFactor(v *view, eg int) int {
	strong := board.White
	if eg < 0 {
		strong = board.Black
	}
	weak := strong.Other()
	npm := func(c board.Color) int {
		return 3*popcnt(v.pcs[c][board.Knight]|v.pcs[c][board.Bishop]) +
			5*popcnt(v.pcs[c][board.Rook]) + 9*popcnt(v.pcs[c][board.Queen])
	}
	ns, nw := npm(strong), npm(weak)
	if v.pcs[strong][board.Pawn] == 0 && ns-nw <= 3 {
		// Without pawns, a minor piece or less ahead rarely wins.
		if ns < 5 {
			return 0
		}
		return 8
	}
	wb, bb := v.pcs[0][board.Bishop], v.pcs[1][board.Bishop]
	if popcnt(wb) == 1 && popcnt(bb) == 1 &&
		(wb&board.LightSquares != 0) != (bb&board.LightSquares != 0) {
		if ns == 3 && nw == 3 {
			return 32
		}
		return 52
	}
	if v.pcs[strong][board.Pawn].Count() == 1 && ns == nw && ns > 0 && ns <= 5 {
		// One pawn up in a minor or rook ending without more material.
		return 44
	}
	return ScaleNormal
}
