package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/ponder"
	"github.com/ponderosa-chess/ponderosa/store"
	"github.com/ponderosa-chess/ponderosa/web"
)

// demoViews is the web view's Source for the demo: each bot's side of the
// running game (its ponder.Game, found through client.PonderGamer), with
// the clocks of the local server. There is no queue and no archive. It
// holds no token: the bots' clients have them, the view never does.
type demoViews struct {
	mu    sync.Mutex
	srv   *lichesstest.Server // set by runDemo once the server runs
	games map[string]*demoGame
	n     web.Notifier
}

type demoGame struct {
	gameID string
	bot    string
	g      *ponder.Game
	stop   context.CancelFunc // ends the Follow of g
}

func newDemoViews() *demoViews { return &demoViews{games: map[string]*demoGame{}} }

func (v *demoViews) setServer(srv *lichesstest.Server) {
	v.mu.Lock()
	v.srv = srv
	v.mu.Unlock()
}

// add shows bot's side of game id.
func (v *demoViews) add(id, bot string, g *ponder.Game) {
	ctx, stop := context.WithCancel(context.Background())
	v.mu.Lock()
	key := id + "-" + bot
	if old, ok := v.games[key]; ok {
		old.stop()
	}
	v.games[key] = &demoGame{gameID: id, bot: bot, g: g, stop: stop}
	v.mu.Unlock()
	go web.Follow(ctx, g.Watch, &v.n)
}

// remove stops showing bot's side of game id.
func (v *demoViews) remove(id, bot string) {
	v.mu.Lock()
	if dg, ok := v.games[id+"-"+bot]; ok {
		dg.stop()
		delete(v.games, id+"-"+bot)
	}
	v.mu.Unlock()
	v.n.Notify()
}

// Games implements web.Source.
func (v *demoViews) Games() []web.GameView {
	v.mu.Lock()
	srv := v.srv
	list := make([]*demoGame, 0, len(v.games))
	keys := make([]string, 0, len(v.games))
	for k := range v.games {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		list = append(list, v.games[k])
	}
	v.mu.Unlock()
	out := make([]web.GameView, 0, len(list))
	for _, dg := range list {
		gv := web.GameView{ID: dg.gameID + "-" + dg.bot, White: web.Player{Name: demoWhite, Title: "BOT"},
			Black: web.Player{Name: demoBlack, Title: "BOT"}, OurColor: "white", Snapshot: dg.g.Snapshot()}
		if dg.bot == demoBlack {
			gv.OurColor = "black"
		}
		if srv != nil {
			if s, ok := srv.Game(dg.gameID); ok {
				gv.URL = srv.URL() + "/" + dg.gameID
				gv.Speed, gv.Variant, gv.Rated = s.Speed, s.Variant, s.Rated
				gv.HasClock = s.ClockInitial > 0
				gv.WhiteClock, gv.BlackClock, gv.ClockAt = s.WhiteTime, s.BlackTime, time.Now()
			}
		}
		out = append(out, gv)
	}
	return out
}

// Expand implements web.Source.
func (v *demoViews) Expand(id, ref string) ([]ponder.NodeView, error) {
	v.mu.Lock()
	dg, ok := v.games[id]
	v.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("game %s: %w", id, web.ErrNoGame)
	}
	return dg.g.Expand(ref)
}

// Queue implements web.Source: the demo queues no challenge.
func (v *demoViews) Queue() []web.Challenge { return nil }

// Archive implements web.Source: the demo keeps no archive.
func (v *demoViews) Archive(context.Context, store.Filter) ([]store.Game, error) { return nil, nil }

// Changed implements web.Source.
func (v *demoViews) Changed() <-chan struct{} { return v.n.C() }

// viewedPlayer shows its game in views while it is played.
type viewedPlayer struct {
	client.Player
	views *demoViews
	bot   string
	id    string
}

func (p *viewedPlayer) NewGame(ctx context.Context, g client.GameInfo) error {
	if err := p.Player.NewGame(ctx, g); err != nil {
		return err
	}
	if pg, ok := p.Player.(client.PonderGamer); ok {
		if game := pg.PonderGame(); game != nil {
			p.id = g.ID
			p.views.add(g.ID, p.bot, game)
		}
	}
	return nil
}

func (p *viewedPlayer) Close() error {
	if p.id != "" {
		p.views.remove(p.id, p.bot)
	}
	return p.Player.Close()
}

// viewed wraps a factory so that each game of bot is shown in views.
func viewed(f client.PlayerFactory, views *demoViews, bot string) client.PlayerFactory {
	if views == nil {
		return f
	}
	return func(ctx context.Context) (client.Player, error) {
		p, err := f(ctx)
		if err != nil {
			return nil, err
		}
		return &viewedPlayer{Player: p, views: views, bot: bot}, nil
	}
}
