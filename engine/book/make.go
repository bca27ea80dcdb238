package book

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// MakeOptions are the filters of Maker.
type MakeOptions struct {
	// MaxPly: only the first MaxPly moves of each game are counted (ply 1 is
	// White's first move); 0 means no limit.
	MaxPly int
	// MinGames drops a move played in fewer games than this in a position.
	MinGames int
	// MinScore drops a move whose score for the side that played it,
	// (wins + draws/2) / games, is below this (0 to 1).
	MinScore float64
}

// counts are the results of one move in one position, for the side that
// played it.
type counts struct{ wins, draws, losses int }

func (c counts) games() int { return c.wins + c.draws + c.losses }

// Maker builds a Polyglot book from game records: for every position up to
// MaxPly it counts each move's results for the side that played it (a game
// counts once per position and move, even if the position repeats).
//
// Weight formula: a kept move's weight is 2*wins + draws (its score in half
// points). Weights are stored in 16 bits, so they are scaled per position:
// in a position whose largest weight exceeds 65535, every weight is
// multiplied by 65535/largest and rounded, with 1 as the least; the
// proportions within that position stay as counted (but for rounding and a
// rare move lifted to 1). Every other position keeps its raw weights, so a
// rarely reached position is not flattened by the book's most played one.
// Weights are therefore comparable within a position, not across positions
// that were scaled (a min_weight at choosing time is, in those, relative to
// 65535 for the position's best move). Moves whose weight is 0 (lost in
// every game) are left out, as are moves below MinGames or MinScore.
type Maker struct {
	opt   MakeOptions
	stats map[uint64]map[uint16]*counts
	games int                // games counted
	seen  map[[2]uint64]bool // (key, move) pairs of the game being counted
}

// NewMaker returns an empty Maker.
func NewMaker(opt MakeOptions) *Maker {
	return &Maker{opt: opt, stats: map[uint64]map[uint16]*counts{}, seen: map[[2]uint64]bool{}}
}

// Games returns how many games were counted.
func (mk *Maker) Games() int { return mk.games }

// Positions returns how many different positions have at least one move.
func (mk *Maker) Positions() int { return len(mk.stats) }

// AddGame counts the moves of g. A game without a decisive or drawn result
// ("*") or of a variant other than standard chess or Chess960 is not
// counted (counted is false, err nil). A broken game (Game.Broken), or a
// move that cannot be read or is illegal, gives an error, and then none of
// the game's moves are counted.
func (mk *Maker) AddGame(g *Game) (counted bool, err error) {
	if g.Broken != "" {
		return false, fmt.Errorf("game at line %d: %s", g.Line, g.Broken)
	}
	var white float64 // White's score
	switch g.Result {
	case "1-0":
		white = 1
	case "0-1":
		white = 0
	case "1/2-1/2":
		white = 0.5
	default:
		return false, nil
	}
	switch strings.ToLower(g.Tags["Variant"]) {
	case "", "standard", "chess960", "fischerandom", "from position":
	default:
		return false, nil
	}
	p := board.NewPosition()
	if fen := g.Tags["FEN"]; fen != "" {
		if err := p.SetFEN(fen); err != nil {
			return false, fmt.Errorf("game at line %d: FEN tag: %w", g.Line, err)
		}
	}
	n := len(g.Moves)
	if mk.opt.MaxPly > 0 && n > mk.opt.MaxPly {
		n = mk.opt.MaxPly
	}
	type played struct {
		key  uint64
		move uint16
		side board.Color
	}
	moves := make([]played, 0, n)
	for i, san := range g.Moves[:n] {
		m, err := p.ParseSAN(san)
		if err != nil {
			return false, fmt.Errorf("game at line %d, ply %d: %w", g.Line, i+1, err)
		}
		moves = append(moves, played{Key(p), EncodeMove(m), p.SideToMove()})
		p.MakeMove(m)
	}
	clear(mk.seen)
	for _, pl := range moves {
		id := [2]uint64{pl.key, uint64(pl.move)}
		if mk.seen[id] {
			continue
		}
		mk.seen[id] = true
		byMove := mk.stats[pl.key]
		if byMove == nil {
			byMove = map[uint16]*counts{}
			mk.stats[pl.key] = byMove
		}
		c := byMove[pl.move]
		if c == nil {
			c = &counts{}
			byMove[pl.move] = c
		}
		score := white
		if pl.side == board.Black {
			score = 1 - white
		}
		switch score {
		case 1:
			c.wins++
		case 0:
			c.losses++
		default:
			c.draws++
		}
	}
	mk.games++
	return true, nil
}

// Entries returns the book: the moves that pass the filters, weighted by the
// formula of Maker, sorted by key and, within a key, by weight (highest
// first) then move.
func (mk *Maker) Entries() []Entry {
	type kept struct {
		key    uint64
		move   uint16
		weight int // 2*wins + draws, before scaling
	}
	var ks []kept
	largest := map[uint64]int{} // per position
	for key, byMove := range mk.stats {
		for move, c := range byMove {
			g := c.games()
			w := 2*c.wins + c.draws
			if g < mk.opt.MinGames || float64(w) < 2*mk.opt.MinScore*float64(g) || w == 0 {
				continue
			}
			ks = append(ks, kept{key, move, w})
			largest[key] = max(largest[key], w)
		}
	}
	out := make([]Entry, len(ks))
	for i, k := range ks {
		w := k.weight
		if l := int64(largest[k.key]); l > 65535 {
			w = max(1, int((int64(w)*65535+l/2)/l))
		}
		out[i] = Entry{Key: k.key, Move: k.move, Weight: uint16(w)}
	}
	slices.SortFunc(out, func(a, b Entry) int {
		switch {
		case a.Key != b.Key:
			if a.Key < b.Key {
				return -1
			}
			return 1
		case a.Weight != b.Weight:
			return int(b.Weight) - int(a.Weight)
		}
		return int(a.Move) - int(b.Move)
	})
	return out
}

// Write writes entries, which must be sorted by key, as a Polyglot file.
func Write(w io.Writer, entries []Entry) error {
	bw := bufio.NewWriter(w)
	var buf [EntrySize]byte
	var prev uint64
	for i, e := range entries {
		if e.Key < prev {
			return fmt.Errorf("writing book: entry %d is out of key order", i)
		}
		prev = e.Key
		binary.BigEndian.PutUint64(buf[0:], e.Key)
		binary.BigEndian.PutUint16(buf[8:], e.Move)
		binary.BigEndian.PutUint16(buf[10:], e.Weight)
		binary.BigEndian.PutUint32(buf[12:], e.Learn)
		if _, err := bw.Write(buf[:]); err != nil {
			return fmt.Errorf("writing book: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing book: %w", err)
	}
	return nil
}
