// Package tune fits the evaluation weights of engine/eval to game results
// (Texel's method) and generates the self-play games that provide them.
package tune

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/eval"
)

// Sample is one labelled position: a FEN and the game result from White's
// point of view (1 win, 0.5 draw, 0 loss).
type Sample struct {
	FEN    string
	Result float64
}

// ParseLine reads "FEN;result" where result is 1-0, 0-1, 1/2-1/2, or a
// number in [0,1]. Blank lines and lines starting with '#' give ok=false
// and no error.
func ParseLine(line string) (s Sample, ok bool, err error) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return Sample{}, false, nil
	}
	i := strings.LastIndexByte(line, ';')
	if i < 0 {
		return Sample{}, false, fmt.Errorf("no ';' separating FEN and result in %q", line)
	}
	fen, res := strings.TrimSpace(line[:i]), strings.TrimSpace(line[i+1:])
	var r float64
	switch res {
	case "1-0":
		r = 1
	case "0-1":
		r = 0
	case "1/2-1/2":
		r = 0.5
	default:
		r, err = strconv.ParseFloat(res, 64)
		if err != nil || r < 0 || r > 1 {
			return Sample{}, false, fmt.Errorf("bad result %q in %q", res, line)
		}
	}
	return Sample{FEN: fen, Result: r}, true, nil
}

// ReadSamples reads "FEN;result" lines.
func ReadSamples(r io.Reader) ([]Sample, error) {
	var out []Sample
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		s, ok, err := ParseLine(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if ok {
			out = append(out, s)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read samples: %w", err)
	}
	return out, nil
}

// entry is one nonzero trace coefficient.
type entry struct {
	idx  uint16
	coef int16
}

// Set is a traced data set: for each position, its nonzero coefficients,
// the middlegame and endgame multipliers, and the result.
type Set struct {
	entries []entry
	start   []int32 // position i uses entries[start[i]:start[i+1]]
	mgMul   []float32
	egMul   []float32
	kd      []int16 // per position, 2·eval.NumKD king-danger features (White attacking, then Black)
	result  []float32
	Skipped struct{ Parse, Check, NotQuiet, Drawn int }
}

// Len returns the number of positions in the set.
func (s *Set) Len() int { return len(s.result) }

// Build traces every sample. Positions in check, positions whose static
// evaluation differs from a capture-only search by more than quietMargin
// centipawns (use a negative margin to keep them all), and positions the
// evaluation scores as a material draw are left out and counted.
func Build(samples []Sample, quietMargin int) *Set {
	set := &Set{start: []int32{0}}
	ev := eval.NewEvaluator()
	q := newQSearcher(ev)
	var tr eval.Trace
	for _, smp := range samples {
		p, err := board.ParseFEN(smp.FEN)
		if err != nil {
			set.Skipped.Parse++
			continue
		}
		if p.InCheck() {
			set.Skipped.Check++
			continue
		}
		if quietMargin >= 0 {
			stat := ev.Evaluate(p)
			if qs := q.search(p, -infinity, infinity, 0); qs-stat > quietMargin || stat-qs > quietMargin {
				set.Skipped.NotQuiet++
				continue
			}
		}
		ev.Trace(p, &tr)
		if tr.Drawn {
			set.Skipped.Drawn++
			continue
		}
		for i, c := range tr.Coef {
			if c != 0 {
				set.entries = append(set.entries, entry{uint16(i), int16(c)})
			}
		}
		set.start = append(set.start, int32(len(set.entries)))
		set.mgMul = append(set.mgMul, float32(tr.Phase)/eval.MaxPhase)
		set.egMul = append(set.egMul, float32(eval.MaxPhase-tr.Phase)*float32(tr.Scale)/(eval.MaxPhase*eval.ScaleNormal))
		set.result = append(set.result, float32(smp.Result))
		for c := 0; c < 2; c++ {
			for _, f := range tr.KD[c] {
				set.kd = append(set.kd, int16(f))
			}
		}
	}
	return set
}
