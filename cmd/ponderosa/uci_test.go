package main

import (
	"bytes"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/search"
)

func TestUCICommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	in := strings.NewReader("uci\nisready\nposition startpos moves e2e4\ngo perft 2\nposition startpos moves e2e5\nquit\n")
	code := uciCmd(env{stdout: &stdout, stderr: &stderr}, nil, in)
	out := stdout.String()
	if code != 0 || stderr.Len() > 0 {
		t.Fatalf("uci: code %d, stderr %q", code, stderr.String())
	}
	for _, want := range []string{"id name ponderosa dev\n", "option name Hash type spin", "uciok\n", "readyok\n",
		"Nodes searched: 600\n", "info string error: position"} {
		if !strings.Contains(out, want) {
			t.Errorf("uci output lacks %q:\n%s", want, out)
		}
	}
	if code, _, _ := runWith(t, nil, "uci", "extra"); code != exitUsage {
		t.Errorf("uci with an argument: code %d, want 2", code)
	}
}

func TestBenchCommand(t *testing.T) {
	code, stdout, stderr := runWith(t, nil, "bench", "4")
	if code != 0 {
		t.Fatalf("bench 4: code %d, stderr %q", code, stderr)
	}
	m := regexp.MustCompile(`(?m)^(\d+) nodes \d+ nps`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("bench output has no total:\n%s", stdout)
	}
	n, _ := strconv.ParseUint(m[1], 10, 64)
	res, err := search.Bench(io.Discard, 4)
	if err != nil || n != res.Nodes || n == 0 {
		t.Errorf("bench 4 printed %d nodes, search.Bench gives %d (%v)", n, res.Nodes, err)
	}
	for _, args := range [][]string{{"bench", "x"}, {"bench", "0"}, {"bench", "3", "4"}} {
		if code, _, _ := runWith(t, nil, args...); code != exitUsage {
			t.Errorf("%v: code %d, want 2", args, code)
		}
	}
}
