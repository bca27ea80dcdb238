package search

import (
	"bytes"
	"os"
	"strconv"
	"testing"
)

// TestBenchDeterministic: the bench node count is the engine's signature,
// so two runs must agree exactly.
func TestBenchDeterministic(t *testing.T) {
	var out bytes.Buffer
	a, err := Bench(&out, 5)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Bench(nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	if a.Positions != len(benchFENs) || a.Nodes == 0 {
		t.Fatalf("bench: %+v", a)
	}
	if a.Nodes != b.Nodes {
		t.Fatalf("bench not deterministic: %d then %d nodes", a.Nodes, b.Nodes)
	}
	if !bytes.Contains(out.Bytes(), []byte(strconv.FormatUint(a.Nodes, 10)+" nodes")) {
		t.Fatalf("bench output lacks the total:\n%s", out.String())
	}
}

// TestBenchPrint prints the full bench: PONDEROSA_BENCH=depth (0 = default)
// go test ./engine/search -run TestBenchPrint -v
func TestBenchPrint(t *testing.T) {
	v, ok := os.LookupEnv("PONDEROSA_BENCH")
	if !ok {
		t.Skip("set PONDEROSA_BENCH=depth to run the bench")
	}
	d, _ := strconv.Atoi(v)
	var out bytes.Buffer
	if _, err := Bench(&out, d); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
}
