package search

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// TestFeatureMatch plays a self-play match between the full search (A) and
// the search with one technique switched off (B), at a fixed node budget
// per move, each opening played with both colours:
//
//	PONDEROSA_MATCH=openings.epd PONDEROSA_MATCH_GAMES=100 PONDEROSA_MATCH_NODES=20000 \
//	PONDEROSA_MATCH_OFF=razor go test ./engine/search -run TestFeatureMatch -v -timeout 60m
//
// It prints the score of A; it asserts nothing (a measuring tool).
func TestFeatureMatch(t *testing.T) {
	path, ok := os.LookupEnv("PONDEROSA_MATCH")
	if !ok {
		t.Skip("set PONDEROSA_MATCH to an EPD/FEN opening file")
	}
	games, _ := strconv.Atoi(os.Getenv("PONDEROSA_MATCH_GAMES"))
	if games <= 0 {
		games = 20
	}
	nodes, _ := strconv.Atoi(os.Getenv("PONDEROSA_MATCH_NODES"))
	if nodes <= 0 {
		nodes = 20000
	}
	off := map[string]*bool{}
	fb := features{}
	for name, p := range map[string]*bool{"rfp": &fb.noRFP, "razor": &fb.noRazor, "null": &fb.noNull, "iir": &fb.noIIR,
		"singular": &fb.noSingular, "lmp": &fb.noLMP, "futility": &fb.noFutility, "see": &fb.noSEEPrune,
		"lmr": &fb.noLMR, "checkext": &fb.noCheckExt, "delta": &fb.noDelta, "aspiration": &fb.noAspiration,
		"qchecks": &fb.noQChecks} {
		off[name] = p
	}
	for _, name := range strings.Split(os.Getenv("PONDEROSA_MATCH_OFF"), ",") {
		if p, ok := off[name]; ok {
			*p = true
		} else if name != "" {
			t.Fatalf("unknown feature %q", name)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var openings []string
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(openings)*2 < games {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 4 && !strings.HasPrefix(fields[0], "#") {
			openings = append(openings, strings.Join(fields[:4], " ")+" 0 1")
		}
	}
	a, b := New(Options{HashMB: 16}), New(Options{HashMB: 16})
	b.feat = fb
	var wins, losses, draws int
	for i := 0; i < games; i++ {
		fen := openings[(i/2)%len(openings)]
		aWhite := i%2 == 0
		r := playGame(t, fen, a, b, aWhite, uint64(nodes))
		switch {
		case r == 0:
			draws++
		case (r > 0) == aWhite:
			wins++
		default:
			losses++
		}
	}
	score := (float64(wins) + float64(draws)/2) / float64(games)
	t.Logf("A (all on) vs B (off: %s), %d nodes/move: +%d =%d -%d, A scores %.1f%%",
		os.Getenv("PONDEROSA_MATCH_OFF"), nodes, wins, draws, losses, 100*score)
}

// playGame returns +1 if White wins, -1 if Black wins, 0 for a draw.
func playGame(t *testing.T, fen string, a, b *Engine, aWhite bool, nodes uint64) int {
	p, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatalf("opening %q: %v", fen, err)
	}
	a.NewGame()
	b.NewGame()
	for ply := 0; ply < 300; ply++ {
		if !p.HasLegalMoves() {
			if p.InCheck() {
				if p.SideToMove() == board.White {
					return -1
				}
				return 1
			}
			return 0
		}
		if p.IsRepetition(0) || p.HalfmoveClock() >= 100 || p.IsInsufficientMaterial() {
			return 0
		}
		e := b
		if (p.SideToMove() == board.White) == aWhite {
			e = a
		}
		res := e.Search(context.Background(), p, Limits{Nodes: nodes}, nil, nil)
		// Adjudicate clear results to save time.
		if res.Mate != 0 || res.Score > 1500 || res.Score < -1500 {
			if (res.Score > 0) == (p.SideToMove() == board.White) {
				return 1
			}
			return -1
		}
		p.MakeMove(res.BestMove)
	}
	return 0
}
