package uci

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// Panics at the goroutine boundaries of this package: the UCI front end's
// search goroutine (Server) and the readers of an external engine's output
// (ExternalEngine). Each test plays two games at once, a panic injected
// into one of them, and sees both played to their end with legal moves.

// kqrFEN is king, queen and rook against a lone king: a short game that
// ends (GameOver) when an engine plays both sides.
const kqrFEN = "8/8/8/4k3/8/8/8/KQR5 w - - 0 1"

// playMove checks that move is legal in the game's position and plays it;
// the game's end (GameOver) is returned.
func playMove(pos *board.Position, moves *[]string, move string) (ended string, err error) {
	m, err := pos.ParseUCIMove(move)
	if err != nil || !pos.IsLegal(m) {
		return "", fmt.Errorf("ply %d: %q is not a legal move", len(*moves), move)
	}
	pos.MakeMove(m)
	*moves = append(*moves, move)
	return pos.GameOver(), nil
}

// panickyBackend is an EngineBackend whose Go panics once, on the search
// goroutine, in the first search with at least ply moves played.
type panickyBackend struct {
	*EngineBackend
	ply   int
	moves int // set by SetPosition, on the Server's loop before the go
	fired atomic.Bool
}

func (b *panickyBackend) SetPosition(fen string, moves []string) error {
	b.moves = len(moves)
	return b.EngineBackend.SetPosition(fen, moves)
}

func (b *panickyBackend) Go(ctx context.Context, p GoParams, info func(Info)) (string, string) {
	if b.moves >= b.ply && b.fired.CompareAndSwap(false, true) {
		panic("injected uci search panic")
	}
	return b.EngineBackend.Go(ctx, p, info)
}

// serverGame is a GUI playing one game through a Server, both sides.
type serverGame struct {
	c      *uciConn
	pos    *board.Position
	moves  []string
	ended  string
	errors []string // "info string error" lines
}

func newServerGame(t *testing.T, srv *Server) *serverGame {
	t.Helper()
	pos, err := board.ParseFEN(kqrFEN)
	if err != nil {
		t.Fatal(err)
	}
	return &serverGame{c: startServerWith(t, srv), pos: pos}
}

func (g *serverGame) startSearch() {
	g.c.send(positionCommand(kqrFEN, g.moves), "go depth 4")
}

func (g *serverGame) readMove(t *testing.T) {
	t.Helper()
	lines := g.c.untilPrefix("bestmove ")
	for _, l := range lines {
		if strings.HasPrefix(l, "info string error") {
			g.errors = append(g.errors, l)
		}
	}
	var err error
	if g.ended, err = playMove(g.pos, &g.moves, strings.Fields(lines[len(lines)-1])[1]); err != nil {
		t.Fatal(err)
	}
}

// A panic in one of two Servers' search goroutine (in Backend.Go) ends
// neither the process nor that session: it is logged, the GUI gets an
// "info string error" line and the fallback move of AfterPanic as the
// bestmove, and both games (searched at the same time) go on to their end.
func TestServerSearchPanicOneGameOfTwo(t *testing.T) {
	log, logged := testsupport.CountingLogger(zerolog.ErrorLevel, "panicked")
	broken := &panickyBackend{EngineBackend: NewEngineBackend(), ply: 2}
	healthy := NewEngineBackend()
	for _, b := range []*EngineBackend{broken.EngineBackend, healthy} {
		t.Cleanup(b.Close)
		if err := b.SetOption(OptHash, "4"); err != nil {
			t.Fatal(err)
		}
	}
	games := []*serverGame{
		newServerGame(t, &Server{Name: "broken", Backend: broken, Logger: log}),
		newServerGame(t, NewServer("healthy", "", healthy)),
	}
	for ply := 0; ply < 300 && (games[0].ended == "" || games[1].ended == ""); ply++ {
		for _, g := range games {
			if g.ended == "" {
				g.startSearch()
			}
		}
		for _, g := range games {
			if g.ended == "" {
				g.readMove(t)
			}
		}
	}
	for i, name := range []string{"broken", "healthy"} {
		if games[i].ended == "" {
			t.Fatalf("%s game did not end in %d plies", name, len(games[i].moves))
		}
		t.Logf("%s game: %s after %d plies", name, games[i].ended, len(games[i].moves))
	}
	if !broken.fired.Load() {
		t.Fatal("the panic was never injected")
	}
	if e := games[0].errors; len(e) != 1 || !strings.Contains(e[0], "search panicked: injected uci search panic") {
		t.Errorf("broken game: error lines %q, want the one of the panic", e)
	}
	if e := games[1].errors; len(e) > 0 {
		t.Errorf("healthy game: error lines %q", e)
	}
	if n := logged.Load(); n != 1 {
		t.Errorf("%d panics logged, want 1", n)
	}
}

