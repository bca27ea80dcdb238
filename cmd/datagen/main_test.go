package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/internal/nnuedata"
)

// tiny keeps the games fast: a few hundred nodes a move.
var tiny = []string{"-nodes", "100", "-hash", "1", "-random-plies", "8", "-seed", "5"}

func genArgs(out string, extra ...string) []string {
	return append(append([]string{"-out", out}, tiny...), extra...)
}

func mustGen(t *testing.T, out string, extra ...string) string {
	t.Helper()
	var log bytes.Buffer
	if err := runGen(context.Background(), genArgs(out, extra...), &log, nil); err != nil {
		t.Fatalf("gen %q: %v\n%s", extra, err, log.String())
	}
	return log.String()
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func header(t *testing.T, path string) nnuedata.Header {
	t.Helper()
	r, err := nnuedata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return r.Header()
}

// The file does not depend on how many threads played the games: games
// are written in index order and game i plays with PCG(seed, i).
func TestGenSameDataForAnyThreads(t *testing.T) {
	dir := t.TempDir()
	one, three := filepath.Join(dir, "one.bin"), filepath.Join(dir, "three.bin")
	log := mustGen(t, one, "-games", "5", "-threads", "1")
	mustGen(t, three, "-games", "5", "-threads", "3")
	a, b := readFile(t, one), readFile(t, three)
	if !bytes.Equal(a, b) {
		t.Fatalf("-threads 1 and -threads 3 wrote different files (%d and %d bytes)", len(a), len(b))
	}
	h := header(t, one)
	if h.Games != 5 || h.Records < 50 || int64(len(a)) != nnuedata.HeaderSize+int64(h.Records)*nnuedata.RecordSize {
		t.Errorf("header %+v for %d bytes", h, len(a))
	}
	if !strings.Contains(log, "gen: done:") || !strings.Contains(log, "holds 5 games") {
		t.Errorf("summary missing from\n%s", log)
	}
	// Every record decodes, is legal and was judged quiet: not in check.
	r, _ := nnuedata.Open(one)
	defer r.Close()
	var rec nnuedata.Record
	for {
		if err := r.Next(&rec); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		p, err := rec.Position()
		if err != nil {
			t.Fatal(err)
		}
		if p.InCheck() {
			t.Errorf("recorded %s in check", p.FEN())
		}
	}
	// Already there: a rerun does nothing.
	if log := mustGen(t, one, "-games", "5"); !strings.Contains(log, "reached already") || !bytes.Equal(readFile(t, one), a) {
		t.Errorf("rerun at the target changed the file or said\n%s", log)
	}
	// Another seed is other data, and a file is only continued with its own settings.
	var buf bytes.Buffer
	err := runGen(context.Background(), []string{"-out", one, "-nodes", "100", "-hash", "1", "-random-plies", "8", "-seed", "6", "-games", "6"}, &buf, nil)
	if err == nil || !strings.Contains(err.Error(), "other settings") {
		t.Errorf("continuing with another seed: %v", err)
	}
}

// A run stopped part-way (as by Ctrl-C or SIGTERM, which cancel the
// context) leaves whole games only, and rerunning the same command gives
// the same file as a run that was never stopped.
func TestGenResumeGivesSameData(t *testing.T) {
	dir := t.TempDir()
	whole, stopped := filepath.Join(dir, "whole.bin"), filepath.Join(dir, "stopped.bin")
	mustGen(t, whole, "-games", "10", "-threads", "2")

	// Stopped when the second game is written: the other thread's game is
	// in progress. Games are handed out at most 4 per thread ahead of the
	// file, so fewer than 10 can be there.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var log bytes.Buffer
	err := runGen(ctx, genArgs(stopped, "-games", "10", "-threads", "2"), &log, func(h nnuedata.Header) {
		if h.Games >= 2 {
			cancel()
		}
	})
	if err != nil {
		t.Fatalf("stopped run: %v\n%s", err, log.String())
	}
	h := header(t, stopped)
	size := int64(len(readFile(t, stopped)))
	if h.Games < 2 || h.Games >= 10 || size != nnuedata.HeaderSize+int64(h.Records)*nnuedata.RecordSize {
		t.Fatalf("after the stop: header %+v, %d bytes", h, size)
	}
	if !strings.Contains(log.String(), "stopped (rerun the same command to continue)") {
		t.Errorf("no stop message in\n%s", log.String())
	}
	full := readFile(t, whole)
	if part := readFile(t, stopped); !bytes.Equal(part[nnuedata.HeaderSize:], full[nnuedata.HeaderSize:size]) {
		t.Fatalf("the stopped run's %d games are not the first games of the whole run", h.Games)
	}

	if log := mustGen(t, stopped, "-games", "10", "-threads", "3"); !strings.Contains(log, fmt.Sprintf("holds %d games", h.Games)) {
		t.Errorf("no continuing message in\n%s", log)
	}
	if !bytes.Equal(readFile(t, stopped), full) {
		t.Fatal("stopped and resumed run differs from the uninterrupted one")
	}
}

// -positions stops at the first game that reaches the target: the file is
// the shortest run of whole games holding that many positions.
func TestGenPositionsTarget(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.bin")
	mustGen(t, whole, "-games", "6", "-threads", "2")
	hw := header(t, whole)
	target := hw.Records / 2
	byPos := filepath.Join(dir, "pos.bin")
	mustGen(t, byPos, "-positions", fmt.Sprint(target), "-threads", "2")
	h := header(t, byPos)
	if h.Records < target || h.Games == 0 || h.Games >= hw.Games {
		t.Fatalf("-positions %d: header %+v (whole run %+v)", target, h, hw)
	}
	fewer := filepath.Join(dir, "fewer.bin")
	mustGen(t, fewer, "-games", fmt.Sprint(h.Games-1), "-threads", "1")
	if hf := header(t, fewer); hf.Records >= target {
		t.Errorf("%d games already hold %d >= %d positions: -positions played one game too many", h.Games-1, hf.Records, target)
	}
	full, part := readFile(t, whole), readFile(t, byPos)
	if !bytes.Equal(part[nnuedata.HeaderSize:], full[nnuedata.HeaderSize:len(part)]) {
		t.Error("-positions run is not a prefix of the -games run")
	}
}

// TestConvertMatchesGen: the text lines of generated positions convert to
// the very records gen wrote; lines that cannot be used are counted.
func TestConvertMatchesGen(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "gen.bin")
	mustGen(t, bin, "-games", "3", "-threads", "1")
	r, err := nnuedata.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	var recs []nnuedata.Record
	var text strings.Builder
	text.WriteString("# a comment\n\n")
	for {
		var rec nnuedata.Record
		if err := r.Next(&rec); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		fen, err := rec.FEN()
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
		fmt.Fprintf(&text, "%s;%.1f;%d\n", fen, rec.Result().White(), rec.Score())
	}
	r.Close()
	text.WriteString("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1;0.5\n")          // no score
	text.WriteString("rnbqkbnr/ppppp2p/5p2/6pQ/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 3;1-0;900\n") // in check
	text.WriteString("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1;0.7;3\n")        // not a game result
	text.WriteString("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1;0.5;-1")         // still being written
	in := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(in, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "conv.bin")
	var log bytes.Buffer
	if err := run(context.Background(), []string{"convert", "-out", out, in}, io.Discard, &log); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%d positions from %d lines; left out: 1 without a score, 1 in check, 1 with a result other than 0, 1/2, 1, 1 cut-off last lines", len(recs), len(recs)+5)
	if !strings.Contains(log.String(), want) {
		t.Errorf("convert said %q, want %q", log.String(), want)
	}
	got, gen := readFile(t, out), readFile(t, bin)
	if h := header(t, out); h.Records != uint64(len(recs)) || h.Games != 0 || h.Settings != 0 {
		t.Errorf("converted header %+v", h)
	}
	if !bytes.Equal(got[nnuedata.HeaderSize:], gen[nnuedata.HeaderSize:]) {
		t.Error("converted records differ from the generated ones")
	}
	if err := run(context.Background(), []string{"convert", "-out", out, in}, io.Discard, io.Discard); err == nil {
		t.Error("convert over an existing file: no error")
	}
	if _, err := os.Stat(out + ".part"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temporary file left: %v", err)
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("not a fen;1-0;3\n"), 0o644)
	err = run(context.Background(), []string{"convert", "-out", filepath.Join(dir, "bad.bin"), bad}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "bad.txt:1") {
		t.Errorf("bad FEN: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("failed conversion left its output: %v", err)
	}
}

func TestStats(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "gen.bin")
	mustGen(t, bin, "-games", "2", "-threads", "1")
	h := header(t, bin)
	var out bytes.Buffer
	if err := run(context.Background(), []string{"stats", "-show", "3", bin}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		fmt.Sprintf("%d positions from 2 games", h.Records),
		"results (White's view): 1-0 ",
		"invalid records: 0\n",
		"  #0 ",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("stats output lacks %q:\n%s", want, s)
		}
	}
	if n := strings.Count(s, "; score "); n != 3 {
		t.Errorf("%d decoded positions, want 3:\n%s", n, s)
	}

	// A corrupt record is counted, a truncated file is an error (no panic).
	data := readFile(t, bin)
	data[nnuedata.HeaderSize+27] = 9 // result byte of record 0
	corrupt := filepath.Join(dir, "corrupt.bin")
	os.WriteFile(corrupt, data, 0o644)
	out.Reset()
	if err := run(context.Background(), []string{"stats", corrupt}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "invalid records: 1 (first: record 0: corrupt NNUE data: result byte 9)") {
		t.Errorf("corrupt record not reported:\n%s", out.String())
	}
	truncated := filepath.Join(dir, "truncated.bin")
	os.WriteFile(truncated, data[:len(data)-40], 0o644)
	err := run(context.Background(), []string{"stats", truncated}, io.Discard, io.Discard)
	if !errors.Is(err, nnuedata.ErrCorrupt) || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("truncated file: %v", err)
	}
}

func TestBadArguments(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{},
		{"nonsense"},
		{"gen"},
		{"gen", "-out", filepath.Join(dir, "a.bin"), "-threads", "0"},
		{"gen", "-out", filepath.Join(dir, "b.bin"), "-nodes", "0"},
		{"gen", "-out", filepath.Join(dir, "c.bin"), "-openings", filepath.Join(dir, "missing.epd")},
		{"gen", "-out", filepath.Join(dir, "d.bin"), "extra"},
		{"convert", "-out", filepath.Join(dir, "e.bin")},
		{"convert", filepath.Join(dir, "in.txt")},
		{"convert", "-out", filepath.Join(dir, "f.bin"), filepath.Join(dir, "missing.txt")},
		{"stats"},
		{"stats", filepath.Join(dir, "missing.bin")},
	} {
		if err := run(context.Background(), args, io.Discard, io.Discard); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}
