package ponder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// selfPlayResult is what selfPlay saw of one game.
type selfPlayResult struct {
	plies     int
	ended     string // why the game ended ("" when it did not)
	thinkErrs []error
	err       error // a broken rule: illegal move, Play refused
}

// selfPlay plays g against itself from fen until the game ends
// (board.Position.GameOver; maxPlies only bounds a broken test), checking
// every move against its own board. A Think error is answered like a front end does: the first legal
// move is played instead (the fallback path). With ponder, StartPonder
// runs after each move, and afterPonder (if set) is called after it.
func selfPlay(g *Game, fen string, lim ThinkLimits, ponder bool, afterPonder func(ply int)) selfPlayResult {
	const maxPlies = 300
	var out selfPlayResult
	pos, err := board.ParseFEN(fen)
	if err != nil {
		out.err = err
		return out
	}
	if err := g.SetPosition(fen, false, nil); err != nil {
		out.err = fmt.Errorf("set position: %w", err)
		return out
	}
	for out.plies = 0; out.plies < maxPlies; out.plies++ {
		var ml board.MoveList
		pos.GenerateLegal(&ml)
		if out.ended = pos.GameOver(); out.ended != "" {
			return out
		}
		d, err := g.Think(context.Background(), lim, nil)
		move := d.UCI
		if err != nil {
			out.thinkErrs = append(out.thinkErrs, err)
			move = pos.MoveToUCI(ml.Moves[0])
		}
		m, perr := pos.ParseUCIMove(move)
		if perr != nil || !pos.IsLegal(m) {
			out.err = fmt.Errorf("ply %d: %q is not a legal move (think error %v)", out.plies, move, err)
			return out
		}
		if err := g.Play(move); err != nil {
			out.err = fmt.Errorf("ply %d: play %s: %w", out.plies, move, err)
			return out
		}
		pos.MakeMove(m)
		if ponder {
			g.StartPonder(context.Background())
			if afterPonder != nil {
				afterPonder(out.plies + 1)
			}
		}
	}
	return out
}

// A panic in one of two running games' search (injected through
// Options.afterIteration, which runs on the search goroutine) ends neither
// the process nor the other game: it is logged with its stack, the Think
// waiting on it returns a *SearchPanic (the fallback move is played), the
// game's tree and table start afresh, and both games are played to their
// end with legal moves. A panic in a background ponder search is the same,
// with no Think to fail: the next Think searches afresh.
func TestSearchPanicOneGameOfTwo(t *testing.T) {
	// King, queen and rook against a lone king: a short game that ends.
	const fen = "8/8/8/4k3/8/8/8/KQR5 w - - 0 1"
	lim := ThinkLimits{Depth: 5}
	for _, tc := range []struct {
		name      string
		ponder    bool
		inject    func(it iteration) bool // panic at the first such iteration
		thinkErrs int
	}{
		{"search", false, func(it iteration) bool { return it.ply >= 2 && !it.pondering && it.info.Depth >= 2 }, 1},
		{"ponder", true, func(it iteration) bool { return it.ply >= 2 && it.pondering }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs testsupport.SyncBuffer
			var fired atomic.Bool
			broken := newTestGame(t, Options{Threads: 2, Ponder: tc.ponder, Logger: zerolog.New(&logs),
				afterIteration: func(it iteration) {
					if tc.inject(it) && fired.CompareAndSwap(false, true) {
						panic("injected search panic")
					}
				}})
			healthy := newTestGame(t, Options{Threads: 2, Ponder: tc.ponder})

			// From ply 2 on, a ponder search of the broken game panics at
			// its first iteration: wait for that before thinking on, so
			// that no Think converts it first.
			waitPanic := func(ply int) {
				for ply >= 2 && broken.Pondering() && broken.Stats().SearchPanics == 0 {
					time.Sleep(time.Millisecond)
				}
			}
			var res [2]selfPlayResult
			testsupport.PlayBoth(t, [2]string{"broken", "healthy"}, func(i int) testsupport.GameEnd {
				if i == 0 {
					res[0] = selfPlay(broken, fen, lim, tc.ponder, waitPanic)
				} else {
					res[1] = selfPlay(healthy, fen, lim, tc.ponder, nil)
				}
				return testsupport.GameEnd{Plies: res[i].plies, Ended: res[i].ended, Err: res[i].err}
			})

			if !fired.Load() {
				t.Fatal("the panic was never injected")
			}
			if got := len(res[0].thinkErrs); got != tc.thinkErrs {
				t.Fatalf("broken game: %d Think errors %v, want %d", got, res[0].thinkErrs, tc.thinkErrs)
			}
			for _, err := range res[0].thinkErrs {
				var sp *SearchPanic
				if !errors.As(err, &sp) || sp.Value != "injected search panic" {
					t.Errorf("Think error %v is not the SearchPanic of the injected panic", err)
				}
			}
			if len(res[1].thinkErrs) > 0 {
				t.Errorf("healthy game: Think errors %v", res[1].thinkErrs)
			}
			if got := broken.Stats().SearchPanics; got != 1 {
				t.Errorf("broken game: SearchPanics = %d, want 1", got)
			}
			if got := healthy.Stats().SearchPanics; got != 0 {
				t.Errorf("healthy game: SearchPanics = %d, want 0", got)
			}
			// The panic is logged at error level with its stack and ply.
			var logged bool
			for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
				var ev map[string]any
				if json.Unmarshal([]byte(line), &ev) != nil || ev["level"] != "error" {
					continue
				}
				stack, _ := ev["stack"].(string)
				ply, _ := ev["ply"].(float64)
				if ev["panic"] == "injected search panic" && ply >= 2 &&
					strings.Contains(stack, "TestSearchPanicOneGameOfTwo") {
					logged = true
				}
			}
			if !logged {
				t.Errorf("no error log with the panic, its ply and stack:\n%s", logs.String())
			}
		})
	}
}
