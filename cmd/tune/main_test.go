package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/eval"
	"github.com/ponderosa-chess/ponderosa/internal/tune"
)

func TestGenThenFit(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.txt")
	if err := run(context.Background(), []string{"gen", "-player", "bootstrap", "-depth", "1", "-games", "4", "-out", data}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	samples, err := tune.ReadSamples(f)
	f.Close()
	if err != nil || len(samples) < 40 {
		t.Fatalf("gen wrote %d samples, err %v", len(samples), err)
	}

	out := filepath.Join(dir, "weights.go")
	sample := filepath.Join("..", "..", "internal", "tune", "testdata", "selfplay_sample.txt")
	if err := run(context.Background(), []string{"fit", "-data", sample + "," + data, "-iters", "20", "-every", "10", "-out", out, "-note", "test run"}); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "// test run") || !strings.Contains(string(src), "Code generated") {
		t.Errorf("header missing from\n%s", src[:300])
	}
	if _, err := eval.ReadGo(strings.NewReader(string(src))); err != nil {
		t.Fatalf("written weights do not parse: %v", err)
	}
}

func TestBadArguments(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"nonsense"},
		{"fit"},
		{"fit", "-data", "/nonexistent/file"},
		{"gen"},
		{"gen", "-player", "nobody", "-out", filepath.Join(t.TempDir(), "x")},
		{"match", "-a", "x"},
	} {
		if err := run(context.Background(), args); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}
