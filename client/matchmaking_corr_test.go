package client

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// addHouseBot adds a bot account played by the server (online, so the
// matchmaker may challenge it).
func addHouseBot(h *harness, name string, opts lichesstest.HouseOptions) {
	h.t.Helper()
	h.srv.AddAccount(name, "tok-"+name, true, 1900)
	if err := h.srv.SetHousePlayer(name, opts); err != nil {
		h.t.Fatal(err)
	}
}

// newCorrMatchBot is the bot of the correspondence matchmaking tests on
// h: correspondence accepted (1 to 7 days), one real-time slot (busy with
// a game) and corrSlots correspondence slots; matchmaking offers days
// only, idle for an hour.
func newCorrMatchBot(t *testing.T, h *harness, corrSlots int, days ...int) *Bot {
	t.Helper()
	b := NewBot(h.client(), nil, Settings{
		Challenge: ChallengePolicy{MaxGames: 1, MaxBotGamesPerDay: 100, MinDays: 1, MaxDays: 7,
			Speeds: []string{"blitz", "correspondence"}},
		Matchmaking:    MatchmakingSettings{Enabled: true, IdleTime: time.Minute, CorrespondenceDays: days},
		Correspondence: CorrespondenceSettings{Concurrency: corrSlots},
	}, testsupport.Logger(t))
	b.me = lichess.Account{ID: botID, Username: botName}
	b.idleFrom = time.Now().Add(-time.Hour)
	b.mm.corrIdleFrom = time.Now().Add(-time.Hour)
	b.games["busy"] = &gameWorker{} // the only real-time slot is taken
	return b
}

// A bot with only correspondence days configured (matchmaking's
// challenge_days) sends a correspondence challenge, Lichess' days without
// a clock, while its real-time slot is busy: it takes a correspondence
// slot. Its game, started on the opponent's move (parked), counts as the
// matchmaker's bot game and ends the challenge out.
func TestMatchmakerSendsCorrespondence(t *testing.T) {
	h := newHarness(t)
	addHouseBot(h, "corrbot", lichesstest.HouseOptions{ThinkTime: time.Hour})
	b := newCorrMatchBot(t, h, 2, 3)
	if mm := b.Settings().Matchmaking; len(mm.TimeControls) != 0 {
		t.Fatalf("days only: time controls %v added by default, want none", mm.TimeControls)
	}
	notes := &noteStore{memStore: newMemStore(), notes: map[string]bool{}}
	b.SetStore(notes)
	b.matchmakeOnce(h.ctx, b.Settings().Matchmaking)
	b.mu.Lock()
	id, kind := b.mm.outID, b.mm.outKind
	rt, corr := b.matchPendingSlotsLocked()
	b.mu.Unlock()
	if id == "" {
		t.Fatalf("no challenge out (online bots listed %d times)", h.requests("GET /api/bot/online"))
	}
	if !kind.corr() || kind.days != 3 || rt != 0 || corr != 1 {
		t.Errorf("challenge out of kind %v holds rt %d corr %d; want 3 days a move, a correspondence slot", kind, rt, corr)
	}
	if !notes.noted(id) {
		t.Errorf("our challenge %s: its game not noted once it was sent", id)
	}
	h.waitFor("the game of our challenge", func() bool { _, ok := h.srv.Game(id); return ok })
	g := h.game(id)
	if g.Speed != "correspondence" || g.DaysPerTurn != 3 || g.ClockInitial != 0 || g.ClockIncrement != 0 {
		t.Errorf("game %s: speed %s, %d days, clock %v+%v; want correspondence, 3 days, no clock", id, g.Speed, g.DaysPerTurn, g.ClockInitial, g.ClockIncrement)
	}
	// Lichess says the game started, on the opponent's move: parked.
	b.mu.Lock()
	b.parkLocked(id, "corrbot")
	out, counted, free := b.mm.outID, b.botGames.count(time.Now()), b.freeCorrSlotsLocked()
	b.mu.Unlock()
	if out != "" || counted != 1 || free != 1 {
		t.Errorf("after its game was parked: challenge out %q, bot games %d, correspondence slots free %d; want none, 1, 1", out, counted, free)
	}
}

