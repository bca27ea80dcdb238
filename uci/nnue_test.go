package uci

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/nnue"
)

// writeTestNet writes a small net with random weights to a file in dir.
func writeTestNet(t *testing.T, dir string) string {
	t.Helper()
	n := nnue.RandomNet(16, nnue.SCReLU, 5)
	path := filepath.Join(dir, "test.nnue")
	if err := n.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// UseNNUE and EvalFile choose the engine's evaluation; a net that cannot
// be had is an error and leaves the hand-crafted evaluation.
func TestEngineNNUEOptions(t *testing.T) {
	dir := t.TempDir()
	good := writeTestNet(t, dir)
	bad := filepath.Join(dir, "bad.nnue")
	if err := os.WriteFile(bad, []byte("not a net"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := NewEngineBackend()
	t.Cleanup(b.Close)
	net := func() *nnue.Net {
		if b.Net() != b.Engine().Options().Net {
			t.Fatalf("backend net %p, engine net %p", b.Net(), b.Engine().Options().Net)
		}
		return b.Net()
	}
	if net() != nil {
		t.Fatal("a new backend evaluates with a net; the default is the hand-crafted evaluation")
	}
	// No EvalFile and (in this build) no embedded net.
	if _, err := os.Stat(filepath.Join("../engine/nnue", nnue.EmbeddedPath)); err != nil {
		err := b.SetOption(OptUseNNUE, "true")
		if !errors.Is(err, nnue.ErrNoEmbeddedNet) || !strings.Contains(err.Error(), "hand-crafted") {
			t.Errorf("UseNNUE without a net: %v, want ErrNoEmbeddedNet and the fallback named", err)
		}
		if net() != nil {
			t.Error("UseNNUE without a net left a net in use")
		}
	}
	// EvalFile set while UseNNUE is on loads it.
	b.SetOption(OptUseNNUE, "true")
	if err := b.SetOption(OptEvalFile, good); err != nil {
		t.Fatalf("EvalFile %s: %v", good, err)
	}
	if n := net(); n == nil || n.Hidden != 16 {
		t.Fatalf("after EvalFile the net is %v", n)
	}
	// It survives a new game object (Move Overhead makes one).
	if err := b.SetOption(OptMoveOverhead, "50"); err != nil || net() == nil {
		t.Fatalf("Move Overhead: %v; net kept: %v", err, net() != nil)
	}
	// A bad file: an error naming the format problem, hand-crafted again.
	err := b.SetOption(OptEvalFile, bad)
	if !errors.Is(err, nnue.ErrFormat) || !strings.Contains(err.Error(), "hand-crafted") {
		t.Errorf("bad EvalFile: %v, want nnue.ErrFormat and the fallback named", err)
	}
	if net() != nil {
		t.Error("bad EvalFile left a net in use")
	}
	err = b.SetOption(OptEvalFile, filepath.Join(dir, "missing.nnue"))
	if !errors.Is(err, os.ErrNotExist) || net() != nil {
		t.Errorf("missing EvalFile: %v, net %v", err, net())
	}
	// UseNNUE off, then EvalFile set: stored, not loaded, no error; on loads it.
	if err := b.SetOption(OptUseNNUE, "false"); err != nil || net() != nil {
		t.Fatalf("UseNNUE false: %v, net %v", err, net())
	}
	if err := b.SetOption(OptEvalFile, good); err != nil || net() != nil {
		t.Fatalf("EvalFile with UseNNUE off: %v, net %v", err, net())
	}
	if err := b.SetOption(OptUseNNUE, "true"); err != nil || net() == nil {
		t.Fatalf("UseNNUE true with a good EvalFile: %v, net %v", err, net())
	}
	if err := b.SetOption(OptUseNNUE, "false"); err != nil || net() != nil {
		t.Fatalf("UseNNUE false again: %v, net %v", err, net())
	}
}

// Over the protocol: a bad EvalFile is an info string, and the engine
// searches on (hand-crafted); a good one is searched with.
func TestEngineBadEvalFileKeepsPlaying(t *testing.T) {
	c, _ := startEngine(t)
	good := writeTestNet(t, t.TempDir())
	c.send("setoption name EvalFile value /nonexistent/x.nnue", "setoption name UseNNUE value true", "isready")
	lines := c.untilLine("readyok")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "info string error: setoption UseNNUE") ||
		!strings.Contains(lines[0], "/nonexistent/x.nnue") || !strings.Contains(lines[0], "hand-crafted") {
		t.Errorf("bad EvalFile gave %q", lines)
	}
	for _, file := range []string{"", good} {
		if file != "" {
			c.send("setoption name EvalFile value "+file, "isready")
			if lines := c.untilLine("readyok"); len(lines) != 1 {
				t.Errorf("good EvalFile gave %q", lines)
			}
		}
		c.send("position startpos moves e2e4", "go depth 3")
		done := make(chan []string, 1)
		go func() { done <- c.untilPrefix("bestmove") }()
		select {
		case lines := <-done:
			best, _ := bestmove(t, lastLine(lines))
			if best == "" || best == "0000" {
				t.Errorf("EvalFile %q: bestmove %q", file, lastLine(lines))
			}
		case <-time.After(time.Minute):
			t.Fatalf("EvalFile %q: no bestmove", file)
		}
	}
}
