package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/nnuedata"
	"github.com/ponderosa-chess/ponderosa/internal/tune"
)

// convertCounts tallies what a conversion kept and left out.
type convertCounts struct {
	lines, kept, noScore, inCheck, badResult, partial int
}

func runConvert(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "binary data file to create (required; it must not exist)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		return fmt.Errorf("convert: usage: datagen convert -out data.bin in.txt [in2.txt ...]")
	}
	if _, err := os.Stat(*out); err == nil {
		return fmt.Errorf("convert: %s exists; convert into a new file", *out)
	}
	tmp := *out + ".part"
	os.Remove(tmp) // a conversion killed earlier
	w, err := nnuedata.Create(tmp, 0)
	if err != nil {
		return fmt.Errorf("convert: %w", err)
	}
	var n convertCounts
	for _, in := range fs.Args() {
		if err = convertFile(ctx, in, w, &n); err != nil {
			break
		}
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, *out)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("convert: %w", err)
	}
	fmt.Fprintf(stderr, "convert: %s: %d positions from %d lines; left out: %d without a score, %d in check, %d with a result other than 0, 1/2, 1, %d cut-off last lines\n",
		*out, n.kept, n.lines, n.noScore, n.inCheck, n.badResult, n.partial)
	return nil
}

// convertFile appends the positions of one text file. A malformed line is
// an error, except an unterminated last line (a generator still writing).
func convertFile(ctx context.Context, path string, w *nnuedata.Writer, n *convertCounts) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	p := board.NewPosition()
	batch := make([]nnuedata.Record, 0, 4096)
	for lineNo := 1; ; lineNo++ {
		line, rerr := br.ReadString('\n')
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return fmt.Errorf("read %s: %w", path, rerr)
		}
		if rerr != nil && line != "" { // no newline: possibly half a line
			n.partial++
			break
		}
		if line == "" {
			break
		}
		n.lines++
		if lineNo%(1<<16) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		s, ok, err := tune.ParseLine(line)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, lineNo, err)
		}
		if !ok {
			continue
		}
		if !s.HasScore {
			n.noScore++
			continue
		}
		res, err := nnuedata.ResultFromWhite(s.Result)
		if err != nil {
			n.badResult++
			continue
		}
		if err := p.SetFEN(strings.TrimSpace(s.FEN)); err != nil {
			return fmt.Errorf("%s:%d: %w", path, lineNo, err)
		}
		if p.InCheck() {
			n.inCheck++
			continue
		}
		batch = append(batch, nnuedata.Encode(p, s.Score, res))
		n.kept++
		if len(batch) == cap(batch) {
			if err := w.Write(batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if err := w.Write(batch); err != nil {
		return err
	}
	return w.Commit()
}
