package uci

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/syzygy"
	"github.com/ponderosa-chess/ponderosa/ponder"
)

// TestTablebaseConversionVsStockfish plays won endings against Stockfish:
// PONDEROSA_TB_MATCH_N (default 50) random positions of KBNvK, KRvK and
// KQvKR that the side to move (the built-in engine, with the 3-4-piece
// tables of PONDEROSA_SYZYGY or shared/data/tablebases/syzygy-3-4 above
// the checkout) wins; both sides get PONDEROSA_TB_MATCH_MS (default 200)
// ms a move. Every game must end in mate before the fifty-move rule or a
// threefold repetition. A measurement, not a unit test: it runs only with
// PONDEROSA_TB_MATCH set to the Stockfish binary.
//
//	PONDEROSA_TB_MATCH=/usr/games/stockfish go test ./uci -run TablebaseConversionVsStockfish -v -timeout 60m
func TestTablebaseConversionVsStockfish(t *testing.T) {
	sf := os.Getenv("PONDEROSA_TB_MATCH")
	if sf == "" {
		t.Skip("set PONDEROSA_TB_MATCH to a Stockfish binary")
	}
	if _, err := exec.LookPath(sf); err != nil {
		t.Skipf("%s: %v", sf, err)
	}
	dir := os.Getenv("PONDEROSA_SYZYGY")
	if dir == "" {
		wd, _ := os.Getwd()
		for d := wd; filepath.Dir(d) != d; d = filepath.Dir(d) {
			if c := filepath.Join(d, "shared", "data", "tablebases", "syzygy-3-4"); dirExists(c) {
				dir = c
				break
			}
		}
	}
	if dir == "" {
		t.Skip("no 3-4-piece Syzygy tables")
	}
	games := envInt(t, "PONDEROSA_TB_MATCH_N", 50)
	ms := time.Duration(envInt(t, "PONDEROSA_TB_MATCH_MS", 200)) * time.Millisecond
	tb, err := syzygy.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	ctx := context.Background()
	opp, err := Start(ctx, sf, nil, map[string]string{"Threads": "1", "Hash": "16"}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer opp.Close()
	rng := rand.New(rand.NewPCG(2026, 1124))
	longest := 0
	for i := 0; i < games; i++ {
		material := []string{"KBNvK", "KRvK", "KQvKR"}[i%3]
		fen := wonPosition(t, rng, tb, material)
		g := ponder.NewGame(ponder.Options{HashMB: 16, Threads: 1, Tablebase: tb, TablebaseProbeDepth: 1})
		if err := opp.NewGame(ctx); err != nil {
			t.Fatal(err)
		}
		pos, _ := board.ParseFEN(fen)
		ours := pos.SideToMove()
		var moves []string
		for {
			var ml board.MoveList
			pos.GenerateLegal(&ml)
			if ml.N == 0 {
				if !pos.InCheck() || pos.SideToMove() == ours {
					t.Errorf("game %d from %s: ends without our mate after %v", i, fen, moves)
				}
				break
			}
			if pos.HalfmoveClock() >= 100 || pos.RepetitionCount() >= 2 {
				t.Errorf("game %d from %s: drawn (fifty moves or repetition) after %v", i, fen, moves)
				break
			}
			var mv string
			if pos.SideToMove() == ours {
				if err := g.SetPosition(fen, false, moves); err != nil {
					t.Fatal(err)
				}
				d, err := g.Think(ctx, ponder.ThinkLimits{MoveTime: ms}, nil)
				if err != nil {
					t.Fatal(err)
				}
				mv = d.UCI
			} else {
				if err := opp.Position(fen, moves); err != nil {
					t.Fatal(err)
				}
				r, err := opp.Go(ctx, GoLimits{MoveTime: ms, Deadline: ms + 5*time.Second})
				if err != nil {
					t.Fatal(err)
				}
				mv = r.BestMove
			}
			m, err := pos.ParseUCIMove(mv)
			if err != nil {
				t.Fatalf("game %d: move %q: %v", i, mv, err)
			}
			pos.MakeMove(m)
			moves = append(moves, mv)
		}
		g.Close()
		longest = max(longest, len(moves))
		t.Logf("game %d %s %s: %d plies", i, material, fen, len(moves))
	}
	t.Logf("%d games, longest %d plies", games, longest)
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q", name, s)
	}
	return n
}

// wonPosition places the material at random (colours at random) until the
// side to move wins by the tables.
func wonPosition(t *testing.T, rng *rand.Rand, tb *syzygy.Tablebase, material string) string {
	t.Helper()
	for {
		var sq [64]byte
		ok := true
		strong := rng.IntN(2) == 0 // White is the stronger side
		side := 0
		for _, ch := range material {
			if ch == 'v' {
				side = 1
				continue
			}
			c := byte(ch)
			if (side == 0) != strong {
				c += 'a' - 'A'
			}
			s := rng.IntN(64)
			if sq[s] != 0 {
				ok = false
			}
			sq[s] = c
		}
		if !ok {
			continue
		}
		fen := ""
		for r := 7; r >= 0; r-- {
			empty := 0
			for f := 0; f < 8; f++ {
				if c := sq[r*8+f]; c != 0 {
					if empty > 0 {
						fen += strconv.Itoa(empty)
						empty = 0
					}
					fen += string(c)
				} else {
					empty++
				}
			}
			if empty > 0 {
				fen += strconv.Itoa(empty)
			}
			if r > 0 {
				fen += "/"
			}
		}
		if strong {
			fen += " w - - 0 1"
		} else {
			fen += " b - - 0 1"
		}
		p, err := board.ParseFEN(fen)
		if err != nil {
			continue
		}
		if w, err := tb.ProbeWDL(p); err == nil && w == syzygy.Win {
			return fen
		}
	}
}
