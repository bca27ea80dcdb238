package client

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/ponder"
)

// recMemory is a ponder.Memory that notes what it is told.
type recMemory struct {
	mu      sync.Mutex
	games   map[string]int // entries recorded per game
	results map[string]ponder.GameResult
	refresh int // Refresh calls
}

func (m *recMemory) Refresh() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refresh++
}

func (m *recMemory) Lookup(string, []uint64) ([]ponder.Learnt, error) { return nil, nil }

func (m *recMemory) Record(eval, game string, es []ponder.Learnt) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.games[game] += len(es)
}

func (m *recMemory) Used(string, string, []uint64) {}

func (m *recMemory) GameOver(game string, r ponder.GameResult) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.results[game] = r
}

// TestBuiltinPlayerLearns: the built-in player records its searches under
// the Lichess game id and tells the memory the game's result (a win, a
// loss or a draw; nothing for an aborted game), also through the variant
// player the bot wraps it in. It does not refresh the memory as a game
// starts (only ponderosa uci does, in backend_learn.go).
func TestBuiltinPlayerLearns(t *testing.T) {
	ctx := context.Background()
	mem := &recMemory{games: map[string]int{}, results: map[string]ponder.GameResult{}}
	f := NewVariantPlayer(NewBuiltinPlayer(BuiltinOptions{HashMB: 4, MaxDepth: ponder.DefaultLearnMinDepth, Memory: mem}), nil)
	for _, c := range []struct {
		id, result string
		want       ponder.GameResult
	}{
		{"lost1", resultLoss, ponder.ResultLoss},
		{"won1", resultWin, ponder.ResultWin},
		{"drawn1", resultDraw, ponder.ResultDraw},
		{"abort1", resultAborted, ponder.ResultUnknown},
	} {
		p, err := f(ctx)
		if err != nil {
			t.Fatal(err)
		}
		mem.mu.Lock()
		before := mem.refresh
		mem.mu.Unlock()
		if err := p.NewGame(ctx, GameInfo{ID: c.id, Variant: "standard", White: true}); err != nil {
			t.Fatal(err)
		}
		mem.mu.Lock()
		refreshed := mem.refresh - before
		mem.mu.Unlock()
		if refreshed != 0 {
			t.Errorf("%s: the memory was refreshed %d times as the game started, want never (the bot's own writes keep it exact)", c.id, refreshed)
		}
		if err := p.Position(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Think(ctx, limitsIn(time.Minute, true)); err != nil {
			t.Fatal(err)
		}
		if err := p.EndGame(ctx); err != nil {
			t.Fatal(err)
		}
		rt, ok := p.(ResultTaker)
		if !ok {
			t.Fatalf("%T is no ResultTaker", p)
		}
		rt.GameResult(c.result)
		p.Close()
		mem.mu.Lock()
		n, got := mem.games[c.id], mem.results[c.id]
		_, told := mem.results[c.id]
		mem.mu.Unlock()
		if n == 0 {
			t.Errorf("%s: nothing recorded under the game id", c.id)
		}
		if got != c.want || told != (c.want != ponder.ResultUnknown) {
			t.Errorf("%s: result %v (told %v), want %v", c.id, got, told, c.want)
		}
	}
}
