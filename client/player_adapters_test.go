package client

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	chessboard "github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
	"github.com/ponderosa-chess/ponderosa/ponder"
	"github.com/ponderosa-chess/ponderosa/uci"
)

// Tests of the Player adapters: the built-in engine (ponder over engine)
// and an external UCI engine, here the test binary itself run as a small
// UCI engine (TestMain, the legal mode of testsupport's fake engine) that
// plays the first legal move.

func TestMain(m *testing.M) { testsupport.Main(m, nil) }

// legalIn reports whether move is legal after moves from the start.
func legalIn(t *testing.T, moves []string, move string) bool {
	t.Helper()
	p := chessboard.NewPosition()
	for _, s := range moves {
		m, err := p.ParseUCIMove(s)
		if err != nil {
			t.Fatalf("bad test line %v: %v", moves, err)
		}
		p.MakeMove(m)
	}
	m, err := p.ParseUCIMove(move)
	return err == nil && p.IsLegal(m)
}

func limitsIn(d time.Duration, white bool) MoveClock {
	return MoveClock{WTime: time.Minute, BTime: time.Minute, White: white, Running: true, Deadline: time.Now().Add(d)}
}

// playAsWhite plays p's moves as White in its game, one per reply: the
// position, then Think (check sees each choice, with the moves before
// it), then the position with our move and Ponder, then the reply (the
// first legal move where a reply is not legal).
func playAsWhite(t *testing.T, p Player, replies []string, check func(i int, moves []string, d Choice)) {
	t.Helper()
	ctx := context.Background()
	var moves []string
	for i, reply := range replies {
		if err := p.Position(ctx, moves); err != nil {
			t.Fatal(err)
		}
		d, err := p.Think(ctx, limitsIn(5*time.Second, true))
		if err != nil {
			t.Fatalf("move %d: %v", i, err)
		}
		check(i, moves, d)
		moves = append(moves, d.Move)
		if err := p.Position(ctx, moves); err != nil {
			t.Fatal(err)
		}
		if err := p.Ponder(ctx); err != nil {
			t.Fatalf("ponder: %v", err)
		}
		if !legalIn(t, moves, reply) {
			reply = firstLegal(t, moves)
		}
		moves = append(moves, reply)
	}
}

