package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/ponderosa-chess/ponderosa/internal/nnuedata"
)

func runStats(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("stats", flag.ContinueOnError)
	fs.SetOutput(stderr)
	show := fs.Int("show", 5, "decoded positions to print, spread evenly over the file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("stats: usage: datagen stats [-show N] data.bin ...")
	}
	for _, path := range fs.Args() {
		if err := statsFile(path, *show, stdout); err != nil {
			return fmt.Errorf("stats: %w", err)
		}
	}
	return nil
}

// statsFile reads every record of a file, checks it and prints the counts.
func statsFile(path string, show int, out io.Writer) error {
	r, err := nnuedata.Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	h := r.Header()
	fmt.Fprintf(out, "%s: format version %d, %d positions", path, nnuedata.Version, h.Records)
	if h.Games > 0 {
		fmt.Fprintf(out, " from %d games (%.1f a game)", h.Games, float64(h.Records)/float64(h.Games))
	}
	if h.Settings != 0 {
		fmt.Fprintf(out, ", generator settings %08x", h.Settings)
	} else {
		fmt.Fprintf(out, ", converted or merged data")
	}
	if t := r.Trailing(); t > 0 {
		fmt.Fprintf(out, ", %d bytes after the committed records (an interrupted writer's; ignored)", t)
	}
	fmt.Fprintln(out)

	var (
		rec                nnuedata.Record
		results            [3]uint64
		stm                [2]uint64
		scoreSum, absSum   [3]float64
		big                uint64
		pieces             [4]uint64 // 2–8, 9–16, 17–24, 25–32
		invalid            uint64
		firstInvalid       error
		shown              []string
		nextShow, showStep uint64
	)
	if show > 0 && h.Records > 0 {
		showStep = max(1, h.Records/uint64(show))
	}
	for i := uint64(0); ; i++ {
		err := r.Next(&rec)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if err := rec.Validate(); err != nil {
			invalid++
			if firstInvalid == nil {
				firstInvalid = fmt.Errorf("record %d: %w", i, err)
			}
			continue
		}
		res, sc := rec.Result(), float64(rec.Score())
		results[res]++
		stm[rec.SideToMove()]++
		scoreSum[res] += sc
		if sc < 0 {
			sc = -sc
		}
		absSum[res] += sc
		if sc >= 1000 {
			big++
		}
		pieces[(rec.Occupancy().Count()-1)/8]++
		if showStep > 0 && i == nextShow && len(shown) < show {
			fen, err := rec.FEN()
			if err != nil {
				fen = err.Error()
			}
			shown = append(shown, fmt.Sprintf("  #%-10d %s; score %+d; %s", i, fen, rec.Score(), rec.Result()))
			nextShow += showStep
		}
	}
	valid := h.Records - invalid
	pct := func(n uint64) float64 {
		if valid == 0 {
			return 0
		}
		return 100 * float64(n) / float64(valid)
	}
	mean := func(sum float64, n uint64) float64 {
		if n == 0 {
			return 0
		}
		return sum / float64(n)
	}
	fmt.Fprintf(out, "  results (White's view): 1-0 %d (%.1f%%), 1/2-1/2 %d (%.1f%%), 0-1 %d (%.1f%%)\n",
		results[2], pct(results[2]), results[1], pct(results[1]), results[0], pct(results[0]))
	fmt.Fprintf(out, "  side to move: White %d (%.1f%%), Black %d (%.1f%%)\n", stm[0], pct(stm[0]), stm[1], pct(stm[1]))
	allSum, allAbs := scoreSum[0]+scoreSum[1]+scoreSum[2], absSum[0]+absSum[1]+absSum[2]
	fmt.Fprintf(out, "  score (cp, White's view): mean %+.1f, mean |score| %.1f, |score| >= 1000 %.1f%%; mean by result: 1-0 %+.1f, 1/2-1/2 %+.1f, 0-1 %+.1f\n",
		mean(allSum, valid), mean(allAbs, valid), pct(big),
		mean(scoreSum[2], results[2]), mean(scoreSum[1], results[1]), mean(scoreSum[0], results[0]))
	fmt.Fprintf(out, "  pieces on the board: 2-8 %.1f%%, 9-16 %.1f%%, 17-24 %.1f%%, 25-32 %.1f%%\n",
		pct(pieces[0]), pct(pieces[1]), pct(pieces[2]), pct(pieces[3]))
	fmt.Fprintf(out, "  invalid records: %d", invalid)
	if firstInvalid != nil {
		fmt.Fprintf(out, " (first: %v)", firstInvalid)
	}
	fmt.Fprintln(out)
	if len(shown) > 0 {
		fmt.Fprintln(out, "  positions (FEN; score, White's view; result):")
		for _, s := range shown {
			fmt.Fprintln(out, s)
		}
	}
	return nil
}
