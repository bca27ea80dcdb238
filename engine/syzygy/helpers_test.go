package syzygy

import (
	"bufio"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// epdCase is one line of python-chess's endgame.epd.
type epdCase struct {
	line     string
	fen      string
	wdlTable int
	wdl      int
	dtz      int
}

func readEPD(t testing.TB, path string) []epdCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []epdCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 5 {
			t.Fatalf("bad epd line %q", line)
		}
		c := epdCase{line: line, fen: strings.Join(fields[:4], " ") + " 0 1"}
		for _, op := range strings.Split(strings.Join(fields[4:], " "), ";") {
			kv := strings.Fields(op)
			if len(kv) != 2 {
				continue
			}
			n, err := strconv.Atoi(kv[1])
			if err != nil {
				t.Fatalf("bad operand in %q", line)
			}
			switch kv[0] {
			case "wdl_table":
				c.wdlTable = n
			case "wdl":
				c.wdl = n
			case "dtz":
				c.dtz = n
			}
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

func mustFEN(t testing.TB, fen string) *board.Position {
	t.Helper()
	p, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatalf("%s: %v", fen, err)
	}
	return p
}

func openTestdata(t testing.TB) *Tablebase {
	t.Helper()
	tb, err := Open("testdata")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.Close() })
	return tb
}

// sharedTables finds the full 3-4-piece set: $PONDEROSA_SYZYGY, or
// shared/data/tablebases/syzygy-3-4 in a directory above the checkout.
// Tests that need it skip without it.
func sharedTables(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("PONDEROSA_SYZYGY"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		c := filepath.Join(dir, "shared", "data", "tablebases", "syzygy-3-4")
		if st, err := os.Stat(c); err == nil && st.IsDir() {
			return c
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	t.Skip("no 3-4-piece Syzygy tables: set PONDEROSA_SYZYGY or put shared/data/tablebases/syzygy-3-4 above the checkout")
	return ""
}

// randomPosition places the pieces of a material (such as "KQvKR", first
// side White) at random, with a random side to move, until the position
// is legal (the side not to move is not in check, no pawns on the back
// ranks). With chance 1/4 it tries to give the side to move an
// en-passant capture (placing the two pawns when both sides have one).
func randomPosition(rng *rand.Rand, name string) *board.Position {
	count, ok := parseName(name)
	if !ok {
		panic("bad material " + name)
	}
	for {
		var sq [64]board.Piece
		bad := false
		stm := board.Color(rng.IntN(2))
		placed := count
		wantEP := rng.IntN(4) == 0
		if wantEP && count[board.WhitePawn] > 0 && count[board.BlackPawn] > 0 {
			// A pawn that has just made a double step and one beside it.
			them := stm.Other()
			f := rng.IntN(8)
			f2 := f + 1
			if f == 7 || (f > 0 && rng.IntN(2) == 0) {
				f2 = f - 1
			}
			r := 3
			if them == board.Black {
				r = 4
			}
			sq[board.MakeSquare(f, r)] = board.MakePiece(them, board.Pawn)
			sq[board.MakeSquare(f2, r)] = board.MakePiece(stm, board.Pawn)
			placed[board.MakePiece(them, board.Pawn)]--
			placed[board.MakePiece(stm, board.Pawn)]--
		}
		for pc, n := range placed {
			for i := 0; i < int(n); i++ {
				s := rng.IntN(64)
				if sq[s] != board.NoPiece {
					bad = true
				}
				if board.Piece(pc).Type() == board.Pawn && (s < 8 || s >= 56) {
					bad = true
				}
				sq[s] = board.Piece(pc)
			}
		}
		if bad {
			continue
		}
		ep := "-"
		if wantEP {
			// A pawn of the side not to move that has just made a double step.
			them := stm.Other()
			for s := 0; s < 64; s++ {
				if sq[s] != board.MakePiece(them, board.Pawn) || board.Square(s).RelativeRank(them) != 3 {
					continue
				}
				behind, start := s-8, s-16
				if them == board.Black {
					behind, start = s+8, s+16
				}
				if sq[behind] == board.NoPiece && sq[start] == board.NoPiece {
					ep = board.Square(behind).String()
					break
				}
			}
		}
		fen := fenOf(&sq, stm, ep)
		p, err := board.ParseFEN(fen)
		if err != nil {
			continue
		}
		// The side that has just moved must not be in check.
		if p.IsAttacked(p.KingSquare(stm.Other()), stm) {
			continue
		}
		return p
	}
}

func fenOf(sq *[64]board.Piece, stm board.Color, ep string) string {
	var b strings.Builder
	for r := 7; r >= 0; r-- {
		empty := 0
		for f := 0; f < 8; f++ {
			pc := sq[r*8+f]
			if pc == board.NoPiece {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteByte(byte('0' + empty))
				empty = 0
			}
			b.WriteString(pc.String())
		}
		if empty > 0 {
			b.WriteByte(byte('0' + empty))
		}
		if r > 0 {
			b.WriteByte('/')
		}
	}
	b.WriteString(" " + stm.String() + " - " + ep + " 0 1")
	return b.String()
}

// mirrorColours returns p with the board turned upside down and the
// colours (and the side to move) swapped: the same position for the
// tables.
func mirrorColours(t testing.TB, p *board.Position) *board.Position {
	var sq [64]board.Piece
	for s := board.A1; s <= board.H8; s++ {
		if pc := p.PieceOn(s); pc != board.NoPiece {
			sq[s.Flip()] = pc ^ 8
		}
	}
	ep := "-"
	if p.EPSquare() != board.NoSquare {
		ep = p.EPSquare().Flip().String()
	}
	return mustFEN(t, fenOf(&sq, p.SideToMove().Other(), ep))
}

// mirrorFiles returns p mirrored left-right (a <-> h).
func mirrorFiles(t testing.TB, p *board.Position) *board.Position {
	var sq [64]board.Piece
	for s := board.A1; s <= board.H8; s++ {
		sq[s^7] = p.PieceOn(s)
	}
	ep := "-"
	if p.EPSquare() != board.NoSquare {
		ep = (p.EPSquare() ^ 7).String()
	}
	return mustFEN(t, fenOf(&sq, p.SideToMove(), ep))
}
