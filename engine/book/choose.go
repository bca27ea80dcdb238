package book

import (
	"fmt"
	"math/rand"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// Method is how Choose picks among a position's book moves.
type Method int

// The selection methods.
const (
	// WeightedRandom picks a move with probability weight/total.
	WeightedRandom Method = iota
	// UniformRandom picks each move with the same probability.
	UniformRandom
	// BestMove picks the move with the highest weight (the first in the
	// file among equals).
	BestMove
)

// String returns the configuration name of the method.
func (m Method) String() string {
	switch m {
	case WeightedRandom:
		return "weighted_random"
	case UniformRandom:
		return "uniform_random"
	case BestMove:
		return "best_move"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// ParseMethod reads "weighted_random", "uniform_random" or "best_move".
func ParseMethod(s string) (Method, error) {
	for _, m := range []Method{WeightedRandom, UniformRandom, BestMove} {
		if s == m.String() {
			return m, nil
		}
	}
	return 0, fmt.Errorf("book selection %q: want weighted_random, uniform_random or best_move", s)
}

// Options say how to choose a book move.
type Options struct {
	Method Method
	// MinWeight drops moves whose weight is below it. A move of weight 0
	// is never chosen, whatever MinWeight and Method: Polyglot books store
	// weight 0 for a move that is known but not to be played.
	MinWeight int
	// MaxDepth is the last ply (counted from the start of the game, the
	// first move being ply 1) at which the book is asked; 0 means no limit.
	MaxDepth int
}

// Choose returns a book move for p from the first of books that has one
// left after the MinWeight filter (weight 0 is never played), chosen by
// opt.Method with rng (which must not be nil for the random methods). ply is the number of plies already
// played in the game (0 before White's first move); when ply+1 > MaxDepth,
// no book is asked. ok is false when no book has a move.
func Choose(books []*Book, p *board.Position, ply int, opt Options, rng *rand.Rand) (m Move, from *Book, ok bool) {
	if opt.MaxDepth > 0 && ply+1 > opt.MaxDepth {
		return Move{}, nil, false
	}
	for _, b := range books {
		if b == nil {
			continue
		}
		if m, ok := Pick(b.Moves(p), opt, rng); ok {
			return m, b, true
		}
	}
	return Move{}, nil, false
}

// Has reports whether Choose would find a move for p at ply, without
// drawing one (rng is not used): a caller can get ready for a book move, and
// then choose it.
func Has(books []*Book, p *board.Position, ply int, opt Options) bool {
	if opt.MaxDepth > 0 && ply+1 > opt.MaxDepth {
		return false
	}
	for _, b := range books {
		if b == nil {
			continue
		}
		for _, m := range b.Moves(p) {
			if playable(m, opt) {
				return true
			}
		}
	}
	return false
}

// playable reports whether Pick may choose m: a positive weight of at
// least opt.MinWeight.
func playable(m Move, opt Options) bool {
	return m.Weight > 0 && m.Weight >= opt.MinWeight
}

// Pick chooses one of moves (those of one position) by opt.Method after the
// MinWeight filter; moves of weight 0 (known, not to be played) are never
// chosen, by any method. MaxDepth is not looked at. ok is false when no move
// is left.
func Pick(moves []Move, opt Options, rng *rand.Rand) (Move, bool) {
	var kept []Move
	total := 0
	for _, m := range moves {
		if !playable(m, opt) {
			continue
		}
		kept = append(kept, m)
		total += m.Weight
	}
	if len(kept) == 0 {
		return Move{}, false
	}
	switch opt.Method {
	case UniformRandom:
		return kept[rng.Intn(len(kept))], true
	case BestMove:
		best := kept[0]
		for _, m := range kept[1:] {
			if m.Weight > best.Weight {
				best = m
			}
		}
		return best, true
	default:
		r := rng.Intn(total)
		for _, m := range kept {
			if r < m.Weight {
				return m, true
			}
			r -= m.Weight
		}
		return kept[len(kept)-1], true // not reached: r < total
	}
}
