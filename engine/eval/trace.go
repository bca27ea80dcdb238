package eval

import "github.com/ponderosa-chess/ponderosa/engine/board"

// Trace records, for one evaluation, how many times each parameter was
// used (White's uses minus Black's), with the phase and endgame scale that
// weighted them. The evaluation is linear in the weights given the trace:
//
//	white_eval = (Σ Coef[i]·mg[i]·Phase·64 + Σ Coef[i]·eg[i]·(24-Phase)·Scale) / (24·64)
//
// plus the king-danger term, a known function of KD and the danger units.
// The tuner differentiates that exactly.
type Trace struct {
	Coef  [NumParams]int32
	Phase int
	Scale int
	Drawn bool // the position was scored 0 by the material-draw rule
	STM   board.Color
	// KD holds the king-danger features per attacking colour; their
	// contribution is non-linear (see IdxKDanger) and the tuner applies
	// the chain rule to it.
	KD [2][NumKD]int
}

// KingDanger returns the danger total for attacker c under weights w.
func (t *Trace) KingDanger(c board.Color, w *Weights) int {
	d := 0
	for j, f := range t.KD[c] {
		d += f * w[IdxKDanger+j].MG()
	}
	return d
}

// Trace evaluates p recording every feature into t (which it resets) and
// returns the evaluation from White's point of view. It bypasses the pawn
// cache and is slower than Evaluate; it is meant for tuning and tests.
func (e *Evaluator) Trace(p *board.Position, t *Trace) int {
	*t = Trace{}
	e.load(p)
	t.STM = e.v.stm
	e.tr = t
	v := e.evaluate()
	e.tr = nil
	return v
}

// Linear recomputes the White-point-of-view evaluation from the trace and
// weights w, in floating point (no rounding). Despite the name it includes
// the non-linear king-danger term.
func (t *Trace) Linear(w *Weights) float64 {
	if t.Drawn {
		return 0
	}
	var mg, eg float64
	for i, c := range t.Coef {
		if c != 0 {
			mg += float64(c) * float64(w[i].MG())
			eg += float64(c) * float64(w[i].EG())
		}
	}
	for c := board.White; c <= board.Black; c++ {
		d := float64(t.KingDanger(c, w))
		if d <= 0 {
			continue
		}
		sign := 1.0
		if c == board.Black {
			sign = -1
		}
		mg += sign * d * d / KingDangerMG
		eg += sign * d / KingDangerEG
	}
	return (mg*float64(t.Phase)*ScaleNormal + eg*float64(MaxPhase-t.Phase)*float64(t.Scale)) / (MaxPhase * ScaleNormal)
}