// engineGame plays one game with an external engine on both sides, as a
// front end does: a search that fails because the engine died is answered
// with the first legal move (the fallback path), and the engine restarted.
type engineGame struct {
	e      *ExternalEngine
	pos    *board.Position
	moves  []string
	ply    atomic.Int32 // len(moves), for the injection hook
	ended  string
	failed []error // the searches that failed
}

func (g *engineGame) play(ctx context.Context) error {
	for len(g.moves) < 300 && g.ended == "" {
		g.ply.Store(int32(len(g.moves)))
		if err := g.e.Position(kqrFEN, g.moves); err != nil {
			return err
		}
		res, err := g.e.Go(ctx, GoLimits{Depth: 4})
		move := res.BestMove
		if err != nil {
			if !errors.Is(err, ErrEngineDied) {
				return fmt.Errorf("ply %d: %w", len(g.moves), err)
			}
			g.failed = append(g.failed, err)
			var ml board.MoveList
			g.pos.GenerateLegal(&ml)
			move = g.pos.MoveToUCI(ml.Moves[0])
			if err := g.e.Restart(ctx); err != nil {
				return err
			}
		}
		if g.ended, err = playMove(g.pos, &g.moves, move); err != nil {
			return err
		}
	}
	return nil
}

// A panic in a reader of one of two external engines' output (the
// process's stdout pump, or a running search's reader) ends that engine's
// session: it is logged, the engine is killed and the search fails with
// ErrEngineDied naming the panic; the front end plays its fallback move
// and restarts the engine. Both games are played to their end with legal
// moves, and the other engine never fails.
func TestExternalReaderPanicOneGameOfTwo(t *testing.T) {
	for _, reader := range []string{"stdout", "search"} {
		t.Run(reader, func(t *testing.T) {
			ctx := context.Background()
			games := [2]*engineGame{}
			var fired atomic.Bool
			log, logged := testsupport.CountingLogger(zerolog.ErrorLevel, "panicked")
			for i := range games {
				g := &engineGame{}
				pos, err := board.ParseFEN(kqrFEN)
				if err != nil {
					t.Fatal(err)
				}
				g.pos = pos
				// The engine: our own, the test binary in TestMain's mode "engine".
				fe := testsupport.NewFakeEngine(t, "engine")
				cfg := ExternalConfig{Path: fe.Path, Env: fe.Env(), Options: map[string]string{OptHash: "4"}}
				if i == 0 {
					cfg.Logger = log
					cfg.onLine = func(r, line string) {
						if r == reader && g.ply.Load() >= 2 && strings.HasPrefix(line, "info depth 2 ") &&
							fired.CompareAndSwap(false, true) {
							panic("injected reader panic")
						}
					}
				}
				if g.e, err = StartConfig(ctx, cfg); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { g.e.Close() })
				games[i] = g
			}
			errs := make([]error, 2)
			var wg sync.WaitGroup
			for i, g := range games {
				wg.Add(1)
				go func() { defer wg.Done(); errs[i] = g.play(ctx) }()
			}
			wg.Wait()
			for i, name := range []string{"broken", "healthy"} {
				if errs[i] != nil {
					t.Fatalf("%s game: %v", name, errs[i])
				}
				if games[i].ended == "" {
					t.Fatalf("%s game did not end in %d plies", name, len(games[i].moves))
				}
				t.Logf("%s game: %s after %d plies", name, games[i].ended, len(games[i].moves))
			}
			if !fired.Load() {
				t.Fatal("the panic was never injected")
			}
			if f := games[0].failed; len(f) != 1 || !strings.Contains(f[0].Error(), "injected reader panic") {
				t.Errorf("broken game: failed searches %v, want one naming the panic", f)
			}
			if f := games[1].failed; len(f) > 0 {
				t.Errorf("healthy game: failed searches %v", f)
			}
			if n := logged.Load(); n != 1 {
				t.Errorf("%d panics logged, want 1", n)
			}
		})
	}
}
