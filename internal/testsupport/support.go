package testsupport

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// WaitLimit bounds WaitFor and Context: it turns a hang into a failure and
// is never an assertion about speed.
const WaitLimit = 30 * time.Second

// SyncBuffer is a bytes.Buffer that goroutines may write while a test
// reads it (a log sink, an engine's output). The zero value is ready.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// WaitFor polls cond every few milliseconds until it returns true, and
// fails the test (naming what it waited for) if that takes WaitLimit.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(WaitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Context returns a context that ends after WaitLimit, or when the test
// ends: for the waits of a test that take a context.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), WaitLimit)
	t.Cleanup(cancel)
	return ctx
}

// Logger returns a logger for code under test: at debug level into the
// test's log with -v, silent otherwise.
func Logger(t testing.TB) zerolog.Logger {
	if testing.Verbose() {
		return zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.DebugLevel)
	}
	return zerolog.Nop()
}

// MustFEN parses fen and plays moves (UCI notation) from it, failing the
// test if either is bad.
func MustFEN(t testing.TB, fen string, moves ...string) *board.Position {
	t.Helper()
	p, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatalf("parse %q: %v", fen, err)
	}
	Play(t, p, moves...)
	return p
}

// Play plays moves (UCI notation) on p, failing the test at a bad one.
func Play(t testing.TB, p *board.Position, moves ...string) {
	t.Helper()
	for _, s := range moves {
		m, err := p.ParseUCIMove(s)
		if err != nil {
			t.Fatalf("move %s in %s: %v", s, p.FEN(), err)
		}
		p.MakeMove(m)
	}
}

// GameEnd is how one game a test played ended.
type GameEnd struct {
	Plies int
	Ended string // why the game ended by the rules ("" when it did not)
	Err   error  // a broken rule (an illegal move, a refused play)
}

// PlayBoth plays two games at once, play(0) and play(1), and fails the
// test unless both ended by the rules with no broken rule: the check of
// the tests that break one of two games running side by side.
func PlayBoth(t testing.TB, names [2]string, play func(i int) GameEnd) {
	t.Helper()
	var res [2]GameEnd
	var wg sync.WaitGroup
	for i := range res {
		wg.Add(1)
		go func() { defer wg.Done(); res[i] = play(i) }()
	}
	wg.Wait()
	for i, r := range res {
		if r.Err != nil {
			t.Fatalf("%s game: %v", names[i], r.Err)
		}
		if r.Ended == "" {
			t.Fatalf("%s game did not end in %d plies", names[i], r.Plies)
		}
		t.Logf("%s game: %s after %d plies", names[i], r.Ended, r.Plies)
	}
}

// MirrorFEN returns the colour-flipped mirror of fen: ranks reversed,
// the colours of the pieces, the side to move and the castling rights
// swapped, the en-passant square moved to the other side's third rank.
func MirrorFEN(t testing.TB, fen string) string {
	t.Helper()
	f := strings.Fields(fen)
	if len(f) < 4 {
		t.Fatalf("short FEN %q", fen)
	}
	ranks := strings.Split(f[0], "/")
	for i, j := 0, len(ranks)-1; i < j; i, j = i+1, j-1 {
		ranks[i], ranks[j] = ranks[j], ranks[i]
	}
	swap := func(s string) string {
		return strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z':
				return r - 'a' + 'A'
			case r >= 'A' && r <= 'Z':
				return r - 'A' + 'a'
			}
			return r
		}, s)
	}
	f[0] = swap(strings.Join(ranks, "/"))
	if f[1] == "w" {
		f[1] = "b"
	} else {
		f[1] = "w"
	}
	if f[2] != "-" {
		f[2] = swap(f[2])
	}
	if f[3] != "-" {
		f[3] = string([]byte{f[3][0], '1' + '8' - f[3][1]})
	}
	return strings.Join(f, " ")
}

// Playouts returns the positions of fens and, from each, those of games
// random games of at most plies plies (seeded by seed), one every every
// plies: positions where every kind of move has happened, for tests.
func Playouts(t testing.TB, fens []string, seed uint64, games, plies, every int) []*board.Position {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed+1))
	var out []*board.Position
	var ml board.MoveList
	for _, fen := range fens {
		p, err := board.ParseFEN(fen)
		if err != nil {
			t.Fatalf("%s: %v", fen, err)
		}
		out = append(out, p.Clone())
		for game := 0; game < games; game++ {
			q := p.Clone()
			for ply := 0; ply < plies; ply++ {
				q.GenerateLegal(&ml)
				if ml.N == 0 {
					break
				}
				q.MakeMove(ml.Moves[rng.IntN(ml.N)])
				if ply%every == 0 {
					out = append(out, q.Clone())
				}
			}
		}
	}
	return out
}
