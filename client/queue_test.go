package client

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// The challenge queue (queue.go): challenges that find every slot busy
// wait, in order, and are accepted when a game ends; withdrawn, too old or
// beyond the queue's length, they are never accepted.

var queueClock = lichesstest.ChallengeParams{ClockLimit: 3 * time.Minute, ClockIncrement: 2 * time.Second}

// queueSettings: one slot, a queue of n, and games that wait for the test
// (no abort of a silent opponent).
func queueSettings(n int) Settings {
	return Settings{Challenge: ChallengePolicy{MaxGames: 1, QueueLength: n}, Game: GameSettings{AbortAfter: -1}}
}

// addPlayer adds an opponent with a rating; bot gives it the BOT title.
func (h *harness) addPlayer(name string, rating int, bot bool) {
	h.srv.AddAccount(name, "tok-"+name, bot, rating)
}

// waitQueued waits until the bot's queue holds exactly ids, in this order.
func waitQueued(t *testing.T, b *Bot, ids ...string) {
	t.Helper()
	testsupport.WaitFor(t, fmt.Sprintf("queue %v", ids), func() bool { return slices.Equal(b.QueuedChallenges(), ids) })
}

// answers counts our bot's accepts or declines (action "accept",
// "decline") of challenge id.
func (h *harness) answers(id, action string) int {
	return len(h.srv.RequestsMatching("POST /api/challenge/" + id + "/" + action))
}

func (h *harness) waitDeclined(id, reason string) {
	h.t.Helper()
	h.waitFor("decline of "+id, func() bool { st, _ := h.srv.ChallengeStatus(id); return st != "created" })
	if st, key := h.srv.ChallengeStatus(id); st != "declined" || key != strings.ToLower(reason) {
		h.t.Fatalf("challenge %s: %s %q, want declined %q", id, st, key, reason)
	}
}

// With one slot, challenges arriving at once become games played one after
// another, in arrival order, none declined.
func TestQueueOneGameAtATime(t *testing.T) {
	h := newHarness(t)
	const n = 4
	var names []string
	for i := range n {
		name := fmt.Sprintf("House%d", i)
		h.addHouse(name, houseFirst(6))
		names = append(names, name)
	}
	_, stop := h.runBot(Settings{Challenge: ChallengePolicy{MaxGames: 1, QueueLength: n}}, &playerPool{})
	var ids []string
	for _, name := range names {
		ids = append(ids, h.challenge(name, queueClock))
	}
	var games []lichesstest.GameSnapshot
	for _, id := range ids {
		games = append(games, h.waitOver(id))
	}
	stop()
	for i, g := range games {
		if st, _ := h.srv.ChallengeStatus(ids[i]); st != "accepted" {
			t.Errorf("challenge %d: %s", i, st)
		}
		if g.Status != "resign" {
			t.Errorf("game %d ended %s after %d plies", i, g.Status, len(g.Moves))
		}
		if i > 0 && g.CreatedAt.Before(games[i-1].FinishedAt) {
			t.Errorf("game %d started before game %d ended: two games at once", i, i-1)
		}
	}
	if d := h.requests("POST /api/challenge/*/decline"); d != 0 {
		t.Errorf("%d challenges declined", d)
	}
	h.noRefusedMoves()
}