// With every correspondence slot taken (a parked game, or a queued
// correspondence challenge that comes first), with correspondence not
// accepted by our own rules, or with only days our rules decline, the
// matchmaker sends no correspondence challenge; a slot free for less than
// idle_time neither. Once a slot has been free long enough, it does.
func TestMatchmakerCorrespondenceSlotsFull(t *testing.T) {
	h := newHarness(t)
	addHouseBot(h, "corrbot", lichesstest.HouseOptions{IgnoreChallenges: true})
	listed := 0
	try := func(what string, b *Bot, want bool) {
		t.Helper()
		b.matchmakeOnce(h.ctx, b.Settings().Matchmaking)
		n := h.requests("GET /api/bot/online")
		if got := n > listed; got != want {
			t.Errorf("%s: online bots listed: %v, want %v", what, got, want)
		}
		if n > listed && h.requests("POST /api/challenge/corrbot") != n {
			t.Errorf("%s: listed bots %d times, challenged %d times", what, n, h.requests("POST /api/challenge/corrbot"))
		}
		listed = n
	}

	b := newCorrMatchBot(t, h, 1, 2)
	b.parked["p1"] = parkedGame{opponent: "someone", at: time.Now()}
	try("the only correspondence slot held by a parked game", b, false)
	b.mu.Lock()
	corrIdle := b.mm.corrIdleFrom
	b.mu.Unlock()
	if time.Since(corrIdle) > time.Minute {
		t.Errorf("a round that found the correspondence slots full left idle_time counting from %v", corrIdle)
	}
	delete(b.parked, "p1")
	try("a correspondence slot just freed (idle_time 1m)", b, false)

	b = newCorrMatchBot(t, h, 1, 2)
	b.queue.add(&lichess.Challenge{ID: "waiting", Challenger: lichess.ChallengeUser{ID: "human"},
		TimeControl: lichess.TimeControl{Type: "correspondence", DaysPerTurn: 2}, Speed: "correspondence"}, time.Now())
	try("the only correspondence slot promised to a queued challenge", b, false)

	b = newCorrMatchBot(t, h, 1, 2)
	b.settings.Challenge.Speeds = []string{"blitz"}
	try("correspondence not in our speeds", b, false)

	b = newCorrMatchBot(t, h, 1, 10, 14)
	try("only days over our days_max", b, false)

	b = newCorrMatchBot(t, h, 1, 2)
	try("a correspondence slot free for an hour", b, true)
	b.mu.Lock()
	_, corr := b.matchPendingSlotsLocked()
	b.mu.Unlock()
	if corr != 1 {
		t.Error("the correspondence challenge out holds no correspondence slot")
	}
}

// pickKind: with clocks and days, each challenge is real-time or
// correspondence at random (a correspondence one carries days, no clock);
// with no real-time slot free, or no clock, only correspondence; with no
// days allowed now, only real-time; with neither, none.
func TestPickKindCorrespondence(t *testing.T) {
	blitz := TimeControlSetting{Base: 3 * time.Minute, Increment: 2 * time.Second}
	m := MatchmakingSettings{TimeControls: []TimeControlSetting{blitz}, CorrespondenceDays: []int{2, 5}}.withDefaults()
	seen := map[string]bool{}
	for range 400 {
		k, ok := m.pickKind(true, []int{2, 5})
		switch {
		case !ok:
			t.Fatal("no kind with a real-time slot and days free")
		case k.corr() && (k.tc != TimeControlSetting{} || !slices.Contains([]int{2, 5}, k.days) || k.speed() != "correspondence"):
			t.Fatalf("correspondence kind %+v", k)
		case !k.corr() && k.tc != blitz:
			t.Fatalf("real-time kind %+v", k)
		}
		seen[k.speed()] = true
		if k.corr() {
			seen[string(rune('0'+k.days))] = true
		}
	}
	for _, s := range []string{"blitz", "correspondence", "2", "5"} {
		if !seen[s] {
			t.Errorf("400 draws never gave %s", s)
		}
	}
	for range 50 {
		if k, ok := m.pickKind(false, []int{5}); !ok || k.days != 5 {
			t.Fatalf("no real-time slot: kind %+v, %v; want 5 days", k, ok)
		}
		if k, ok := m.pickKind(true, nil); !ok || k.corr() {
			t.Fatalf("no days allowed: kind %+v, %v; want real-time", k, ok)
		}
	}
	if k, ok := m.pickKind(false, nil); ok {
		t.Errorf("nothing free: kind %+v", k)
	}
	daysOnly := MatchmakingSettings{CorrespondenceDays: []int{3}}.withDefaults()
	for range 50 {
		if k, ok := daysOnly.pickKind(true, []int{3}); !ok || !k.corr() {
			t.Fatalf("days only: kind %+v, %v; want correspondence", k, ok)
		}
	}
}

