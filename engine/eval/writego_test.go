package eval

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestWriteReadGoRoundTrip(t *testing.T) {
	w := StartingWeights()
	w[IdxTempo] = S(-17, 23)
	var buf bytes.Buffer
	if err := WriteGo(&buf, &w, []string{"test header"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "// test header") {
		t.Fatalf("header missing:\n%s", buf.String()[:200])
	}
	got, err := ReadGo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if *got != w {
		t.Fatal("weights changed in the round trip")
	}
	if _, err := ReadGo(strings.NewReader("var defaultWeights = Weights{S(1, 2),}")); err == nil {
		t.Fatal("short weights file accepted")
	}
}

// TestWeightsFileComplete checks weights.go has exactly one entry per
// parameter (a layout change without regenerating it would shift values).
func TestWeightsFileComplete(t *testing.T) {
	f, err := os.Open("weights.go")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := ReadGo(f)
	if err != nil {
		t.Fatal(err)
	}
	if *w != DefaultWeights() {
		t.Fatal("weights.go parsed differently from defaultWeights")
	}
}
