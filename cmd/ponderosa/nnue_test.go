package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/engine/search"
)

// testNetFile writes a small random net and returns its path and the net.
func testNetFile(t *testing.T) (string, *nnue.Net) {
	t.Helper()
	n := nnue.RandomNet(16, nnue.SCReLU, 5)
	path := filepath.Join(t.TempDir(), "test.nnue")
	if err := n.Save(path); err != nil {
		t.Fatal(err)
	}
	return path, n
}

func TestBenchCommandNNUE(t *testing.T) {
	file, net := testNetFile(t)
	code, stdout, stderr := runWith(t, nil, "bench", "-eval", "both", "-evalfile", file, "3")
	if code != 0 {
		t.Fatalf("bench -eval both: code %d, stderr %q", code, stderr)
	}
	m := regexp.MustCompile(`(?m)^classical (\d+) nodes \d+ nps; nnue (\d+) nodes \d+ nps; nnue/classical nps \d+\.\d\d$`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("bench -eval both printed no comparison:\n%s", stdout)
	}
	c, _ := strconv.ParseUint(m[1], 10, 64)
	n, _ := strconv.ParseUint(m[2], 10, 64)
	rc, _ := search.Bench(io.Discard, 3)
	rn, _ := search.BenchNet(io.Discard, 3, net)
	if c != rc.Nodes || n != rn.Nodes || c == n {
		t.Errorf("compared %d and %d nodes; search.Bench gives %d, BenchNet with the net %d", c, n, rc.Nodes, rn.Nodes)
	}
	code, stdout, _ = runWith(t, nil, "bench", "-eval", "nnue", "-evalfile", file, "3")
	if code != 0 || !strings.Contains(stdout, strconv.FormatUint(rn.Nodes, 10)+" nodes") {
		t.Errorf("bench -eval nnue: code %d, want %d nodes in:\n%s", code, rn.Nodes, stdout)
	}
	bad := filepath.Join(t.TempDir(), "bad.nnue")
	if err := os.WriteFile(bad, []byte("nonsense"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bench", "-eval", "nnue", "-evalfile", bad, "2"}, 1, "bad NNUE net file"},
		{[]string{"bench", "-eval", "neural", "2"}, exitUsage, "want classical, nnue or both"},
		{[]string{"bench", "-evalfile"}, exitUsage, "flag needs an argument"},
	} {
		code, _, stderr := runWith(t, nil, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: code %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join("../../engine/nnue", nnue.EmbeddedPath)); err != nil {
		code, _, stderr := runWith(t, nil, "bench", "-eval", "nnue", "2")
		if code != 1 || !strings.Contains(stderr, "no NNUE net is embedded") {
			t.Errorf("bench -eval nnue without a net: code %d, stderr %q", code, stderr)
		}
	}
}

// engine.builtin.eval: nnue gives the built-in players the net; a net that
// cannot be loaded is an error of the factory.
func TestPlayerFactoryNNUE(t *testing.T) {
	file, _ := testNetFile(t)
	cfg := parseConfig(t, "engine:\n  builtin: {hash_mb: 8, tree_memory_mb: 4, eval: nnue, eval_file: \""+file+"\"}\n")
	firstMove(t, cfg, "built-in player with a net")
	cfg.Engine.Builtin.EvalFile = filepath.Join(t.TempDir(), "gone.nnue")
	if _, err := playerFactory(cfg, discardLogger(), nil); err == nil || !strings.Contains(err.Error(), "engine.builtin.eval nnue") {
		t.Errorf("missing net file: %v", err)
	}
}