func TestBuiltinPlayerGame(t *testing.T) {
	ctx := context.Background()
	var logs testsupport.SyncBuffer
	f := NewBuiltinPlayer(BuiltinOptions{HashMB: 4, TreeMB: 4, Ponder: true, MaxDepth: 4, Seed: 1, Logger: zerolog.New(&logs)})
	p, err := f(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.NewGame(ctx, GameInfo{ID: "g1", White: true, Opponent: "x"}); err != nil {
		t.Fatal(err)
	}
	replies := []string{"e7e5", "b8c6", "g8f6"}
	playAsWhite(t, p, replies, func(i int, moves []string, d Choice) {
		if !legalIn(t, moves, d.Move) {
			t.Fatalf("move %d: illegal %q after %v", i, d.Move, moves)
		}
		if !d.HasScore || d.Depth < 1 || len(d.PV) == 0 || d.PV[0] != d.Move {
			t.Errorf("move %d: decision without search data: %+v", i, d)
		}
	})
	if err := p.EndGame(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Think(ctx, limitsIn(time.Second, true)); err == nil {
		t.Error("Think after Close succeeded")
	}
	// One stats line per move of ours, on the game's logger.
	if n := strings.Count(logs.String(), `"game":"g1","opponent":"x","ply":`); n < len(replies) {
		t.Errorf("%d game log lines, want at least %d:\n%s", n, len(replies), logs.String())
	}
	if n := strings.Count(logs.String(), `"message":"move stats"`); n != len(replies) {
		t.Errorf("%d move stats lines, want %d:\n%s", n, len(replies), logs.String())
	}
}

func firstLegal(t *testing.T, moves []string) string {
	p := chessboard.NewPosition()
	for _, s := range moves {
		m, _ := p.ParseUCIMove(s)
		p.MakeMove(m)
	}
	var ml chessboard.MoveList
	p.GenerateLegal(&ml)
	if ml.N == 0 {
		t.Fatal("no legal move")
	}
	return p.MoveToUCI(ml.Moves[0])
}

// The deadline is kept even when the clock would allow a long think: the
// worker stops waiting at the deadline.
func TestBuiltinPlayerMeetsDeadline(t *testing.T) {
	ctx := context.Background()
	p, _ := NewBuiltinPlayer(BuiltinOptions{HashMB: 4, Logger: testsupport.Logger(t)})(ctx)
	defer p.Close()
	if err := p.NewGame(ctx, GameInfo{ID: "g", White: false}); err != nil {
		t.Fatal(err)
	}
	moves := []string{"e2e4"}
	if err := p.Position(ctx, moves); err != nil {
		t.Fatal(err)
	}
	lim := MoveClock{WTime: time.Hour, BTime: time.Hour, White: false, Running: true, Deadline: time.Now().Add(300 * time.Millisecond)}
	d, err := p.Think(ctx, lim)
	if err != nil {
		t.Fatal(err)
	}
	if time.Now().After(lim.Deadline) {
		t.Errorf("answered after the deadline")
	}
	if !legalIn(t, moves, d.Move) {
		t.Errorf("illegal move %q", d.Move)
	}
}

// The built-in player hands ponder our clock as the time left until the
// deadline (ponder's PlanMove owns the budget) and stops the search
// stopMargin before the deadline at the latest.
func TestBuiltinLimits(t *testing.T) {
	now := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	c := MoveClock{WTime: time.Minute, BTime: 30 * time.Second, WInc: time.Second, BInc: 2 * time.Second,
		White: true, Running: true, Deadline: now.Add(10 * time.Second)}
	lim, stopAt := builtinLimits(c, 5, now)
	want := ponder.ThinkLimits{WTime: 10 * time.Second, BTime: 30 * time.Second, WInc: time.Second, BInc: 2 * time.Second, Depth: 5}
	if !reflect.DeepEqual(lim, want) || !stopAt.Equal(now.Add(10*time.Second-150*time.Millisecond)) {
		t.Errorf("running clocks: %+v stop at %v, want %+v stop 150ms before the deadline", lim, stopAt.Sub(now), want)
	}
	c.Running, c.MoveTime = false, 2*time.Second
	if lim, _ = builtinLimits(c, 0, now); lim.MoveTime != 2*time.Second || ponder.PlanMove(lim, true, 0, 0).Hard != 2*time.Second {
		t.Errorf("first move: %+v, want the fixed 2s move time", lim)
	}
	// The margin is a safety net only: from any clock worth planning on,
	// ponder's hard limit ends before it.
	for left := 100 * time.Millisecond; left < 10*time.Minute; left = left * 5 / 4 {
		for _, inc := range []time.Duration{0, time.Second, 10 * time.Second} {
			c := MoveClock{WTime: time.Hour, BTime: time.Hour, WInc: inc, BInc: inc, White: false, Running: true, Deadline: now.Add(left)}
			lim, stopAt := builtinLimits(c, 0, now)
			if hard := ponder.PlanMove(lim, false, 0, 0).Hard; now.Add(hard).After(stopAt) {
				t.Fatalf("left %v inc %v: ponder's hard limit %v passes the stop at %v", left, inc, hard, stopAt.Sub(now))
			}
		}
	}
	if _, stopAt := builtinLimits(MoveClock{WTime: time.Second}, 0, now); !stopAt.IsZero() {
		t.Errorf("no deadline: stop at %v", stopAt)
	}
}

// A fixed move time (our first move before the clocks run) is used whole.
func TestBuiltinPlayerFixedMoveTime(t *testing.T) {
	ctx := context.Background()
	p, _ := NewBuiltinPlayer(BuiltinOptions{HashMB: 4, Logger: testsupport.Logger(t)})(ctx)
	defer p.Close()
	if err := p.NewGame(ctx, GameInfo{ID: "g", White: true}); err != nil {
		t.Fatal(err)
	}
	if err := p.Position(ctx, nil); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c := MoveClock{WTime: time.Minute, BTime: time.Minute, White: true, MoveTime: 200 * time.Millisecond,
		Deadline: start.Add(20 * time.Second)}
	d, err := p.Think(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 200*time.Millisecond || took > 10*time.Second {
		t.Errorf("a 200ms move time took %v", took)
	}
	if !legalIn(t, nil, d.Move) {
		t.Errorf("illegal move %q", d.Move)
	}
}

func TestBuiltinPlayerFromPosition(t *testing.T) {
	ctx := context.Background()
	p, _ := NewBuiltinPlayer(BuiltinOptions{HashMB: 4, MaxDepth: 6})(ctx)
	defer p.Close()
	// White mates in one: Ra8#.
	fen := "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"
	if err := p.NewGame(ctx, GameInfo{ID: "g", White: true, InitialFEN: fen}); err != nil {
		t.Fatal(err)
	}
	if err := p.Position(ctx, nil); err != nil {
		t.Fatal(err)
	}
	d, err := p.Think(ctx, limitsIn(5*time.Second, true))
	if err != nil {
		t.Fatal(err)
	}
	if d.Move != "a1a8" || d.Mate != 1 {
		t.Errorf("got %s mate %d, want a1a8 mate 1", d.Move, d.Mate)
	}
}

// fakeUCI returns the options of the fake engine (the test binary), and
// the file that exists once an engine died in its first search of the kind
// die names ("go" or "ponder"; "": none dies).
func fakeUCI(t *testing.T, die string) (UCIOptions, string) {
	t.Helper()
	eng := testsupport.NewFakeEngine(t, "legal")
	mark := ""
	if die != "" {
		mark = eng.DieOnce(die)
	}
	eng.Setenv(t)
	return UCIOptions{Path: eng.Path, Options: map[string]string{"Hash": "32"}, Ponder: true, Logger: testsupport.Logger(t)}, mark
}

// The external engine gets "go wtime … btime … winc … binc" with our clock
// reduced to the time left until the deadline, or "go movetime" for the
// first move; the driver stops it stopMargin before the deadline.
func TestGoLimits(t *testing.T) {
	now := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	c := MoveClock{WTime: time.Minute, BTime: 30 * time.Second, WInc: time.Second, BInc: 2 * time.Second,
		White: false, Running: true, Deadline: now.Add(20 * time.Second)}
	ul, stopAt := goLimits(c, now)
	if got := ul.Command(); got != "go wtime 60000 btime 20000 winc 1000 binc 2000" {
		t.Errorf("running clocks: %q", got)
	}
	if ul.Deadline != 20*time.Second-150*time.Millisecond || !stopAt.Equal(now.Add(20*time.Second-75*time.Millisecond)) {
		t.Errorf("stop after %v, give up at %v", ul.Deadline, stopAt.Sub(now))
	}
	c.Running, c.MoveTime = false, 2*time.Second
	if ul, _ = goLimits(c, now); ul.Command() != "go movetime 2000" {
		t.Errorf("first move: %q", ul.Command())
	}
	c = MoveClock{WTime: time.Second, BTime: time.Second, White: true, Running: true, Deadline: now.Add(-time.Second)}
	if ul, _ = goLimits(c, now); ul.Command() != "go wtime 1 btime 1000" {
		t.Errorf("deadline passed: %q, want our clock at 1 ms", ul.Command())
	}
}

func TestUCIPlayerPonderHit(t *testing.T) {
	ctx := context.Background()
	opts, _ := fakeUCI(t, "")
	p, err := NewUCIPlayer(opts)(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.NewGame(ctx, GameInfo{ID: "g", White: true}); err != nil {
		t.Fatal(err)
	}
	if err := p.Position(ctx, nil); err != nil {
		t.Fatal(err)
	}
	d, err := p.Think(ctx, limitsIn(10*time.Second, true))
	if err != nil {
		t.Fatal(err)
	}
	if d.Move == "" || !legalIn(t, nil, d.Move) || !d.HasScore || d.ScoreCP != 17 || d.Depth != 1 {
		t.Fatalf("first decision %+v", d)
	}
	if err := p.Position(ctx, []string{d.Move}); err != nil {
		t.Fatal(err)
	}
	if err := p.Ponder(ctx); err != nil {
		t.Fatal(err)
	}
	// The engine expects its PV's second move: the opponent plays it.
	moves := []string{d.Move, d.PV[1]}
	if err := p.Position(ctx, moves); err != nil {
		t.Fatal(err)
	}
	d2, err := p.Think(ctx, limitsIn(10*time.Second, true))
	if err != nil {
		t.Fatal(err)
	}
	if d2.Depth != 42 {
		t.Errorf("after the expected reply: depth %d, want 42 (the converted ponder search)", d2.Depth)
	}
	if !legalIn(t, moves, d2.Move) {
		t.Errorf("illegal %q", d2.Move)
	}
	// Another reply: the ponder search is dropped and a new one runs.
	moves = append(moves, d2.Move)
	if err := p.Position(ctx, moves); err != nil {
		t.Fatal(err)
	}
	if err := p.Ponder(ctx); err != nil {
		t.Fatal(err)
	}
	other := ""
	for _, m := range []string{"h7h6", "a7a6", "h7h5", "a7a5"} {
		if m != d2.PV[1] && legalIn(t, moves, m) {
			other = m
			break
		}
	}
	moves = append(moves, other)
	if err := p.Position(ctx, moves); err != nil {
		t.Fatal(err)
	}
	d3, err := p.Think(ctx, limitsIn(10*time.Second, true))
	if err != nil {
		t.Fatal(err)
	}
	if d3.Depth != 1 || !legalIn(t, moves, d3.Move) {
		t.Errorf("after another reply: %+v", d3)
	}
	if err := p.EndGame(ctx); err != nil {
		t.Fatal(err)
	}
}

// An engine that dies during Think: the error says so (the worker then
// plays a fallback or starts a new player).
func TestUCIPlayerDiesInThink(t *testing.T) {
	ctx := context.Background()
	opts, mark := fakeUCI(t, "go")
	p, err := NewUCIPlayer(opts)(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.NewGame(ctx, GameInfo{ID: "g", White: true}); err != nil {
		t.Fatal(err)
	}
	if err := p.Position(ctx, nil); err != nil {
		t.Fatal(err)
	}
	_, err = p.Think(ctx, limitsIn(10*time.Second, true))
	if !errors.Is(err, uci.ErrEngineDied) {
		t.Fatalf("Think with a dying engine: %v, want ErrEngineDied", err)
	}
	if _, statErr := os.Stat(mark); statErr != nil {
		t.Fatal("the engine did not die")
	}
	// The same player goes on: Position restarts the engine.
	if err := p.Position(ctx, nil); err != nil {
		t.Fatal(err)
	}
	d, err := p.Think(ctx, limitsIn(10*time.Second, true))
	if err != nil || !legalIn(t, nil, d.Move) {
		t.Fatalf("after restart: %+v, %v", d, err)
	}
}

// An engine that dies while pondering is restarted by the next Position:
// the game goes on without a fallback move.
func TestUCIPlayerDiesWhilePondering(t *testing.T) {
	ctx := context.Background()
	opts, mark := fakeUCI(t, "ponder")
	p, err := NewUCIPlayer(opts)(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.NewGame(ctx, GameInfo{ID: "g", White: true}); err != nil {
		t.Fatal(err)
	}
	if err := p.Position(ctx, nil); err != nil {
		t.Fatal(err)
	}
	d, err := p.Think(ctx, limitsIn(10*time.Second, true))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Position(ctx, []string{d.Move}); err != nil {
		t.Fatal(err)
	}
	if err := p.Ponder(ctx); err != nil {
		t.Fatal(err)
	}
	testsupport.WaitFor(t, "the engine to die", func() bool { _, err := os.Stat(mark); return err == nil })
	moves := []string{d.Move, "h7h6"}
	if d.PV[1] == "h7h6" {
		moves[1] = "a7a6"
	}
	if err := p.Position(ctx, moves); err != nil {
		t.Fatalf("Position after the engine died: %v", err)
	}
	d2, err := p.Think(ctx, limitsIn(10*time.Second, true))
	if err != nil || !legalIn(t, moves, d2.Move) {
		t.Fatalf("after restart: %+v, %v", d2, err)
	}
}

func TestUCIPlayerBadPath(t *testing.T) {
	_, err := NewUCIPlayer(UCIOptions{Path: filepath.Join(t.TempDir(), "no-engine")})(context.Background())
	if err == nil {
		t.Fatal("started a missing engine")
	}
}

// The games of one built-in factory search on its CPU share: a ponder
// search holds threads of it while it runs, two share them, and a closed
// game gives them back.
func TestBuiltinPlayersShareCPU(t *testing.T) {
	ctx := context.Background()
	share := ponder.NewCPUShare(2)
	f := NewBuiltinPlayer(BuiltinOptions{HashMB: 2, TreeMB: 2, Threads: 2, Ponder: true, MaxDepth: 4, Seed: 1, CPU: share})
	var ps []Player
	for i := range 2 {
		p, err := f(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if err := p.NewGame(ctx, GameInfo{ID: fmt.Sprint("g", i), White: false}); err != nil {
			t.Fatal(err)
		}
		if err := p.Position(ctx, []string{"e2e4"}); err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	if err := ps[0].Ponder(ctx); err != nil {
		t.Fatal(err)
	}
	if n := share.InUse(); n != 2 {
		t.Fatalf("one pondering game holds %d threads of the share, want 2", n)
	}
	if err := ps[1].Ponder(ctx); err != nil {
		t.Fatal(err)
	}
	if n := share.InUse(); n != 2 {
		t.Fatalf("two pondering games hold %d threads of a share of 2", n)
	}
	for _, p := range ps {
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if n := share.InUse(); n != 0 {
		t.Fatalf("%d threads held after the games closed", n)
	}
}