// A challenge withdrawn while it waits leaves the queue and is never
// accepted; the next one gets the slot.
func TestQueueWithdrawnNeverAccepted(t *testing.T) {
	h := newHarness(t)
	h.addHuman("opponent")
	h.addHuman("alice")
	h.addHuman("bob")
	game := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	b, stop := h.runBot(queueSettings(5), &playerPool{})
	h.waitPlies(game, 1)
	withdrawn := h.challenge("alice", queueClock)
	next := h.challenge("bob", queueClock)
	waitQueued(t, b, withdrawn, next)
	if err := h.srv.CancelChallenge(withdrawn); err != nil {
		t.Fatal(err)
	}
	waitQueued(t, b, next)
	if err := h.srv.Resign(game, "opponent"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the next game", func() bool { st, _ := h.srv.ChallengeStatus(next); return st == "accepted" })
	stop()
	if n := h.answers(withdrawn, "accept"); n != 0 {
		t.Errorf("the withdrawn challenge got %d accepts", n)
	}
	if st, _ := h.srv.ChallengeStatus(withdrawn); st != "canceled" {
		t.Errorf("withdrawn challenge %s", st)
	}
}

// A challenge that finds the queue full is declined "later"; those in the
// queue stay open. Without a queue every challenge that finds the slots
// busy is declined "later", as before the queue.
func TestQueueFullDeclinesLater(t *testing.T) {
	for _, length := range []int{0, 2} {
		t.Run(fmt.Sprintf("length %d", length), func(t *testing.T) {
			h := newHarness(t)
			h.addHuman("opponent")
			game := h.startGame("opponent", true, lichesstest.ChallengeParams{})
			buf := withLog(h)
			b, stop := h.runBot(queueSettings(length), &playerPool{})
			h.waitPlies(game, 1)
			var waiting []string
			for i := range length {
				name := fmt.Sprintf("waiter%d", i)
				h.addHuman(name)
				waiting = append(waiting, h.challenge(name, queueClock))
			}
			waitQueued(t, b, waiting...)
			h.addHuman("late")
			late := h.challenge("late", queueClock)
			h.waitDeclined(late, lichess.DeclineLater)
			// The logged rule names the key to change: with no queue it is
			// the concurrency, with one the queue's length.
			wantRule := "challenge.queue_length reached"
			if length == 0 {
				wantRule = "every challenge.concurrency slot busy (no queue: challenge.queue_length is 0)"
			}
			testsupport.WaitFor(t, "decline logged", func() bool { return strings.Contains(buf.String(), late) })
			for _, ev := range withMessage(logEvents(t, buf), "declining challenge") {
				if ev["challenge"] == late && ev["rule"] != wantRule {
					t.Errorf("decline of %s logged with rule %v, want %q", late, ev["rule"], wantRule)
				}
			}
			stop()
			for _, id := range waiting {
				if st, _ := h.srv.ChallengeStatus(id); st != "created" {
					t.Errorf("queued challenge %s: %s", id, st)
				}
			}
		})
	}
}

// A challenge that has waited longer than QueueMaxAge is declined "later"
// while the game that holds the slot goes on, and is never accepted.
func TestQueueMaxAgeDeclines(t *testing.T) {
	h := newHarness(t)
	h.addHuman("opponent")
	h.addHuman("alice")
	game := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	s := queueSettings(5)
	s.Challenge.QueueMaxAge = 50 * time.Millisecond
	b, stop := h.runBot(s, &playerPool{})
	h.waitPlies(game, 1)
	old := h.challenge("alice", queueClock)
	h.waitDeclined(old, lichess.DeclineLater)
	if q := b.QueuedChallenges(); len(q) != 0 {
		t.Errorf("queue after the decline: %v", q)
	}
	if g := h.game(game); g.Finished {
		t.Errorf("the running game ended (%s): the slot was never busy", g.Status)
	}
	stop()
	if n := h.answers(old, "accept"); n != 0 {
		t.Errorf("the old challenge got %d accepts", n)
	}
}

// SortBy orders the queue: arrival, or the best-rated first; the freed slot
// goes to the first in that order.
func TestQueueSortBy(t *testing.T) {
	for _, by := range []string{SortFirst, SortBest} {
		t.Run(by, func(t *testing.T) {
			h := newHarness(t)
			h.addHuman("opponent")
			h.addPlayer("low", 1400, false)
			h.addPlayer("high", 2200, false)
			h.addPlayer("mid", 1900, false)
			game := h.startGame("opponent", true, lichesstest.ChallengeParams{})
			s := queueSettings(5)
			s.Challenge.SortBy = by
			b, stop := h.runBot(s, &playerPool{})
			h.waitPlies(game, 1)
			low := h.challenge("low", queueClock)
			waitQueued(t, b, low) // arrival order is the order the bot saw them in
			high := h.challenge("high", queueClock)
			waitQueued(t, b, map[string][]string{SortFirst: {low, high}, SortBest: {high, low}}[by]...)
			mid := h.challenge("mid", queueClock)
			want := map[string][]string{SortFirst: {low, high, mid}, SortBest: {high, mid, low}}[by]
			waitQueued(t, b, want...)
			if err := h.srv.Resign(game, "opponent"); err != nil {
				t.Fatal(err)
			}
			h.waitFor("the next game", func() bool { st, _ := h.srv.ChallengeStatus(want[0]); return st == "accepted" })
			waitQueued(t, b, want[1:]...)
			stop()
		})
	}
}

// At start-up the bot lists the challenges still open for it and queues
// them all before serving any: with SortBest the best-rated gets the slot,
// though it was sent last; one that breaks the rules is declined.
func TestQueueOpenChallengesAtStartUp(t *testing.T) {
	h := newHarness(t)
	h.addPlayer("low", 1400, false)
	h.addPlayer("mid", 1900, false)
	h.addPlayer("high", 2200, false)
	h.addPlayer("atom", 2500, false)
	low := h.challenge("low", queueClock)
	mid := h.challenge("mid", queueClock)
	atomic := h.challenge("atom", lichesstest.ChallengeParams{ClockLimit: 3 * time.Minute, Variant: "atomic"})
	high := h.challenge("high", queueClock)
	s := queueSettings(5)
	s.Challenge.SortBy = SortBest
	b, stop := h.runBot(s, &playerPool{})
	h.waitFor("a game", func() bool { st, _ := h.srv.ChallengeStatus(high); return st == "accepted" })
	waitQueued(t, b, mid, low)
	h.waitDeclined(atomic, lichess.DeclineVariant)
	// The stream sends the open challenges again when it reopens: they
	// are not answered twice.
	h.srv.DropEventStream(botName)
	h.waitFor("a second event stream", func() bool {
		return h.requests("GET /api/stream/event") >= 2 && h.srv.EventStreamOpen(botName)
	})
	// Events come in order: once a new challenge is queued, the bot has
	// seen those sent again.
	h.addPlayer("late", 1000, false)
	late := h.challenge("late", queueClock)
	waitQueued(t, b, mid, low, late)
	stop()
	if n := h.requests("GET /api/challenge"); n != 1 {
		t.Errorf("open challenges listed %d times, want once", n)
	}
	for _, id := range []string{low, mid} {
		if a, d := h.answers(id, "accept"), h.answers(id, "decline"); a+d != 0 {
			t.Errorf("queued challenge %s: %d accepts, %d declines", id, a, d)
		}
	}
	if n := h.answers(high, "accept"); n != 1 {
		t.Errorf("best challenge accepted %d times", n)
	}
}

// When the list of open challenges fails, the bot still answers those the
// event stream sends.
func TestQueueOpenChallengesListFails(t *testing.T) {
	h := newHarness(t)
	h.addHouse("Alice", houseFirst(4))
	id := h.challenge("Alice", queueClock)
	h.srv.InjectError("GET /api/challenge", 1, 500)
	_, stop := h.runBot(queueSettings(5), &playerPool{})
	g := h.waitOver(id)
	stop()
	if g.Status != "resign" {
		t.Errorf("game ended %s", g.Status)
	}
}

// With a token that has bot:play only (as the README asks), listing the
// open challenges is refused; the event stream brings them.
func TestQueueOpenChallengesWithoutScope(t *testing.T) {
	h := newHarness(t)
	h.srv.SetScopes(botName, lichesstest.ScopeBotPlay)
	h.addHouse("Alice", houseFirst(4))
	id := h.challenge("Alice", queueClock)
	_, stop := h.runBot(queueSettings(5), &playerPool{})
	g := h.waitOver(id)
	stop()
	if g.Status != "resign" {
		t.Errorf("game ended %s", g.Status)
	}
	list := h.srv.RequestsMatching("GET /api/challenge")
	if len(list) != 1 || list[0].Status != 403 {
		t.Errorf("open challenges listed %d times (%+v), want once, refused", len(list), list)
	}
}

// GamesReservedForHumans: a bot's challenge waits while only reserved slots
// are free, and a human's takes one.
func TestQueueReservedForHumans(t *testing.T) {
	h := newHarness(t)
	h.addHuman("opponent")
	h.addPlayer("robot", 2000, true)
	h.addPlayer("human", 1500, false)
	game := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	s := queueSettings(5)
	s.Challenge.MaxGames, s.Challenge.ReservedForHumans = 2, 1
	b, stop := h.runBot(s, &playerPool{})
	h.waitPlies(game, 1)
	botCh := h.challenge("robot", queueClock)
	waitQueued(t, b, botCh)
	humanCh := h.challenge("human", queueClock)
	h.waitFor("the human's game", func() bool { st, _ := h.srv.ChallengeStatus(humanCh); return st == "accepted" })
	waitQueued(t, b, botCh)
	// Both games end: the bot's challenge gets a slot.
	if err := h.srv.Resign(game, "opponent"); err != nil {
		t.Fatal(err)
	}
	if err := h.srv.Resign(humanCh, "human"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the bot's game", func() bool { st, _ := h.srv.ChallengeStatus(botCh); return st == "accepted" })
	stop()
}

// MaxGamesPerUser: a second challenge of an opponent already playing waits,
// while another player's is accepted.
func TestQueueMaxGamesPerUser(t *testing.T) {
	h := newHarness(t)
	h.addHuman("alice")
	h.addHuman("bob")
	game := h.startGame("alice", true, lichesstest.ChallengeParams{})
	s := queueSettings(5)
	s.Challenge.MaxGames, s.Challenge.MaxGamesPerUser = 3, 1
	b, stop := h.runBot(s, &playerPool{})
	h.waitPlies(game, 1)
	again := h.challenge("alice", queueClock)
	waitQueued(t, b, again)
	other := h.challenge("bob", queueClock)
	h.waitFor("bob's game", func() bool { st, _ := h.srv.ChallengeStatus(other); return st == "accepted" })
	waitQueued(t, b, again)
	if err := h.srv.Resign(game, "alice"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("alice's second game", func() bool { st, _ := h.srv.ChallengeStatus(again); return st == "accepted" })
	stop()
}

// Draining declines what waits, with "later", while the running game goes
// on.
func TestQueueDrainDeclines(t *testing.T) {
	h := newHarness(t)
	h.addHuman("opponent")
	h.addHuman("alice")
	game := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	b, stop := h.runBot(queueSettings(5), &playerPool{})
	h.waitPlies(game, 1)
	waiting := h.challenge("alice", queueClock)
	waitQueued(t, b, waiting)
	drained := make(chan error, 1)
	go func() { drained <- b.Drain(context.Background()) }()
	h.waitDeclined(waiting, lichess.DeclineLater)
	if g := h.game(game); g.Finished {
		t.Errorf("the running game ended: %s", g.Status)
	}
	if err := h.srv.Resign(game, "opponent"); err != nil {
		t.Fatal(err)
	}
	if err := <-drained; err != nil {
		t.Errorf("Drain: %v", err)
	}
	stop()
	if n := h.answers(waiting, "accept"); n != 0 {
		t.Errorf("a queued challenge was accepted %d times while draining", n)
	}
}

// A waiting challenge that the rules refuse after a reload is declined with
// the rule's reason.
func TestQueueRulesChangedWhileWaiting(t *testing.T) {
	h := newHarness(t)
	h.addHuman("opponent")
	h.addHuman("alice")
	game := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	b, stop := h.runBot(queueSettings(5), &playerPool{})
	h.waitPlies(game, 1)
	blitzCh := h.challenge("alice", queueClock)
	waitQueued(t, b, blitzCh)
	s := queueSettings(5)
	s.Challenge.Speeds = []string{"rapid", "classical"}
	b.UpdateSettings(s)
	h.waitDeclined(blitzCh, lichess.DeclineTooFast)
	stop()
}

// !queue in the game chat says how many challenges wait.
func TestChatQueue(t *testing.T) {
	h := newHarness(t)
	h.addHuman("opponent")
	h.addHuman("alice")
	h.addHuman("bob")
	game := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	b, stop := h.runBot(queueSettings(5), &playerPool{})
	h.waitPlies(game, 1)
	waitQueued(t, b, h.challenge("alice", queueClock), h.challenge("bob", queueClock))
	if err := h.srv.Chat(game, "opponent", "player", "!queue"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the answer", func() bool { return slices.Contains(h.botChat(game), "player:2 challenges are waiting.") })
	stop()
}

// The queue's order and expiry, without a server.
func TestChallengeQueueOrder(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	var q challengeQueue
	for i, r := range []int{1500, 2000, 0, 2000, 1800} {
		q.add(&lichess.Challenge{ID: fmt.Sprint("c", i), Challenger: lichess.ChallengeUser{Rating: r}}, t0.Add(time.Duration(i)*time.Second))
	}
	ids := func(es []queuedChallenge) string {
		var s []string
		for _, e := range es {
			s = append(s, e.ch.ID)
		}
		return strings.Join(s, " ")
	}
	if got := ids(q.sorted(SortFirst)); got != "c0 c1 c2 c3 c4" {
		t.Errorf("first: %s", got)
	}
	if got := ids(q.sorted(SortBest)); got != "c1 c3 c4 c0 c2" {
		t.Errorf("best: %s (ties in arrival order, unknown rating last)", got)
	}
	if got := q.nextExpiry(time.Minute); !got.Equal(t0.Add(time.Minute)) {
		t.Errorf("next expiry %v", got)
	}
	if !q.remove("c0") || q.remove("c0") || q.has("c0") || !q.has("c1") {
		t.Error("remove")
	}
	if got := q.nextExpiry(time.Minute); !got.Equal(t0.Add(time.Minute + time.Second)) {
		t.Errorf("next expiry after the oldest left: %v", got)
	}
	if all := q.takeAll(); len(all) != 4 || len(q.items) != 0 || !q.nextExpiry(time.Minute).IsZero() {
		t.Errorf("takeAll: %d taken, %d left", len(all), len(q.items))
	}
	for n, want := range map[int]string{0: "No challenge is waiting.", 1: "1 challenge is waiting.", 3: "3 challenges are waiting."} {
		if got := queueText(n); got != want {
			t.Errorf("queueText(%d) = %q", n, got)
		}
	}
}

// A challenge is answered once, though a list or the event stream names it
// again: one decline for one that breaks the rules, one place in the queue
// for one that waits.
func TestQueueAnswersEachChallengeOnce(t *testing.T) {
	h := newHarness(t)
	h.addHuman("opponent")
	game := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	b, stop := h.runBot(queueSettings(5), &playerPool{})
	h.waitPlies(game, 1)
	mk := func(id, variant string) *lichess.Challenge {
		return &lichess.Challenge{ID: id, Challenger: lichess.ChallengeUser{ID: "someone", Name: "Someone", Rating: 1500},
			Variant: lichess.Variant{Key: variant}, Speed: "blitz", TimeControl: lichess.TimeControl{Type: "clock", Limit: 180, Increment: 2}}
	}
	bad, good := mk("badchal1", "atomic"), mk("goodcha1", "standard")
	b.admit(h.ctx, []*lichess.Challenge{bad, good, bad, good, nil, {}})
	waitQueued(t, b, good.ID)
	b.admit(h.ctx, []*lichess.Challenge{good}) // as the reopened stream would
	// The declined one sent again, in a separate round (the start-up list
	// and the stream both naming it, before the decline has landed).
	b.admit(h.ctx, []*lichess.Challenge{bad})
	stop()
	waitQueued(t, b, good.ID)
	if n := h.answers(bad.ID, "decline"); n != 1 {
		t.Errorf("%d declines of the bad challenge, want 1", n)
	}
	if n := h.answers(good.ID, "decline") + h.answers(good.ID, "accept"); n != 0 {
		t.Errorf("%d answers to the queued challenge, want none", n)
	}
}

// Bot challenges accepted in one round count against the daily bot-game
// limit at once, not only when their accepts have come back: two open at
// start-up, with a limit of one, make one game and one "later".
func TestQueueBotGamesPerDayCountsAcceptsInFlight(t *testing.T) {
	h := newHarness(t)
	h.addPlayer("botA", 2000, true)
	h.addPlayer("botB", 2000, true)
	a := h.challenge("botA", queueClock)
	bb := h.challenge("botB", queueClock)
	s := queueSettings(5)
	s.Challenge.MaxGames, s.Challenge.MaxBotGamesPerDay = 3, 1
	_, stop := h.runBot(s, &playerPool{})
	accepted, declined := "", ""
	h.waitFor("both answered", func() bool {
		for _, id := range []string{a, bb} {
			switch st, _ := h.srv.ChallengeStatus(id); st {
			case "accepted":
				accepted = id
			case "declined":
				declined = id
			}
		}
		return accepted != "" && declined != ""
	})
	stop()
	if n := h.answers(a, "accept") + h.answers(bb, "accept"); n != 1 {
		t.Errorf("%d bot challenges accepted, want 1 (the daily limit)", n)
	}
}

// A challenge gets a slot while fewer than MaxGames games run or are
// accepted, bots only outside the slots reserved for humans, and no
// opponent more than MaxGamesPerUser at once. (The slot rows of
// TestChallengePolicy moved here with the rule.)
func TestHasSlot(t *testing.T) {
	human := &lichess.Challenge{ID: "c1", Challenger: lichess.ChallengeUser{ID: "alice", Name: "Alice"}}
	bot := &lichess.Challenge{ID: "c2", Challenger: lichess.ChallengeUser{ID: "robo", Name: "Robo", Title: "BOT"}}
	for _, tc := range []struct {
		name   string
		p      ChallengePolicy
		ch     *lichess.Challenge
		games  int
		pendOf string // an accepted challenge of this user holds one of the games
		want   bool
	}{
		{"max games", ChallengePolicy{MaxGames: 2}, human, 2, "", false},
		{"room for one more", ChallengePolicy{MaxGames: 2}, human, 1, "", true},
		{"reserved for humans: a human", ChallengePolicy{MaxGames: 2, ReservedForHumans: 1}, human, 1, "", true},
		{"reserved for humans: a bot", ChallengePolicy{MaxGames: 2, ReservedForHumans: 1}, bot, 1, "", false},
		{"bot with room", ChallengePolicy{MaxGames: 3, ReservedForHumans: 1}, bot, 1, "", true},
		{"per user", ChallengePolicy{MaxGames: 3, MaxGamesPerUser: 1}, human, 1, "alice", false},
		{"per user, another", ChallengePolicy{MaxGames: 3, MaxGamesPerUser: 1}, human, 1, "bob", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &Bot{settings: Settings{Challenge: tc.p}, games: map[string]*gameWorker{}, pending: map[string]pendingGame{}}
			if tc.pendOf != "" {
				b.pending["p1"] = pendingGame{user: tc.pendOf}
			}
			if got := b.hasSlotLocked(tc.ch, tc.games, 0); got != tc.want {
				t.Errorf("hasSlot = %v, want %v", got, tc.want)
			}
		})
	}
}

// An accept that fails for a reason that may pass (here a 502) puts the
// challenge back in its place: Lichess keeps it open, and it is accepted on
// the retry. One refused as gone (404) is dropped.
func TestQueueRetriesFailedAccept(t *testing.T) {
	h := newHarness(t)
	h.acceptRetry = 20 * time.Millisecond
	h.addHuman("alice")
	h.srv.InjectError("POST /api/challenge/*/accept", 1, http.StatusBadGateway)
	_, stop := h.runBot(queueSettings(5), &playerPool{})
	id := h.challenge("alice", queueClock)
	h.waitFor("the retried accept", func() bool { st, _ := h.srv.ChallengeStatus(id); return st == "accepted" })
	stop()
	if n := h.requests("POST /api/challenge/" + id + "/accept"); n != 2 {
		t.Errorf("%d accepts sent, want 2 (the failed one and the retry)", n)
	}
}