// The days offered are those our own rules accept: correspondence among
// the speeds, within MinDays..MaxDays, challenges accepted at all.
func TestAcceptedDays(t *testing.T) {
	p := ChallengePolicy{Speeds: []string{"correspondence"}, MinDays: 2, MaxDays: 7}
	if got := p.acceptedDays([]int{1, 2, 3, 7, 10}); !slices.Equal(got, []int{2, 3, 7}) {
		t.Errorf("days 2..7: %v", got)
	}
	p.DeclineAll = true
	if got := p.acceptedDays([]int{3}); len(got) != 0 {
		t.Errorf("declining all: %v", got)
	}
	if got := (ChallengePolicy{Speeds: []string{"blitz"}}).acceptedDays([]int{3}); len(got) != 0 {
		t.Errorf("correspondence not accepted: %v", got)
	}
}

// The rating filters of a correspondence challenge read the opponent's
// correspondence rating (and ours), not a real-time one.
func TestMatchmakerRatingFiltersCorrespondence(t *testing.T) {
	user := func(id string, blitzR, corrR int) lichess.User {
		return lichess.User{ID: id, Username: id, Perfs: map[string]lichess.Perf{"blitz": {Rating: blitzR}, "correspondence": {Rating: corrR}}}
	}
	bots := []lichess.User{user("strongblitz", 2500, 1500), user("strongcorr", 1500, 2500)}
	me := lichess.Account{ID: botID, Perfs: map[string]lichess.Perf{"blitz": {Rating: 1500}, "correspondence": {Rating: 2500}}}
	corr := matchKind{variant: "standard", days: 3}
	v := matchmakeView{me: me, kind: corr}
	if got := v.candidates(bots, MatchmakingSettings{MinRating: 2000}.withDefaults()); len(got) != 1 || got[0].ID != "strongcorr" {
		t.Errorf("correspondence, min rating 2000: candidates %v, want [strongcorr]", got)
	}
	if got := v.candidates(bots, MatchmakingSettings{MaxRatingDiff: 100}.withDefaults()); len(got) != 1 || got[0].ID != "strongcorr" {
		t.Errorf("correspondence, within 100 of our correspondence rating: candidates %v, want [strongcorr]", got)
	}
}

// Declines are remembered per kind for correspondence too (speed
// correspondence): one about correspondence ("timeControl", or "tooSlow"
// at a slower speed than a real-time one) refuses correspondence, not
// blitz; a bare decline event of our correspondence challenge is recorded
// with speed correspondence.
func TestDeclinesPerKindCorrespondence(t *testing.T) {
	blitz := matchKind{variant: "standard", tc: TimeControlSetting{Base: 3 * time.Minute, Increment: 2 * time.Second}}
	corr := matchKind{variant: "standard", days: 3}
	for _, tt := range []struct {
		d                 DeclineRecord
		refCorr, refBlitz bool
	}{
		{DeclineRecord{Reason: lichess.DeclineTimeControl, Speed: "correspondence"}, true, false},
		{DeclineRecord{Reason: lichess.DeclineTooSlow, Speed: "correspondence"}, true, false},
		{DeclineRecord{Reason: lichess.DeclineTooSlow, Speed: "rapid"}, true, false},
		{DeclineRecord{Reason: lichess.DeclineTooFast, Speed: "correspondence"}, true, true},
		{DeclineRecord{Reason: lichess.DeclineTimeControl, Speed: "blitz"}, false, true},
	} {
		if c, b := tt.d.refuses(corr), tt.d.refuses(blitz); c != tt.refCorr || b != tt.refBlitz {
			t.Errorf("%s at %s refuses correspondence %v, blitz %v; want %v, %v", tt.d.Reason, tt.d.Speed, c, b, tt.refCorr, tt.refBlitz)
		}
	}
	b := NewBot(nil, nil, Settings{}, testsupport.Logger(t))
	b.me = lichess.Account{ID: botID, Username: botName}
	b.sendingChallenge(true)
	b.challengeSent(context.Background(), "c-corr", "corrbot", corr)
	b.onOutgoingClosed(lichess.Event{Type: lichess.EventChallengeDeclined, Challenge: &lichess.Challenge{
		ID: "c-corr", Challenger: lichess.ChallengeUser{ID: botID}, DestUser: &lichess.ChallengeUser{ID: "corrbot", Name: "corrbot"},
		DeclineReasonKey: lichess.DeclineTimeControl}})
	if h := declineHistory(b); len(h) != 1 || h[0].Speed != "correspondence" {
		t.Errorf("history %+v, want the decline with speed correspondence", h)
	}
}
