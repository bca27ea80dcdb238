package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/nnue"
)

// writeNet writes a valid net file (all weights zero) to dir.
func writeNet(t *testing.T, dir string) string {
	t.Helper()
	const h = 4
	n := &nnue.Net{
		Hidden: h, Act: nnue.SCReLU, QA: 255, QB: 64, Scale: 400,
		InputWeights:  make([]int16, nnue.Inputs*h),
		InputBiases:   make([]int16, h),
		OutputWeights: make([]int16, 2*h),
	}
	path := filepath.Join(dir, "net.nnue")
	if err := n.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// engine.builtin.eval and eval_file: classical by default; nnue needs a
// loadable net (a file, or one built in), checked when the file is read.
func TestBuiltinEval(t *testing.T) {
	if d := Default().Engine.Builtin; d.Eval != EvalClassical || d.EvalFile != "" {
		t.Errorf("default eval %q, eval_file %q; want classical and none", d.Eval, d.EvalFile)
	}
	dir := t.TempDir()
	good := writeNet(t, dir)
	bad := filepath.Join(dir, "bad.nnue")
	if err := os.WriteFile(bad, []byte("PNDRNNUE"), 0o644); err != nil {
		t.Fatal(err)
	}
	yamlOf := func(eval, file string) string {
		return "engine:\n  builtin:\n    eval: " + eval + "\n    eval_file: \"" + file + "\"\n"
	}
	c, err := Parse([]byte(yamlOf("nnue", good)), "config.yaml")
	if err != nil {
		t.Fatalf("eval nnue with a good file: %v", err)
	}
	if b := c.Engine.Builtin; b.Eval != EvalNNUE || b.EvalFile != good {
		t.Errorf("parsed eval %q, eval_file %q", b.Eval, b.EvalFile)
	}
	if s := c.Summary(); !strings.Contains(s, "network ("+good+")") {
		t.Errorf("summary does not name the network:\n%s", s)
	}
	for _, tc := range []struct {
		eval, file string
		line       int
		want       string
	}{
		{"nnue", bad, 4, "engine.builtin.eval_file: no network for eval: nnue"},
		{"nnue", filepath.Join(dir, "missing.nnue"), 4, "no such file"},
		{"neural", "", 3, `engine.builtin.eval: "neural" is not one of classical, nnue`},
	} {
		probs := problemsOf(t, yamlOf(tc.eval, tc.file))
		if len(probs) != 1 || probs[0].Line != tc.line || !strings.Contains(probs[0].Error(), tc.want) {
			t.Errorf("eval %q, file %q: problems %v, want one on line %d with %q", tc.eval, tc.file, probs, tc.line, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join("../engine/nnue", nnue.EmbeddedPath)); err != nil {
		probs := problemsOf(t, yamlOf("nnue", ""))
		if len(probs) != 1 || probs[0].Key != "engine.builtin.eval" || !strings.Contains(probs[0].Msg, "no NNUE net is embedded") {
			t.Errorf("eval nnue without a file nor an embedded net: %v", probs)
		}
	}
	c = Default()
	c.Engine.Builtin.EvalFile = good
	if w := strings.Join(c.Warnings(), "\n"); !strings.Contains(w, "eval_file is set but engine.builtin.eval is classical") {
		t.Errorf("warnings %q lack the ignored eval_file", w)
	}
}

// A relative eval_file is taken from the config file's directory, like
// token_file: under systemd the working directory is /, not the
// configuration's.
func TestEvalFileRelativeToConfig(t *testing.T) {
	dir := t.TempDir()
	net := writeNet(t, dir)
	p := filepath.Join(dir, "bot.yaml")
	if err := os.WriteFile(p, []byte("engine:\n  builtin:\n    eval: nnue\n    eval_file: net.nnue\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(p)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if c.Engine.Builtin.EvalFile != net {
		t.Errorf("eval_file = %q, want %q (relative to the config file)", c.Engine.Builtin.EvalFile, net)
	}
}
