package client

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// logEvents decodes the JSON lines of a log buffer.
func logEvents(t *testing.T, buf *testsupport.SyncBuffer) []map[string]any {
	t.Helper()
	var evs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		evs = append(evs, ev)
	}
	return evs
}

// withMessage returns the events whose message is msg.
func withMessage(evs []map[string]any, msg string) []map[string]any {
	var out []map[string]any
	for _, ev := range evs {
		if ev["message"] == msg {
			out = append(out, ev)
		}
	}
	return out
}

// waitLogged waits until the log has a line with message msg.
func waitLogged(t *testing.T, buf *testsupport.SyncBuffer, msg string) {
	t.Helper()
	testsupport.WaitFor(t, "log line "+msg, func() bool { return strings.Contains(buf.String(), `"message":"`+msg+`"`) })
}

// A rated game's log: its URL at the start, the score and PV of each of
// our moves at info level, and at the end the result from our side, the
// termination and the rating change.
func TestGameLogLines(t *testing.T) {
	h := newHarness(t)
	h.addHuman("Alice")
	buf := withLog(h)
	pool := &playerPool{next: func(i int, p *testPlayer) {
		// The last legal move of prefer is played: e2e4, then g1f3.
		p.prefer, p.pv, p.score = []string{"g1f3", "e2e4"}, []string{"e7e5", "g1f3"}, 35
	}}
	_, stop := h.runBot(Settings{}, pool)
	id := h.startGame("Alice", true, lichesstest.ChallengeParams{Rated: true})
	h.waitPlies(id, 1)
	if err := h.srv.Move(id, "Alice", "e7e5"); err != nil {
		t.Fatal(err)
	}
	h.waitPlies(id, 3)
	// The line comes once the post is answered, which may be after the
	// server has the move.
	testsupport.WaitFor(t, "2 moves logged", func() bool { return strings.Count(buf.String(), `"message":"move played"`) == 2 })
	if err := h.srv.Resign(id, "Alice"); err != nil {
		t.Fatal(err)
	}
	h.waitOver(id)
	waitLogged(t, buf, "game finished")
	waitLogged(t, buf, "game over")
	stop()

	evs := logEvents(t, buf)
	url := h.srv.URL() + "/" + id
	start := withMessage(evs, "game started")
	if len(start) != 1 {
		t.Fatalf("%d game started lines", len(start))
	}
	if s := start[0]; s["url"] != url || s["level"] != "info" || s["color"] != "white" || s["rated"] != true ||
		s["opponent"] != "Alice" || s["opponent_rating"] != float64(1800) || s["initial"] == nil {
		t.Errorf("game started: %v (want url %s)", s, url)
	}
	moves := withMessage(evs, "move played")
	if len(moves) != 2 {
		t.Fatalf("%d move played lines, want 2", len(moves))
	}
	for i, want := range []string{"e2e4 e7e5 g1f3", "g1f3 e7e5 g1f3"} {
		m := moves[i]
		if m["level"] != "info" || m["cp"] != float64(35) || m["depth"] != float64(3) || m["pv"] != want || m["nodes"] != float64(42) || m["game"] != id {
			t.Errorf("move %d: %v, want info with cp 35, depth 3, pv %q", i, m, want)
		}
	}
	over := withMessage(evs, "game over")
	if len(over) != 1 || over[0]["result"] != "win" || over[0]["termination"] != "resign" || over[0]["url"] != url {
		t.Errorf("game over: %v", over)
	}
	fin := withMessage(evs, "game finished")
	// 2000 beats 1800: lichesstest's Elo (K = 20) gives +5 and -5.
	if len(fin) != 1 || fin[0]["game"] != id || fin[0]["result"] != "win" || fin[0]["termination"] != "resign" ||
		fin[0]["rating_diff"] != float64(5) || fin[0]["opponent_rating_diff"] != float64(-5) || fin[0]["rating"] != float64(2000) ||
		fin[0]["url"] != url || fin[0]["opponent"] != "Alice" {
		t.Errorf("game finished: %v", fin)
	}
	if strings.Contains(buf.String(), botToken) {
		t.Error("token in the log")
	}
}

