package search

import (
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/eval"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
)

func TestEvalIDNamesTheEvaluation(t *testing.T) {
	hce := EvalID(nil)
	if !strings.HasPrefix(hce, "hce-") || len(hce) != 4+16 {
		t.Fatalf("EvalID(nil) = %q, want hce- and 16 hex digits", hce)
	}
	if again := EvalID(nil); again != hce {
		t.Fatalf("EvalID(nil) not stable: %q then %q", hce, again)
	}
	w := eval.DefaultWeights()
	w[0]++
	if w.ID() == hce {
		t.Fatalf("changed weights keep the ID %q", hce)
	}
	a, b := nnue.RandomNet(16, nnue.CReLU, 1), nnue.RandomNet(16, nnue.CReLU, 2)
	if a.ID() == b.ID() || !strings.HasPrefix(EvalID(a), "nnue-") || EvalID(a) != a.ID() {
		t.Fatalf("net IDs: %q, %q", a.ID(), b.ID())
	}
}
