package main

import (
	"fmt"
	"testing"

	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
)

// With the shipped configuration (concurrency 1, a queue of 10: the
// defaults, which config.example.yaml holds), challenges that arrive
// together become games played one after another: none is declined, no
// two games overlap, and no move is refused.
func TestRunDaemonQueuesChallenges(t *testing.T) {
	r := newRunEnv(t, true)
	const n = 3
	var names []string
	for i := range n {
		name := fmt.Sprintf("queuer%d", i)
		r.srv.AddAccount(name, "tok-"+name, false, 1700)
		if err := r.srv.SetHousePlayer(name, lichesstest.HouseOptions{Strategy: lichesstest.HouseFirst, ResignAt: 6}); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	r.start(nil)
	var ids []string
	for _, name := range names {
		ids = append(ids, r.challenge(name))
	}
	var games []lichesstest.GameSnapshot
	for _, id := range ids {
		g, err := r.srv.WaitGameOver(r.ctx, id)
		if err != nil {
			t.Fatalf("game %s: %v\nlogs:\n%s", id, err, r.logs)
		}
		games = append(games, g)
	}
	r.cancel()
	if err := r.wait(); err != nil {
		t.Fatalf("runDaemon: %v", err)
	}
	for i, g := range games {
		if st, _ := r.srv.ChallengeStatus(ids[i]); st != "accepted" {
			t.Errorf("challenge %d: %s", i, st)
		}
		if g.Status != "resign" {
			t.Errorf("game %d ended %s after %d plies", i, g.Status, len(g.Moves))
		}
		if i > 0 && g.CreatedAt.Before(games[i-1].FinishedAt) {
			t.Errorf("game %d started before game %d ended", i, i-1)
		}
	}
	if d := len(r.srv.RequestsMatching("POST /api/challenge/*/decline")); d != 0 {
		t.Errorf("%d challenges declined", d)
	}
	for _, req := range r.srv.RequestsMatching("POST /api/bot/game/*/move/*") {
		if req.Status != 200 && req.Status != 0 {
			t.Errorf("move refused: %s → %d", req.Path, req.Status)
		}
	}
}