// A casual game lost on the board: no rating change is logged; a mate
// gives the termination "mate" and the result "loss".
func TestGameLogLoss(t *testing.T) {
	h := newHarness(t)
	h.addHuman("Alice")
	buf := withLog(h)
	// Fool's mate: the bot (White) plays f2f3 and g2g4 (the last legal
	// move of prefer is played).
	pool := &playerPool{next: func(i int, p *testPlayer) { p.prefer = []string{"g2g4", "f2f3"} }}
	_, stop := h.runBot(Settings{}, pool)
	id := h.startGame("Alice", true, lichesstest.ChallengeParams{})
	h.waitPlies(id, 1)
	if err := h.srv.Move(id, "Alice", "e7e5"); err != nil {
		t.Fatal(err)
	}
	h.waitPlies(id, 3)
	if err := h.srv.Move(id, "Alice", "d8h4"); err != nil {
		t.Fatal(err)
	}
	if g := h.waitOver(id); g.Status != "mate" {
		t.Fatalf("game ended by %s", g.Status)
	}
	waitLogged(t, buf, "game finished")
	waitLogged(t, buf, "game over")
	stop()
	evs := logEvents(t, buf)
	over := withMessage(evs, "game over")
	if len(over) != 1 || over[0]["result"] != "loss" || over[0]["termination"] != "mate" {
		t.Errorf("game over: %v", over)
	}
	fin := withMessage(evs, "game finished")
	if len(fin) != 1 || fin[0]["result"] != "loss" || fin[0]["termination"] != "mate" || fin[0]["rated"] != false {
		t.Errorf("game finished: %v", fin)
	}
	if _, ok := fin[0]["rating_diff"]; ok {
		t.Errorf("a casual game with a rating change: %v", fin[0])
	}
}

func TestGameResult(t *testing.T) {
	for _, tt := range []struct{ status, winner, color, want string }{
		{"mate", "white", "white", "win"},
		{"resign", "white", "black", "loss"},
		{"outoftime", "black", "black", "win"},
		{"outoftime", "", "white", "draw"}, // flagged against a lone king
		{"draw", "", "black", "draw"},
		{"stalemate", "", "white", "draw"},
		{"timeout", "", "white", "draw"}, // a draw claimed after the opponent left
		{"aborted", "", "white", "aborted"},
		{"noStart", "", "black", "aborted"},
		{"noStart", "white", "white", "win"},
		{"unknownFinish", "", "white", "unknown"},
		{"started", "", "white", "unknown"},
		{"mate", "white", "", "unknown"}, // our colour missing: neither a win nor a loss
	} {
		if got := gameResult(tt.status, tt.winner, tt.color); got != tt.want {
			t.Errorf("gameResult(%q, %q, %q) = %q, want %q", tt.status, tt.winner, tt.color, got, tt.want)
		}
	}
}

// Each decline is logged with the rule of the configuration behind it,
// not only Lichess' reason key.
func TestDeclineLogsRule(t *testing.T) {
	h := newHarness(t)
	h.addHuman("Bob")
	h.addHuman("Carol")
	buf := withLog(h)
	_, stop := h.runBot(Settings{Challenge: ChallengePolicy{Variants: []string{"standard"}, BlockList: []string{"carol"},
		SpeedClocks: map[string]ClockRange{"blitz": {IncrementMax: 2 * time.Second}}}}, &playerPool{})
	clock := lichesstest.ChallengeParams{ClockLimit: 3 * time.Minute, ClockIncrement: 2 * time.Second}
	for _, tt := range []struct {
		from   string
		params lichesstest.ChallengeParams
		reason string
		rule   string
	}{
		{"Bob", lichesstest.ChallengeParams{ClockLimit: 3 * time.Minute, Variant: "crazyhouse"}, lichess.DeclineStandard, "variant not in challenge.variants"},
		{"Carol", clock, lichess.DeclineGeneric, "challenger in challenge.block_list"},
		{"Bob", lichesstest.ChallengeParams{ClockLimit: 3 * time.Minute, ClockIncrement: 3 * time.Second}, lichess.DeclineTimeControl,
			"increment over challenge.time_controls.blitz.increment_max"},
		{"Bob", lichesstest.ChallengeParams{Days: 2}, lichess.DeclineTimeControl, "correspondence not in challenge.speeds"},
	} {
		id := h.challenge(tt.from, tt.params)
		h.waitFor("decline of "+id, func() bool { st, _ := h.srv.ChallengeStatus(id); return st == "declined" })
		if _, reason := h.srv.ChallengeStatus(id); !strings.EqualFold(reason, tt.reason) {
			t.Errorf("%s: declined %q, want %q", tt.rule, reason, tt.reason)
		}
		testsupport.WaitFor(t, "decline logged", func() bool { return strings.Contains(buf.String(), id) })
		var found bool
		for _, ev := range withMessage(logEvents(t, buf), "declining challenge") {
			if ev["challenge"] == id {
				found = true
				if ev["rule"] != tt.rule || ev["reason"] != tt.reason || ev["level"] != "info" {
					t.Errorf("decline of %s logged as %v, want rule %q", id, ev, tt.rule)
				}
			}
		}
		if !found {
			t.Errorf("no declining challenge line for %s", id)
		}
	}
	stop()
}
