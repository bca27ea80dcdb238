package eval

import (
	"testing"

	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// TestWeightsSane guards the generated weights against a fit gone wrong:
// piece values in the usual order and range, and a few positions every
// chess player would rank the same way.
func TestWeightsSane(t *testing.T) {
	w := DefaultWeights()
	val := func(i int) (int, int) { return w[IdxMaterial+i].MG(), w[IdxMaterial+i].EG() }
	pm, pe := val(0)
	if pm < 50 || pm > 150 || pe < 70 || pe > 200 {
		t.Errorf("pawn S(%d, %d) out of range", pm, pe)
	}
	for i := 1; i < 5; i++ {
		am, ae := val(i - 1)
		bm, be := val(i)
		if i != 2 && (bm <= am || be <= ae) { // knight and bishop may be in any order
			t.Errorf("%s S(%d, %d) not above %s S(%d, %d)", ParamName(IdxMaterial+i), bm, be, ParamName(IdxMaterial+i-1), am, ae)
		}
	}

	e := NewEvaluator()
	if v := e.Evaluate(testsupport.MustFEN(t, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")); v < -10 || v > 60 {
		t.Errorf("start position %d, want a small plus for the side to move", v)
	}
	better := []struct{ good, bad, why string }{
		{"4k3/8/3P4/8/8/8/8/4K3 w - - 0 1", "4k3/8/8/8/8/3P4/8/4K3 w - - 0 1", "advanced passed pawn"},
		{"4k3/pppppppp/8/8/3N4/8/PPPPPPPP/4K3 w - - 0 1", "4k3/pppppppp/8/8/8/8/PPPPPPPP/N3K3 w - - 0 1", "central knight"},
		{"4k3/5ppp/8/8/8/8/5PPP/4K3 w - - 0 1", "4k3/5ppp/8/8/8/5P2/5P1P/4K3 w - - 0 1", "doubled pawn"},
		{"4k3/8/8/8/8/8/PPP5/4K3 w - - 0 1", "4k3/8/8/8/8/8/P1P1P3/4K3 w - - 0 1", "connected pawns"},
		{"4k3/pppppppp/8/8/8/8/PPPPPPPP/2B1KB2 w - - 0 1", "4k3/pppppppp/8/8/8/8/PPPPPPPP/1N2KB2 w - - 0 1", "bishop pair"},
	}
	for _, b := range better {
		g, bad := e.Evaluate(testsupport.MustFEN(t, b.good)), e.Evaluate(testsupport.MustFEN(t, b.bad))
		if g <= bad {
			t.Errorf("%s: %q = %d not above %q = %d", b.why, b.good, g, b.bad, bad)
		}
	}
}
