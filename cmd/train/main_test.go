package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/internal/nnuedata"
)

// writeData writes positions of random games, scored by material, to a
// data file.
func writeData(t *testing.T, path string, n int) {
	t.Helper()
	w, err := nnuedata.Create(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var ml board.MoveList
	v := [...]int{0, 100, 300, 300, 500, 900, 0}
	var recs []nnuedata.Record
	for len(recs) < n {
		p, _ := board.ParseFEN(board.StartFEN)
		for ply := 0; ply < 120 && len(recs) < n; ply++ {
			p.GenerateLegal(&ml)
			if ml.N == 0 {
				break
			}
			p.MakeMove(ml.Moves[rng.IntN(ml.N)])
			m := 0
			for pt := board.Pawn; pt <= board.Queen; pt++ {
				m += v[pt] * (p.Pieces(board.White, pt).Count() - p.Pieces(board.Black, pt).Count())
			}
			res := nnuedata.Draw
			if m > 100 {
				res = nnuedata.WhiteWin
			} else if m < -100 {
				res = nnuedata.BlackWin
			}
			recs = append(recs, nnuedata.Encode(p, m, res))
		}
	}
	if err := w.Write(recs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestFitExportEval(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.bin")
	writeData(t, data, 9000)
	out := filepath.Join(dir, "run")
	var stdout, stderr bytes.Buffer
	ctx := context.Background()
	err := run(ctx, []string{"fit", "-out", out, "-hidden", "16", "-epochs", "2", "-batch", "512", "-lr", "0.005",
		"-threads", "2", "-progress", "0", data}, nil, &stdout, &stderr)
	if err != nil {
		t.Fatal(err, stderr.String())
	}
	log := stderr.String()
	for _, want := range []string{"8192 training and 808 validation positions", "768→16→1", "screlu", "epoch 2/2 done", "validation loss", "positions/s"} {
		if !strings.Contains(log, want) {
			t.Errorf("fit log lacks %q:\n%s", want, log)
		}
	}
	net := filepath.Join(out, "net.nnue")
	n, err := nnue.Load(net)
	if err != nil {
		t.Fatal(err)
	}
	if n.Hidden != 16 || n.Act != nnue.SCReLU || n.QA != 255 || n.QB != 64 || n.Scale != 400 {
		t.Fatalf("net %d %v %d %d %d", n.Hidden, n.Act, n.QA, n.QB, n.Scale)
	}

	// Export the checkpoint again with another QB.
	stdout.Reset()
	exp := filepath.Join(dir, "qb128.nnue")
	if err := run(ctx, []string{"export", "-ckpt", filepath.Join(out, "checkpoint.ckpt"), "-out", exp, "-qb", "128", "-data", data, "-n", "200"}, nil, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if m, err := nnue.Load(exp); err != nil || m.QB != 128 || m.Scale != 400 {
		t.Fatalf("exported net: %v, %+v", err, m)
	}
	if !strings.Contains(stdout.String(), "QB 128, scale 400, from epoch 2") || !strings.Contains(stdout.String(), "over 200 positions") {
		t.Fatalf("export said:\n%s", stdout.String())
	}

	// Evaluate FENs from the arguments and from stdin; the figures are the
	// reference evaluation's.
	stdout.Reset()
	if err := run(ctx, []string{"eval", "-net", net, "3qk3/8/8/8/8/8/8/3QK2Q w - - 0 1"}, nil, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	stdin := strings.NewReader("# comment\n3qk3/8/8/8/8/8/8/3QK2Q b - - 0 1\n")
	if err := run(ctx, []string{"eval", "-net", net}, stdin, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	for i, fen := range []string{"3qk3/8/8/8/8/8/8/3QK2Q w - - 0 1", "3qk3/8/8/8/8/8/8/3QK2Q b - - 0 1"} {
		p, _ := board.ParseFEN(fen)
		if want := strconv.Itoa(n.Evaluate(p)) + "\t" + fen; i >= len(lines) || lines[i] != want {
			t.Fatalf("eval printed:\n%s\nwant line %d %q", stdout.String(), i, want)
		}
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.nnue")
	os.WriteFile(bad, []byte("PNDRNNUE\x01\x00"), 0o644)
	ctx := context.Background()
	var out, errOut bytes.Buffer
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "usage"},
		{[]string{"nope"}, "unknown subcommand"},
		{[]string{"fit", "x.bin"}, "want -out"},
		{[]string{"fit", "-out", dir, "-act", "relu", "x.bin"}, "activation"},
		{[]string{"fit", "-out", dir, filepath.Join(dir, "missing.bin")}, "no such file"},
		{[]string{"fit", "-out", dir, "-lr-schedule", "linear", "x.bin"}, "schedule"},
		{[]string{"eval", "-net", bad, board.StartFEN}, "header cut short"},
		{[]string{"eval"}, "want -net"},
		{[]string{"export", "-ckpt", bad, "-out", filepath.Join(dir, "o.nnue")}, "bad checkpoint"},
	} {
		err := run(ctx, tc.args, strings.NewReader(""), &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one saying %q", tc.args, err, tc.want)
		}
	}
	if err := run(ctx, []string{"fit", "-h"}, nil, &out, &errOut); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
}
