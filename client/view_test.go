package client

import (
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// A running game is shown to viewers with its players, clocks and the
// built-in engine's ponder.Game, and no longer once it is over.
func TestBotGameViews(t *testing.T) {
	e := newHarness(t)
	e.addHouse("Greedy", lichesstest.HouseOptions{Strategy: lichesstest.HouseGreedy})
	e.wrap = func(PlayerFactory) PlayerFactory {
		return NewBuiltinPlayer(BuiltinOptions{HashMB: 2, TreeMB: 2, MaxDepth: 3, Seed: 1})
	}
	b, stop := e.runBot(Settings{}, &playerPool{})
	defer stop()
	id := e.challenge("Greedy", blitz)
	var v GameView
	testsupport.WaitFor(t, "a game view with moves", func() bool {
		vs := b.GameViews()
		if len(vs) != 1 || vs[0].Game == nil {
			return false
		}
		v = vs[0]
		return len(v.Game.Snapshot().Moves) >= 4
	})
	if v.ID != id || !strings.HasSuffix(v.URL, "/"+id) || !v.HasClock || v.WhiteClock <= 0 || v.ClockAt.IsZero() {
		t.Fatalf("view %+v", v)
	}
	names := v.White.Name + "," + v.Black.Name
	if !strings.Contains(names, "Greedy") || !strings.Contains(names, botName) {
		t.Fatalf("players %s", names)
	}
	if (v.OurColor == "white") != strings.EqualFold(v.White.Name, botName) {
		t.Fatalf("our color %s with players %s", v.OurColor, names)
	}
	if q := b.QueueView(); len(q) != 0 {
		t.Fatalf("queue %+v", q)
	}
	e.resignAfter(id, "Greedy", 6)
	e.waitOver(id)
	testsupport.WaitFor(t, "no game view", func() bool { return len(b.GameViews()) == 0 })
}
