package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/ponder"
	"github.com/ponderosa-chess/ponderosa/store"
	"github.com/ponderosa-chess/ponderosa/web"
)

// gameLister lists the archive's finished games (*store.Archive).
type gameLister interface {
	Games(ctx context.Context, f store.Filter) ([]store.Game, error)
}

// botViews is the web view's Source over the daemon's bot and its archive.
// It follows each running game's ponder.Game (client.GameView.Game) and the
// bot's changes, and turns them into one change signal. Games whose player
// is not the built-in engine (a UCI engine) have no ponder.Game: they are
// shown with their board, moves and clocks (from Lichess' game state), but
// no search or tree. It holds no token: the bot's client has it, the view
// never does.
type botViews struct {
	bot     *client.Bot
	archive gameLister // nil: no archive
	n       web.Notifier

	mu     sync.Mutex
	follow map[*ponder.Game]context.CancelFunc
}

// newBotViews starts following bot until ctx ends.
func newBotViews(ctx context.Context, bot *client.Bot, archive gameLister) *botViews {
	v := &botViews{bot: bot, archive: archive, follow: map[*ponder.Game]context.CancelFunc{}}
	go v.run(ctx)
	return v
}

// run follows the games the bot plays, and tells of the bot's changes.
func (v *botViews) run(ctx context.Context) {
	defer func() {
		v.mu.Lock()
		for g, stop := range v.follow {
			stop()
			delete(v.follow, g)
		}
		v.mu.Unlock()
	}()
	for {
		ch := v.bot.Changed()
		v.sync(ctx)
		v.n.Notify()
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// sync follows the ponder.Games of the running games, and no others.
func (v *botViews) sync(ctx context.Context) {
	live := map[*ponder.Game]bool{}
	for _, gv := range v.bot.GameViews() {
		if gv.Game != nil {
			live[gv.Game] = true
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for g, stop := range v.follow {
		if !live[g] {
			stop()
			delete(v.follow, g)
		}
	}
	for g := range live {
		if _, ok := v.follow[g]; !ok {
			fctx, stop := context.WithCancel(ctx)
			v.follow[g] = stop
			go web.Follow(fctx, g.Watch, &v.n)
		}
	}
}

// Games implements web.Source.
func (v *botViews) Games() []web.GameView {
	gvs := v.bot.GameViews()
	out := make([]web.GameView, 0, len(gvs))
	for _, gv := range gvs {
		var snap ponder.Snapshot
		if gv.Game != nil {
			snap = gv.Game.Snapshot()
		} else if s, ok := boardSnapshot(gv); ok {
			snap = s
		} else {
			continue // a variant our board cannot follow
		}
		out = append(out, web.GameView{ID: gv.ID, URL: gv.URL,
			White:    web.Player{Name: gv.White.Name, Rating: gv.White.Rating, Title: gv.White.Title},
			Black:    web.Player{Name: gv.Black.Name, Rating: gv.Black.Rating, Title: gv.Black.Title},
			OurColor: gv.OurColor, Speed: gv.Speed, Variant: gv.Variant, Rated: gv.Rated, HasClock: gv.HasClock,
			WhiteClock: gv.WhiteClock, BlackClock: gv.BlackClock, ClockAt: gv.ClockAt, Snapshot: snap})
	}
	return out
}

// boardSnapshot is the snapshot of a game without a ponder.Game: its
// position worked out from Lichess' moves, with no search and no tree. It
// is false for a game our board cannot follow (a variant other than
// standard, chess960 and from position, or moves it refuses).
func boardSnapshot(gv client.GameView) (ponder.Snapshot, bool) {
	switch gv.Variant {
	case "", "standard", "chess960", "fromPosition":
	default:
		return ponder.Snapshot{}, false
	}
	start := gv.StartFEN
	if start == "" {
		start = board.StartFEN
	}
	p, err := board.ParseFEN(start)
	if err != nil {
		return ponder.Snapshot{}, false
	}
	for _, u := range gv.Moves {
		m, err := p.ParseUCIMove(u)
		if err != nil {
			return ponder.Snapshot{}, false
		}
		p.MakeMove(m)
	}
	return ponder.Snapshot{StartFEN: start, Chess960: gv.Variant == "chess960", FEN: p.FEN(),
		Moves: append([]string(nil), gv.Moves...), WhiteToMove: p.SideToMove() == board.White}, true
}

// Expand implements web.Source.
func (v *botViews) Expand(id, ref string) ([]ponder.NodeView, error) {
	for _, gv := range v.bot.GameViews() {
		if gv.ID == id && gv.Game != nil {
			return gv.Game.Expand(ref)
		}
	}
	return nil, fmt.Errorf("game %s: %w", id, web.ErrNoGame)
}

// Queue implements web.Source.
func (v *botViews) Queue() []web.Challenge {
	q := v.bot.QueueView()
	out := make([]web.Challenge, 0, len(q))
	for _, c := range q {
		out = append(out, web.Challenge{ID: c.ID, From: c.From, Rating: c.Rating, Title: c.Title, Speed: c.Speed,
			Variant: c.Variant, TimeControl: c.TimeControl, Rated: c.Rated, Since: c.Since, URL: c.URL})
	}
	return out
}

// Archive implements web.Source.
func (v *botViews) Archive(ctx context.Context, f store.Filter) ([]store.Game, error) {
	if v.archive == nil {
		return nil, nil
	}
	return v.archive.Games(ctx, f)
}

// Changed implements web.Source.
func (v *botViews) Changed() <-chan struct{} { return v.n.C() }
