package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/uci"
)

// testPlayer plays the first legal move (for tests only). Hooks make it
// misbehave.
type testPlayer struct {
	mu      sync.Mutex
	info    GameInfo
	moves   []string
	thinks  int
	ponders int
	ended   bool
	result  string // told by GameResult
	closed  bool
	// misbehaviour
	thinkErr error // Think fails
	hang     bool  // Think blocks until ctx ends... and beyond (ignores ctx)
	illegal  bool  // Think proposes an illegal move
	score    int
	mate     int
	tb       TBResult                    // the tablebase result of each Choice...
	tbAt     int                         // ... from this ply on
	tbs      map[int]TBResult            // by ply: the tablebase result there (overrides tb)
	release  chan struct{}               // for hang: closed by the test at cleanup
	block    chan struct{}               // if set, Think waits on it (respecting ctx)
	blockAt  int                         // ... but only from this ply on
	delay    time.Duration               // Think takes this long (respecting ctx) before answering
	prefer   []string                    // moves played when legal
	pv       []string                    // the principal variation after the move (default none)
	script   func(moves []string) string // the move in a variant without rules here (no legal-move list)
	noMove   bool                        // Think answers as an engine with no legal move (uci.ErrNoMove)...
	noMoveAt int                         // ... from this ply on
	clocks   []MoveClock                 // the clock situation of each Think
	seen     [][]string                  // the positions Think was asked about
	calls    []string                    // "position <moves>", "think", "ponder", in order
}

func (p *testPlayer) NewGame(ctx context.Context, g GameInfo) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.info = g
	return nil
}

func (p *testPlayer) Position(ctx context.Context, moves []string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.moves = append([]string(nil), moves...)
	p.calls = append(p.calls, strings.TrimSpace("position "+strings.Join(moves, " ")))
	return nil
}

func (p *testPlayer) Think(ctx context.Context, lim MoveClock) (Choice, error) {
	p.mu.Lock()
	p.thinks++
	p.calls = append(p.calls, "think")
	p.clocks = append(p.clocks, lim)
	err, hang, illegal, block, release := p.thinkErr, p.hang, p.illegal, p.block, p.release
	if p.noMove && len(p.moves) >= p.noMoveAt {
		err = fmt.Errorf("test player: %w", uci.ErrNoMove)
	}
	if len(p.moves) < p.blockAt {
		block = nil
	}
	info, moves, score, mate, prefer, script, pv := p.info, p.moves, p.score, p.mate, p.prefer, p.script, p.pv
	var tb TBResult
	if len(p.moves) >= p.tbAt {
		tb = p.tb
	}
	if r, ok := p.tbs[len(p.moves)]; ok {
		tb = r
	}
	delay := p.delay
	p.seen = append(p.seen, moves)
	p.mu.Unlock()
	if err != nil {
		return Choice{}, err
	}
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return Choice{}, ctx.Err()
		}
	}
	if hang {
		<-release
		return Choice{}, errors.New("released")
	}
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return Choice{}, ctx.Err()
		}
	}
	if illegal {
		return Choice{Move: "a1a8", HasScore: true}, nil
	}
	b, err := newBoard(info.Variant, info.InitialFEN, moves)
	if err != nil {
		return Choice{}, err
	}
	legal := b.LegalMoves()
	if legal == nil && script != nil { // a variant without rules here
		m := script(moves)
		return Choice{Move: m, ScoreCP: score, HasScore: true, Depth: 1, PV: []string{m}}, nil
	}
	if len(legal) == 0 {
		return Choice{}, errors.New("no legal move")
	}
	for _, m := range prefer {
		if c, err := b.Legal(m); err == nil {
			legal = []string{c}
		}
	}
	return Choice{Move: legal[0], ScoreCP: score, Mate: mate, HasScore: true, Depth: 3, Nodes: 42, PV: append(legal[:1:1], pv...), Source: "search", TB: tb}, nil
}

func (p *testPlayer) Ponder(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ponders++
	p.calls = append(p.calls, "ponder")
	return nil
}

func (p *testPlayer) EndGame(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended = true
	return nil
}

func (p *testPlayer) GameResult(result string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.result = result
}

func (p *testPlayer) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	return nil
}

func (p *testPlayer) get(f func(p *testPlayer)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(p)
}

// playerPool is a factory recording the players it made; next, if set,
// configures each new player.
type playerPool struct {
	mu      sync.Mutex
	players []*testPlayer
	next    func(i int, p *testPlayer)
}

func (pp *playerPool) factory(ctx context.Context) (Player, error) {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	p := &testPlayer{}
	if pp.next != nil {
		pp.next(len(pp.players), p)
	}
	pp.players = append(pp.players, p)
	return p, nil
}

func (pp *playerPool) all() []*testPlayer {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	return append([]*testPlayer(nil), pp.players...)
}
