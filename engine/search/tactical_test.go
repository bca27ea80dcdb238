package search

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTacticalSolveRate searches the first 40 ECM positions to depth 8.
// The working search solves 21 (22 at depth 9); a blind search solves about
// 10 (this search at depth 5 solves 10), so a pruning or ordering bug that
// hides tactics fails the threshold.
func TestTacticalSolveRate(t *testing.T) {
	cases, err := loadEPD("testdata/ecm40.epd")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 40 {
		t.Fatalf("loaded %d positions", len(cases))
	}
	e := New(Options{HashMB: 16})
	solved := 0
	for _, c := range cases {
		e.NewGame()
		res := search(t, e, mustFEN(t, c.fen), Limits{Depth: 8})
		if c.solved(res.BestMove) {
			solved++
		}
	}
	t.Logf("solved %d/40 at depth 8", solved)
	if solved < 18 {
		t.Fatalf("solved %d/40 at depth 8, want >= 18", solved)
	}
}

// TestSuiteSolveRate measures solve rates at a fixed time per position:
//
//	PONDEROSA_TACTICAL=/path/a.epd,/path/b.epd PONDEROSA_TACTICAL_MS=1000 \
//	PONDEROSA_TACTICAL_THREADS=1 PONDEROSA_TACTICAL_MAX=0 go test ./engine/search -run TestSuiteSolveRate -v
//
// It prints, never asserts (timing depends on the machine).
func TestSuiteSolveRate(t *testing.T) {
	paths, ok := os.LookupEnv("PONDEROSA_TACTICAL")
	if !ok {
		t.Skip("set PONDEROSA_TACTICAL to EPD files")
	}
	ms, _ := strconv.Atoi(os.Getenv("PONDEROSA_TACTICAL_MS"))
	if ms <= 0 {
		ms = 1000
	}
	threads, _ := strconv.Atoi(os.Getenv("PONDEROSA_TACTICAL_THREADS"))
	limit, _ := strconv.Atoi(os.Getenv("PONDEROSA_TACTICAL_MAX")) // first N positions per file; 0 = all
	e := New(Options{HashMB: 64, Threads: max(threads, 1)})
	for _, path := range strings.Split(paths, ",") {
		cases, err := loadEPD(path)
		if err != nil {
			t.Fatal(err)
		}
		if limit > 0 && len(cases) > limit {
			cases = cases[:limit]
		}
		solved, total := 0, 0
		var nodes uint64
		var fails []string
		for _, c := range cases {
			if len(c.bm) == 0 && len(c.am) == 0 {
				continue
			}
			total++
			e.NewGame()
			res := search(t, e, mustFEN(t, c.fen), Limits{MoveTime: time.Duration(ms) * time.Millisecond})
			nodes += res.Nodes
			if c.solved(res.BestMove) {
				solved++
			} else {
				fails = append(fails, c.id)
			}
		}
		t.Logf("%s: %d/%d solved at %dms/position, %d nodes", filepath.Base(path), solved, total, ms, nodes)
		if testing.Verbose() && len(fails) > 0 {
			t.Log("unsolved: " + fmt.Sprint(fails))
		}
	}
}
