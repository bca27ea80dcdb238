// Package tune fits the evaluation weights of engine/eval to game results
// (Texel's method) and generates the self-play games that provide them.
// It is a tool, driven by cmd/tune: the engine never imports it, so it
// lives outside engine/.
package tune

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/eval"
)

// Sample is one labelled position: a FEN and the game result from White's
// point of view (1 win, 0.5 draw, 0 loss), and when known the search score
// of the player that reached it (centipawns, White's view).
type Sample struct {
	FEN      string
	Result   float64
	Score    int
	HasScore bool
}

// ParseLine reads "FEN;result" or "FEN;result;score" where result is 1-0,
// 0-1, 1/2-1/2, or a number in [0,1] and score is an integer. Blank lines
// and lines starting with '#' give ok=false and no error.
func ParseLine(line string) (s Sample, ok bool, err error) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return Sample{}, false, nil
	}
	parts := strings.Split(line, ";")
	if len(parts) < 2 || len(parts) > 3 {
		return Sample{}, false, fmt.Errorf("want FEN;result or FEN;result;score in %q", line)
	}
	if len(parts) == 3 {
		sc, err := strconv.Atoi(strings.TrimSpace(parts[2]))
		if err != nil {
			return Sample{}, false, fmt.Errorf("bad score %q in %q", parts[2], line)
		}
		s.Score, s.HasScore = sc, true
	}
	fen, res := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1])
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
	s.FEN, s.Result = fen, r
	return s, true, nil
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
	kd      []int16   // per position, 2·eval.NumKD king-danger features (White attacking, then Black)
	result  []float32 // the fit's target: the game result, or a blend (BlendTargets)
	score   []float32 // search score (White's view), NaN when unknown
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
		sc := float32(math.NaN())
		if smp.HasScore {
			sc = float32(smp.Score)
		}
		set.score = append(set.score, sc)
		for c := 0; c < 2; c++ {
			for _, f := range tr.KD[c] {
				set.kd = append(set.kd, int16(f))
			}
		}
	}
	return set
}

// BlendTargets replaces each target that has a search score by
// lambda·result + (1−lambda)·sigmoid(k·score): the game result says who won,
// the score says how the position looked to the search, and the mix is
// less noisy than either. lambda = 1 keeps pure game results (Texel).
func (s *Set) BlendTargets(lambda, k float64) {
	for i, sc := range s.score {
		if math.IsNaN(float64(sc)) {
			continue
		}
		s.result[i] = float32(lambda*float64(s.result[i]) + (1-lambda)*sigmoid(k, float64(sc)))
	}
}
