package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/web"
)

// The web view follows the demo game: both bots' sides appear with their
// moves and searches, a tree can be expanded, and nothing served holds the
// bots' tokens.
func TestDemoWebView(t *testing.T) {
	tc, err := config.ParseTimeControl("1+0")
	if err != nil {
		t.Fatal(err)
	}
	views := newDemoViews()
	srv := httptest.NewServer(web.New(views, web.Options{MinInterval: 10 * time.Millisecond}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		_, err := runDemo(ctx, &out, demoOpts{tc: tc, movesLimit: 12, depth: 4, hashMB: 4, ponder: true, views: views})
		done <- err
	}()
	// wait for both sides with a few moves and a search
	var gs []web.GameView
	for ready := false; !ready; {
		ch := views.Changed()
		gs = views.Games()
		ready = len(gs) == 2
		for _, g := range gs {
			ready = ready && len(g.Snapshot.Moves) >= 4 && g.Snapshot.Search.Depth > 0
		}
		if ready {
			break
		}
		select {
		case <-ch:
		case err := <-done:
			t.Fatalf("the demo ended before the view saw it: %v\n%s", err, out.String())
		}
	}
	if gs[0].OurColor == gs[1].OurColor || gs[0].URL == "" || !gs[0].HasClock {
		t.Fatalf("views %+v / %+v", gs[0], gs[1])
	}
	id := gs[0].ID
	var bodies []string
	for _, p := range []string{"/", "/assets/app.js", "/api/games", "/api/games/" + id, "/api/games/" + id + "/tree", "/api/queue", "/api/archive"} {
		b := []byte(getOK(t, srv.URL+p))
		bodies = append(bodies, string(b))
		if p == "/api/games" {
			var list []map[string]any
			if err := json.Unmarshal(b, &list); err != nil || len(list) != 2 {
				t.Fatalf("games: %v %s", err, b)
			}
		}
	}
	// the first event of the stream
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(resp.Body)
	for {
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(l, "data: ") {
			bodies = append(bodies, l)
			break
		}
	}
	resp.Body.Close()
	for i, b := range bodies {
		for _, tok := range []string{demoWhiteToken, demoBlackToken, "lip_"} {
			if strings.Contains(b, tok) {
				t.Fatalf("served body %d holds a token (%q)", i, tok)
			}
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	// the game ended: the players closed, the view shows no game
	if n := len(views.Games()); n != 0 {
		t.Fatalf("%d games still shown after the end", n)
	}
}
