package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
	"github.com/ponderosa-chess/ponderosa/store"
	"github.com/ponderosa-chess/ponderosa/web"
)

// The daemon's web view: a game against a house player is shown while it
// runs, the finished game is listed from the archive with its Lichess link,
// and nothing served holds the bot's token.
func TestBotWebView(t *testing.T) {
	const name, token = "ViewBot", "lip_viewBotSecret"
	srv := lichesstest.NewStarted(lichesstest.WithKeepAlive(50*time.Millisecond), lichesstest.WithChallengeTTL(0))
	t.Cleanup(srv.Close)
	srv.AddAccount(name, token, true, 2000)
	srv.AddAccount("House", "tok-house", false, 1800)
	if err := srv.SetHousePlayer("House", lichesstest.HouseOptions{Strategy: lichesstest.HouseFirst, ResignAt: 10}); err != nil {
		t.Fatal(err)
	}
	c, err := lichess.New(srv.URL(), oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	archive, err := store.OpenArchive(ctx, t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer archive.Close()
	bot := client.NewBot(c, client.NewBuiltinPlayer(client.BuiltinOptions{HashMB: 2, TreeMB: 2, MaxDepth: 3, Seed: 1}),
		client.Settings{Challenge: client.ChallengePolicy{AcceptHumans: true, MaxGames: 1}}, testsupport.Logger(t))
	bot.SetStore(storeAdapter{archive})
	runDone := make(chan error, 1)
	go func() { runDone <- bot.Run(ctx) }()
	defer func() { cancel(); <-runDone }()
	views := newBotViews(ctx, bot, archive)
	hs := httptest.NewServer(web.New(views, web.Options{}))
	defer hs.Close()
	if err := srv.WaitFor(ctx, func() bool { return srv.EventStreamOpen(name) }); err != nil {
		t.Fatal(err)
	}
	id, err := srv.Challenge("House", name, lichesstest.ChallengeParams{ClockLimit: time.Minute, ClockIncrement: time.Second, Color: "white"})
	if err != nil {
		t.Fatal(err)
	}
	testsupport.WaitFor(t, "the game in the view", func() bool {
		gs := views.Games()
		return len(gs) == 1 && gs[0].ID == id && len(gs[0].Snapshot.Moves) >= 2
	})
	var bodies []string
	get := func(p string) string {
		t.Helper()
		b := getOK(t, hs.URL+p)
		bodies = append(bodies, b)
		return b
	}
	get("/")
	if g := get("/api/games/" + id); !strings.Contains(g, `"our":"black"`) || !strings.Contains(g, `"House"`) {
		t.Fatalf("game: %s", g)
	}
	get("/api/games/" + id + "/tree")
	get("/api/queue")
	if _, err := srv.WaitGameOver(ctx, id); err != nil {
		t.Fatal(err)
	}
	var list []map[string]any
	testsupport.WaitFor(t, "the game in the archive", func() bool {
		list = nil
		return json.Unmarshal([]byte(get("/api/archive")), &list) == nil && len(list) == 1
	})
	if list[0]["id"] != id || !strings.HasSuffix(list[0]["url"].(string), "/"+id) || list[0]["pgn"] == "" {
		t.Fatalf("archive: %v", list[0])
	}
	testsupport.WaitFor(t, "the game gone from the view", func() bool { return len(views.Games()) == 0 })
	for i, b := range bodies {
		if strings.Contains(b, token) || strings.Contains(b, "lip_") {
			t.Fatalf("served body %d holds the token", i)
		}
	}
}
