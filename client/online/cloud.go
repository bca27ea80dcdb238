package online

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

// Cloud asks the Lichess cloud evaluation (GET /api/cloud-eval) for
// MultiPV variations and plays the first move of the best one, or, with
// MaxCPLoss > 0, of one chosen at random among those within MaxCPLoss
// centipawns of the best. An evaluation shallower than MinDepth is no
// move.
type Cloud struct {
	Client    *lichess.Client
	MultiPV   int // variations asked for, 1 to 5 (< 1: 1)
	MinDepth  int
	MaxCPLoss int
}

func (c *Cloud) Name() string { return "cloud" }

func (c *Cloud) Applies(p Position) bool { return true }

// ServesChess960: the cloud evaluation is asked with variant=chess960 in
// a Chess960 game.
func (c *Cloud) ServesChess960() bool { return true }

// pvValue orders variations for the mover: a mate is worth more than any
// centipawn score, a faster mate more than a slower one.
func pvValue(cp, mate int) int {
	switch {
	case mate > 0:
		return 100000 - mate
	case mate < 0:
		return -100000 - mate
	}
	return cp
}

func (c *Cloud) Move(ctx context.Context, p Position) (Move, error) {
	variant := ""
	if p.Chess960 {
		variant = lichess.VariantChess960
	}
	ev, err := c.Client.CloudEval(ctx, p.FEN, max(c.MultiPV, 1), variant)
	if lichess.IsNotFound(err) {
		return Move{}, fmt.Errorf("cloud evaluation: %w (not in the cloud)", ErrNoMove)
	}
	if err != nil {
		return Move{}, err
	}
	if ev.Depth < c.MinDepth {
		return Move{}, fmt.Errorf("cloud evaluation: %w (depth %d, below %d)", ErrNoMove, ev.Depth, c.MinDepth)
	}
	sign := 1
	if !p.WhiteToMove() {
		sign = -1
	}
	type cand struct {
		m     Move
		value int
	}
	var cands []cand
	for _, pv := range ev.PVs {
		first, _, _ := strings.Cut(strings.TrimSpace(pv.Moves), " ")
		if first == "" {
			continue
		}
		m := Move{UCI: first, HasScore: true, Depth: ev.Depth}
		switch {
		case pv.Mate != nil:
			m.Mate = *pv.Mate * sign
		case pv.CP != nil:
			m.ScoreCP = *pv.CP * sign
		default:
			continue
		}
		cands = append(cands, cand{m, pvValue(m.ScoreCP, m.Mate)})
	}
	if len(cands) == 0 {
		return Move{}, fmt.Errorf("cloud evaluation: %w (no variation)", ErrNoMove)
	}
	best := cands[0].value
	for _, c := range cands[1:] {
		best = max(best, c.value)
	}
	var ok []Move
	for _, cd := range cands {
		if cd.value >= best-c.MaxCPLoss {
			ok = append(ok, cd.m)
		}
	}
	m := ok[0]
	if len(ok) > 1 {
		m = ok[rand.IntN(len(ok))]
	}
	m.Note = fmt.Sprintf("depth %d, %d knodes", ev.Depth, ev.Knodes)
	return m, nil
}
