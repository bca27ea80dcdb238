package client

import (
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// arenaScopes gives our bot's token the tournament:write scope besides
// the Bot API's.
func (h *harness) arenaScopes() {
	h.srv.SetScopes(botName, lichesstest.ScopeBotPlay, lichesstest.ScopeChallengeRead, lichesstest.ScopeChallengeWrite,
		lichesstest.ScopeTournamentWrite)
}

// startedArena creates an arena of p on the fake server and starts it.
func (h *harness) startedArena(p lichesstest.ArenaParams) string {
	h.t.Helper()
	id := h.srv.CreateArena(p)
	if err := h.srv.StartArena(id); err != nil {
		h.t.Fatal(err)
	}
	return id
}

// The tournament-pairing test: the bot joins the arena of its settings
// when it starts, is paired twice (once each colour) against a house
// player, plays both games to a result, asks for a new pairing after the
// first game, sends no matchmaking challenge while the arena runs, and
// withdraws when it drains.
func TestArenaPairings(t *testing.T) {
	h := newHarness(t)
	h.arenaScopes()
	h.addHouse("ArenaFoe", lichesstest.HouseOptions{Strategy: lichesstest.HouseGreedy})
	h.srv.AddAccount("IdleBot", "tok-IdleBot", true, 2000) // a bot that matchmaking would challenge
	if err := h.srv.SetHousePlayer("IdleBot", lichesstest.HouseOptions{}); err != nil {
		t.Fatal(err)
	}
	id := h.srv.CreateArena(lichesstest.ArenaParams{Name: "Bot Arena", ClockLimit: time.Minute, ClockIncrement: time.Second,
		Minutes: 30, BotsAllowed: true, Password: "arena-pw"})
	if err := h.srv.JoinArena(id, "ArenaFoe", "arena-pw", ""); err != nil {
		t.Fatal(err)
	}
	if err := h.srv.StartArena(id); err != nil {
		t.Fatal(err)
	}
	s := Settings{
		Challenge: ChallengePolicy{MaxGames: 1},
		Tournament: TournamentSettings{Join: []ArenaEntry{{ID: id, Password: "arena-pw"}},
			CheckEvery: 100 * time.Millisecond, PairEvery: 30 * time.Second},
		Matchmaking: MatchmakingSettings{Enabled: true, IdleTime: 2 * time.Second, CheckEvery: 50 * time.Millisecond},
	}
	b, stop := h.runBot(s, &playerPool{})

	var games []string
	for i, botWhite := range []bool{true, false} {
		h.waitFor("the bot to wait for a pairing", func() bool { return h.srv.ArenaWaiting(id, botName) })
		white, black := botName, "ArenaFoe"
		if !botWhite {
			white, black = black, white
		}
		gid, err := h.srv.PairArena(id, white, black)
		if err != nil {
			t.Fatalf("pairing %d: %v", i+1, err)
		}
		paired := time.Now() // the gameStart is sent
		games = append(games, gid)
		h.resignAfter(gid, "ArenaFoe", 10)
		wantWinner := "white"
		if !botWhite {
			wantWinner = "black"
		}
		if g := h.waitOver(gid); g.Status != "resign" || g.Winner != wantWinner {
			t.Errorf("arena game %s ended %s, winner %q: want the house player's resignation", gid, g.Status, g.Winner)
		}
		// With its only slot taken, the bot asked for no pairing during
		// the game (up to its last move, when it was surely still full).
		var lastMove time.Time
		for _, r := range h.srv.RequestsMatching("POST /api/bot/game/" + gid + "/move/*") {
			if r.Time.After(lastMove) {
				lastMove = r.Time
			}
		}
		for _, r := range h.srv.RequestsMatching("POST /api/tournament/*/join") {
			if strings.EqualFold(r.Account, botName) && r.Time.After(paired) && r.Time.Before(lastMove) {
				t.Errorf("game %d: a join at %v, while the bot played its only game (%v to %v)", i+1, r.Time, paired, lastMove)
			}
		}
	}
	// After the second game the bot asks again: it is free and the arena runs.
	h.waitFor("the bot to wait for a third pairing", func() bool { return h.srv.ArenaWaiting(id, botName) })

	if err := b.Drain(h.ctx); err != nil {
		t.Fatal(err)
	}
	snap, _ := h.srv.Arena(id)
	var me *lichesstest.ArenaPlayerSnapshot
	for i := range snap.Players {
		if strings.EqualFold(snap.Players[i].Username, botName) {
			me = &snap.Players[i]
		}
	}
	if me == nil || me.Joins < 3 || me.Withdrawals != 1 || !me.Paused {
		t.Errorf("the bot in the arena: %+v (want 3+ joins: at start and one per pairing, then 1 withdrawal)", me)
	}
	if h.srv.ArenaWaiting(id, botName) {
		t.Error("the bot still waits for a pairing after draining")
	}
	if len(snap.Games) != 2 || snap.Games[0] != games[0] || snap.Games[1] != games[1] {
		t.Errorf("arena games %v, want %v", snap.Games, games)
	}
	stop()
	if n := h.requests("POST /api/tournament/*/withdraw"); n != 1 {
		t.Errorf("%d withdrawals, want 1 (Drain's; Run's end has nothing left to withdraw)", n)
	}
	if n := h.requests("POST /api/challenge/*"); n != 0 {
		t.Errorf("matchmaking sent %d challenges while the arena ran", n)
	}
	if n := b.botGames.count(time.Now()); n != 0 {
		t.Errorf("%d arena games against a human counted as bot games", n)
	}
	h.noRefusedMoves()
}

// A restarted bot joins its arenas again; Run's end (without Drain)
// withdraws too.
func TestArenaRejoinAfterRestart(t *testing.T) {
	h := newHarness(t)
	h.arenaScopes()
	id := h.srv.CreateArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true})
	s := Settings{Tournament: TournamentSettings{Join: []ArenaEntry{{ID: id}}, CheckEvery: 50 * time.Millisecond}}
	for run := 1; run <= 2; run++ {
		_, stop := h.runBot(s, &playerPool{})
		h.waitFor("the join", func() bool {
			snap, _ := h.srv.Arena(id)
			return len(snap.Players) == 1 && snap.Players[0].Joins == 1 // a withdrawal before the start leaves
		})
		stop()
		if n := h.requests("POST /api/tournament/*/withdraw"); n != run {
			t.Fatalf("run %d: %d withdrawals in all, want %d", run, n, run)
		}
		if n := h.requests("POST /api/tournament/*/join"); n != run {
			t.Fatalf("run %d: %d joins in all, want %d", run, n, run)
		}
		if snap, _ := h.srv.Arena(id); len(snap.Players) != 0 {
			t.Fatalf("run %d: still in the created arena after stopping: %+v", run, snap)
		}
	}
}

// A reload that takes an arena off the list withdraws from it; one that
// adds an arena joins it.
func TestArenaReload(t *testing.T) {
	h := newHarness(t)
	h.arenaScopes()
	first := h.srv.CreateArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true})
	second := h.srv.CreateArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true})
	players := func(id string) int { snap, _ := h.srv.Arena(id); return len(snap.Players) }
	s := Settings{Tournament: TournamentSettings{Join: []ArenaEntry{{ID: first}}, CheckEvery: 50 * time.Millisecond}}
	b, stop := h.runBot(s, &playerPool{})
	h.waitFor("the first join", func() bool { return players(first) == 1 })
	s.Tournament.Join = []ArenaEntry{{ID: second}}
	b.UpdateSettings(s)
	h.waitFor("the swap", func() bool { return players(first) == 0 && players(second) == 1 })
	stop()
	if n := h.requests("POST /api/tournament/" + first + "/*"); n != 2 {
		t.Errorf("%d requests for the arena taken off the list, want its join and one withdrawal", n)
	}
	if players(second) != 0 {
		t.Error("still in the second arena after stopping")
	}
}

// arenaBot is a Bot for the round tests: not running, with s, as if its
// event stream were open.
func arenaBot(t *testing.T, h *harness, s Settings) *Bot {
	b := NewBot(h.client(), (&playerPool{}).factory, s, testsupport.Logger(t))
	b.eventsOpen = true
	return b
}

// An arena that refuses the join (wrong password), an arena without
// bots, one over, and a token without tournament:write are each asked
// once and then left alone: later rounds send nothing for them.
func TestArenaRefusalsAreFinal(t *testing.T) {
	h := newHarness(t)
	h.arenaScopes()
	ctx := h.ctx
	pw := h.srv.CreateArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true, Password: "right"})
	noBots := h.srv.CreateArena(lichesstest.ArenaParams{ClockLimit: time.Minute})
	over := h.srv.CreateArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true})
	if err := h.srv.FinishArena(over); err != nil {
		t.Fatal(err)
	}
	b := arenaBot(t, h, Settings{Tournament: TournamentSettings{Join: []ArenaEntry{
		{ID: pw, Password: "wrong"}, {ID: noBots}, {ID: over}, {ID: "nosuchid"}}}})
	for range 4 {
		b.arenaRound(ctx, time.Now())
	}
	before := len(h.srv.Requests())
	for range 3 {
		if next := b.arenaRound(ctx, time.Now()); !next.IsZero() {
			t.Errorf("a round wants to run again at %v with every arena left alone", next)
		}
	}
	if n := len(h.srv.Requests()); n != before {
		t.Errorf("%d requests after every arena was left alone", n-before)
	}
	if n := h.requests("POST /api/tournament/" + over + "/join"); n != 0 {
		t.Errorf("joined an arena that is over %d times", n)
	}
	for _, id := range []string{pw, noBots} {
		if n := h.requests("POST /api/tournament/" + id + "/join"); n != 1 {
			t.Errorf("arena %s: %d joins, want 1", id, n)
		}
	}
	b.mu.Lock()
	in := b.inArenaLocked()
	b.mu.Unlock()
	if in {
		t.Error("in an arena without having joined one")
	}

	// Without the scope: the 403 is final too.
	h.srv.SetScopes(botName, lichesstest.ScopeBotPlay)
	open := h.srv.CreateArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true})
	b2 := arenaBot(t, h, Settings{Tournament: TournamentSettings{Join: []ArenaEntry{{ID: open}}}})
	for range 4 {
		b2.arenaRound(ctx, time.Now())
	}
	if n := h.requests("POST /api/tournament/" + open + "/join"); n != 1 {
		t.Errorf("joins without the scope: %d, want 1", n)
	}
}

// arenaPlan asks for pairings only with a free real-time slot, one arena
// per slot in the order of the list, never in an arena whose game runs,
// and renews an ask every PairEvery.
func TestArenaPlanSlots(t *testing.T) {
	h := newHarness(t)
	b := arenaBot(t, h, Settings{Challenge: ChallengePolicy{MaxGames: 2},
		Tournament: TournamentSettings{Join: []ArenaEntry{{ID: "arenaAAA"}, {ID: "arenaBBB"}, {ID: "arenaCCC"}}, PairEvery: time.Minute}})
	now := time.Now()
	b.mu.Lock()
	st := b.arenasLocked()
	for _, id := range []string{"arenaAAA", "arenaBBB", "arenaCCC"} {
		st.arenas[id] = &arenaJoin{entry: ArenaEntry{ID: id}, joined: true, state: lichess.ArenaStarted, checkAt: now.Add(time.Hour)}
	}
	b.mu.Unlock()
	asks := func(at time.Time) []string {
		steps, _ := b.arenaPlan(at)
		var out []string
		for _, s := range steps {
			if !s.info && s.asap {
				out = append(out, s.a.entry.ID)
			}
		}
		return out
	}
	if got := asks(now); strings.Join(got, ",") != "arenaAAA,arenaBBB" {
		t.Errorf("two free slots: asks %v, want the first two arenas", got)
	}
	b.mu.Lock()
	st.arenas["arenaAAA"].askedAt = now
	st.arenas["arenaBBB"].askedAt = now
	b.games["g1"] = &gameWorker{} // a game of arenaAAA
	st.gameOf["g1"] = "arenaAAA"
	b.mu.Unlock()
	if got := asks(now.Add(time.Second)); len(got) != 0 {
		t.Errorf("asks in force, one slot free: asks %v, want none before PairEvery", got)
	}
	if got := asks(now.Add(time.Minute)); strings.Join(got, ",") != "arenaBBB" {
		t.Errorf("after PairEvery, one slot free, arenaAAA playing: asks %v, want arenaBBB", got)
	}
	b.mu.Lock()
	b.games["g2"] = &gameWorker{} // another game: no slot left
	b.mu.Unlock()
	if got := asks(now.Add(time.Minute)); len(got) != 0 {
		t.Errorf("no free slot: asks %v, want none", got)
	}
	b.mu.Lock()
	in := b.inArenaLocked()
	b.mu.Unlock()
	if !in {
		t.Error("not in an arena with three started arenas joined")
	}
}

// A renewal of pairMeAsap that fails (a 500) is not sent again before
// joinAfter: the failed ask leaves askedAt stale, and the plan must not
// answer it with the same join at once, round after round.
func TestArenaFailedRenewalWaits(t *testing.T) {
	h := newHarness(t)
	h.arenaScopes()
	id := h.startedArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true})
	b := arenaBot(t, h, Settings{Challenge: ChallengePolicy{MaxGames: 1},
		Tournament: TournamentSettings{Join: []ArenaEntry{{ID: id}}, CheckEvery: time.Hour, PairEvery: time.Second}})
	b.arenaRound(h.ctx, time.Now()) // its state
	b.arenaRound(h.ctx, time.Now()) // the join with pairMeAsap
	if !h.srv.ArenaWaiting(id, botName) {
		t.Fatal("the bot does not wait for a pairing after its first join")
	}
	h.srv.InjectError("POST /api/tournament/*/join", 1, 500)
	b.arenaRound(h.ctx, time.Now().Add(2*time.Second)) // the renewal, answered 500
	if n := h.requests("POST /api/tournament/*/join"); n != 2 {
		t.Fatalf("%d joins, want 2 (the first and the failed renewal)", n)
	}
	b.mu.Lock()
	joinAfter := b.arenas.arenas[id].joinAfter
	b.mu.Unlock()
	for _, at := range []time.Duration{3 * time.Second, time.Minute, 30 * time.Minute} {
		if steps, next := b.arenaPlan(time.Now().Add(at)); len(steps) != 0 || next.IsZero() || next.After(joinAfter) {
			t.Errorf("%v after a failed renewal: %d steps, next %v; want none before joinAfter %v", at, len(steps), next, joinAfter)
		}
	}
	if steps, _ := b.arenaPlan(joinAfter); len(steps) == 0 {
		t.Error("no step at joinAfter: the renewal is never tried again")
	}
}

// A restart within Lichess' pause after the withdrawal (Drain withdrew,
// the new start joins at once) is refused with "Your pause is not over
// yet": the arena is not given up, the join is tried again after the
// backoff, and then the bot waits for pairings. A wrong entry code stays
// final.
func TestArenaPauseRefusalIsRetried(t *testing.T) {
	h := newHarness(t)
	h.arenaScopes()
	const delay = 300 * time.Millisecond
	id := h.startedArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true, PauseDelay: delay})
	s := Settings{Challenge: ChallengePolicy{MaxGames: 1},
		Tournament: TournamentSettings{Join: []ArenaEntry{{ID: id}}, CheckEvery: time.Hour}}
	first := arenaBot(t, h, s)
	first.arenaRound(h.ctx, time.Now())
	first.arenaRound(h.ctx, time.Now())
	if !h.srv.ArenaWaiting(id, botName) {
		t.Fatal("the first run does not wait for a pairing")
	}
	first.withdrawArenas(h.ctx)
	withdrewAt := time.Now()

	b := arenaBot(t, h, s) // the restart
	b.arenaRound(h.ctx, time.Now())
	b.arenaRound(h.ctx, time.Now()) // the join within the pause
	if time.Since(withdrewAt) >= delay {
		t.Skip("the machine is too slow to join within the pause")
	}
	b.mu.Lock()
	a := *b.arenas.arenas[id]
	b.mu.Unlock()
	if n := h.requests("POST /api/tournament/*/join"); n != 2 {
		t.Fatalf("%d joins, want 2 (the first run's and the refused one)", n)
	}
	if a.done || a.joined {
		t.Fatalf("the pause refusal left the arena done=%v joined=%v: want neither, to try again", a.done, a.joined)
	}
	if wait := time.Until(a.joinAfter); wait < 10*time.Second || wait > joinBackoffMin {
		t.Errorf("tried again in %v, want the first backoff %v", wait, joinBackoffMin)
	}
	if steps, _ := b.arenaPlan(time.Now()); len(steps) != 0 {
		t.Errorf("%d steps before the backoff is over", len(steps))
	}
	time.Sleep(time.Until(withdrewAt.Add(delay + 10*time.Millisecond)))
	b.arenaRound(h.ctx, a.joinAfter)
	if !h.srv.ArenaWaiting(id, botName) {
		t.Error("the join after the backoff does not make the bot wait for a pairing")
	}
	if got := []time.Duration{joinBackoff(1), joinBackoff(2), joinBackoff(3), joinBackoff(4), joinBackoff(9)}; got[0] != 15*time.Second ||
		got[1] != 30*time.Second || got[2] != time.Minute || got[3] != 2*time.Minute || got[4] != 2*time.Minute {
		t.Errorf("backoffs %v, want 15s 30s 1m 2m 2m", got)
	}

	// A wrong entry code in a running arena is final all the same.
	pw := h.startedArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true, Password: "right"})
	b2 := arenaBot(t, h, Settings{Tournament: TournamentSettings{Join: []ArenaEntry{{ID: pw, Password: "wrong"}}}})
	b2.arenaRound(h.ctx, time.Now())
	b2.arenaRound(h.ctx, time.Now())
	b2.mu.Lock()
	done := b2.arenas.arenas[pw].done
	b2.mu.Unlock()
	if !done {
		t.Error("a wrong entry code in a running arena is not final")
	}
}

// An arena whose variant or speed the bot would decline in a challenge
// (arena games come without one) is left alone after its first state: a
// crazyhouse arena without a crazyhouse engine (not in challenge.variants),
// an arena of a speed outside challenge.speeds, an ultraBullet arena. A
// standard blitz arena is joined.
func TestArenaVariantAndSpeedChecked(t *testing.T) {
	h := newHarness(t)
	h.arenaScopes()
	zh := h.srv.CreateArena(lichesstest.ArenaParams{ClockLimit: 3 * time.Minute, ClockIncrement: 2 * time.Second, BotsAllowed: true, Variant: "crazyhouse"})
	rapid := h.srv.CreateArena(lichesstest.ArenaParams{ClockLimit: 10 * time.Minute, BotsAllowed: true})
	ultra := h.srv.CreateArena(lichesstest.ArenaParams{ClockLimit: 15 * time.Second, BotsAllowed: true})
	blitz := h.srv.CreateArena(lichesstest.ArenaParams{ClockLimit: 3 * time.Minute, ClockIncrement: 2 * time.Second, BotsAllowed: true})
	b := arenaBot(t, h, Settings{Challenge: ChallengePolicy{Speeds: []string{"bullet", "blitz"}},
		Tournament: TournamentSettings{Join: []ArenaEntry{{ID: zh}, {ID: rapid}, {ID: ultra}, {ID: blitz}}}})
	for range 3 {
		b.arenaRound(h.ctx, time.Now())
	}
	for _, id := range []string{zh, rapid, ultra} {
		if n := h.requests("POST /api/tournament/" + id + "/join"); n != 0 {
			t.Errorf("arena %s: %d joins, want none", id, n)
		}
		b.mu.Lock()
		done := b.arenas.arenas[id].done
		b.mu.Unlock()
		if !done {
			t.Errorf("arena %s is not left alone", id)
		}
	}
	if n := h.requests("POST /api/tournament/" + blitz + "/join"); n != 1 {
		t.Errorf("the standard blitz arena: %d joins, want 1", n)
	}
	// With crazyhouse in challenge.variants (which check-config allows
	// only with an engine for it), the crazyhouse arena is played.
	b2 := arenaBot(t, h, Settings{Challenge: ChallengePolicy{Variants: []string{"standard", "crazyhouse"}},
		Tournament: TournamentSettings{Join: []ArenaEntry{{ID: zh}}}})
	b2.arenaRound(h.ctx, time.Now())
	b2.arenaRound(h.ctx, time.Now())
	if n := h.requests("POST /api/tournament/" + zh + "/join"); n != 1 {
		t.Errorf("the crazyhouse arena with crazyhouse accepted: %d joins, want 1", n)
	}
}

// A pairMeAsap in force holds a real-time slot: with concurrency 1, a
// challenge that waits in the queue is not accepted while the ask lasts
// (Lichess may pair the bot at any moment), the matchmaker sees no free
// slot, and the queue wakes when the ask ends and accepts it then. The
// arena plan does not ask while the matchmaker's challenge is out.
func TestArenaAskHoldsSlot(t *testing.T) {
	now := time.Now()
	b := NewBot(nil, nil, Settings{Challenge: ChallengePolicy{MaxGames: 1, QueueLength: 5},
		Tournament: TournamentSettings{Join: []ArenaEntry{{ID: "arenaAAA"}}, PairEvery: 40 * time.Second}}, testsupport.Logger(t))
	b.me = lichess.Account{ID: botID, Username: botName}
	b.eventsOpen = true
	human := &lichess.Challenge{ID: "h1", Challenger: lichess.ChallengeUser{ID: "human"}, Speed: "blitz",
		TimeControl: lichess.TimeControl{Type: "clock", Limit: 180, Increment: 2}, Variant: lichess.Variant{Key: "standard"}}
	b.mu.Lock()
	st := b.arenasLocked()
	a := &arenaJoin{entry: ArenaEntry{ID: "arenaAAA"}, joined: true, state: lichess.ArenaStarted, checkAt: now.Add(time.Hour), askedAt: now}
	st.arenas["arenaAAA"] = a
	if free := b.freeBotSlotsLocked(); free > 0 {
		t.Errorf("the matchmaker sees %d free slot(s) while the arena's ask holds the only one", free)
	}
	b.queue.add(human, now)
	if out := b.serveQueueLocked(now.Add(time.Second)); len(out) != 0 {
		t.Errorf("the queue accepted a challenge while the arena's ask holds the only slot: %d answer(s)", len(out))
	}
	if wake := b.nextWakeLocked(); wake.IsZero() || wake.After(now.Add(pairMeAsapFor+time.Second)) {
		t.Errorf("the queue wakes at %v, want when the ask ends (%v)", wake, now.Add(pairMeAsapFor))
	}
	if out := b.serveQueueLocked(now.Add(pairMeAsapFor + time.Millisecond)); len(out) != 1 || out[0].ch.ID != "h1" || out[0].reason != "" {
		t.Errorf("after the ask ended the queue answered %+v, want h1 accepted", out)
	}
	// A pairing ends the ask: its game takes the slot instead.
	a.askedAt, a.pairedAt = now, now.Add(time.Second)
	if n := b.arenaAsksLocked(now.Add(2 * time.Second)); n != 0 {
		t.Errorf("%d asks in force after the pairing, want 0", n)
	}
	delete(b.pending, "h1")
	a.askedAt, a.pairedAt = time.Time{}, time.Time{}
	b.mm.outID = "ourchallenge" // the matchmaker's challenge is out
	b.mu.Unlock()
	if steps, _ := b.arenaPlan(now); len(steps) != 0 {
		t.Errorf("the arena asks for a pairing while the matchmaker's challenge holds the only slot: %d step(s)", len(steps))
	}
}

// An arena game against a bot counts toward the daily bot-game limit
// (Lichess counts every bot-vs-bot game), once, though its gameFull may
// be seen again (a rebuilt worker).
func TestArenaBotGameCounted(t *testing.T) {
	h := newHarness(t)
	h.arenaScopes()
	h.srv.AddAccount("FoeBot", "tok-FoeBot", true, 2000)
	if err := h.srv.SetHousePlayer("FoeBot", lichesstest.HouseOptions{Strategy: lichesstest.HouseGreedy}); err != nil {
		t.Fatal(err)
	}
	id := h.srv.CreateArena(lichesstest.ArenaParams{ClockLimit: time.Minute, ClockIncrement: time.Second, BotsAllowed: true})
	if err := h.srv.JoinArena(id, "FoeBot", "", ""); err != nil {
		t.Fatal(err)
	}
	if err := h.srv.StartArena(id); err != nil {
		t.Fatal(err)
	}
	b, _ := h.runBot(Settings{Challenge: ChallengePolicy{MaxGames: 1},
		Tournament: TournamentSettings{Join: []ArenaEntry{{ID: id}}, CheckEvery: 100 * time.Millisecond}}, &playerPool{})
	h.waitFor("the bot to wait for a pairing", func() bool { return h.srv.ArenaWaiting(id, botName) })
	gid, err := h.srv.PairArena(id, botName, "FoeBot")
	if err != nil {
		t.Fatal(err)
	}
	h.waitPlies(gid, 2) // the bot (white) has seen the gameFull and moved
	if n := b.botGames.count(time.Now()); n != 1 {
		t.Errorf("%d bot games counted after an arena game against a bot started, want 1", n)
	}
	b.countArenaBotGame(gid) // its gameFull seen again
	if n := b.botGames.count(time.Now()); n != 1 {
		t.Errorf("%d bot games counted after the gameFull was seen again, want 1", n)
	}
	h.resignAfter(gid, "FoeBot", 4)
	h.waitOver(gid)
}

// A reload revives an arena left alone: one refused for a wrong password
// is joined when the reload gives the right one, and one that a reload
// took off the list (and withdrew from) is joined again when a reload puts
// it back. An arena over stays left alone.
func TestArenaReloadRevives(t *testing.T) {
	h := newHarness(t)
	h.arenaScopes()
	pw := h.srv.CreateArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true, Password: "right"})
	other := h.srv.CreateArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true})
	over := h.srv.CreateArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true})
	if err := h.srv.FinishArena(over); err != nil {
		t.Fatal(err)
	}
	rounds := func(b *Bot) {
		for range 3 {
			b.arenaRound(h.ctx, time.Now())
		}
	}
	joins := func(id string) int { return h.requests("POST /api/tournament/" + id + "/join") }
	s := Settings{Tournament: TournamentSettings{Join: []ArenaEntry{{ID: pw, Password: "wrong"}, {ID: other}, {ID: over}}}}
	b := arenaBot(t, h, s)
	rounds(b)
	if joins(pw) != 1 || joins(other) != 1 || joins(over) != 0 {
		t.Fatalf("joins %d, %d, %d: want 1, 1, 0", joins(pw), joins(other), joins(over))
	}
	s.Tournament.Join = []ArenaEntry{{ID: pw, Password: "right"}, {ID: over}} // the right password; other off the list
	b.UpdateSettings(s)
	rounds(b)
	if snap, _ := h.srv.Arena(pw); len(snap.Players) != 1 {
		t.Errorf("the reload with the right password did not join: %+v", snap)
	}
	if snap, _ := h.srv.Arena(other); len(snap.Players) != 0 {
		t.Errorf("the arena taken off the list was not withdrawn from: %+v", snap)
	}
	s.Tournament.Join = []ArenaEntry{{ID: pw, Password: "right"}, {ID: other}, {ID: over}} // other back
	b.UpdateSettings(s)
	rounds(b)
	if snap, _ := h.srv.Arena(other); len(snap.Players) != 1 || joins(other) != 2 {
		t.Errorf("the arena put back on the list: %d joins, %+v; want joined again", joins(other), snap)
	}
	if joins(over) != 0 {
		t.Errorf("joined the arena that is over %d times", joins(over))
	}
}

// A game that an arena paired us in counts as playing from its gameStart
// (noteArenaGame), before startGame gives it a worker: a plan in between
// asks for no pairing in that arena. When its worker ends, the arena asks
// again.
func TestArenaGameNotedBeforeWorker(t *testing.T) {
	h := newHarness(t)
	b := arenaBot(t, h, Settings{Challenge: ChallengePolicy{MaxGames: 2},
		Tournament: TournamentSettings{Join: []ArenaEntry{{ID: "arenaAAA"}}, PairEvery: time.Minute}})
	now := time.Now()
	b.mu.Lock()
	b.arenasLocked().arenas["arenaAAA"] = &arenaJoin{entry: ArenaEntry{ID: "arenaAAA"}, joined: true, state: lichess.ArenaStarted,
		checkAt: now.Add(time.Hour), askedAt: now}
	b.mu.Unlock()
	b.noteArenaGame(&lichess.GameEventInfo{GameID: "game0001", TournamentID: "arenaAAA"}) // no worker yet
	if steps, _ := b.arenaPlan(now.Add(time.Second)); len(steps) != 0 {
		t.Errorf("between the gameStart and the worker the plan sends %d step(s), want none", len(steps))
	}
	b.mu.Lock()
	b.arenaGameOverLocked("game0001") // the worker ended
	b.mu.Unlock()
	if steps, _ := b.arenaPlan(now.Add(2 * time.Second)); len(steps) != 1 || !steps[0].asap {
		t.Errorf("after the game the plan sends %+v, want one ask", steps)
	}
}

// While the event stream is down the bot asks for no pairing (its
// gameStart could not arrive): a join is sent without pairMeAsap, an ask
// is not renewed; once the stream is open again, the bot asks.
func TestArenaNoAskWhileStreamDown(t *testing.T) {
	h := newHarness(t)
	b := arenaBot(t, h, Settings{Challenge: ChallengePolicy{MaxGames: 2},
		Tournament: TournamentSettings{Join: []ArenaEntry{{ID: "arenaAAA"}, {ID: "arenaBBB"}}, PairEvery: time.Minute}})
	b.eventsOpen = false
	now := time.Now()
	b.mu.Lock()
	st := b.arenasLocked()
	st.arenas["arenaAAA"] = &arenaJoin{entry: ArenaEntry{ID: "arenaAAA"}, state: lichess.ArenaStarted, checkAt: now.Add(time.Hour)}
	st.arenas["arenaBBB"] = &arenaJoin{entry: ArenaEntry{ID: "arenaBBB"}, joined: true, state: lichess.ArenaStarted,
		checkAt: now.Add(time.Hour), askedAt: now.Add(-2 * time.Minute)}
	b.mu.Unlock()
	steps, _ := b.arenaPlan(now)
	if len(steps) != 1 || steps[0].a.entry.ID != "arenaAAA" || steps[0].asap || steps[0].info {
		t.Errorf("stream down: steps %+v, want arenaAAA's join without pairMeAsap only", steps)
	}
	b.setEventsOpen(true)
	var asks []string
	steps, _ = b.arenaPlan(now)
	for _, s := range steps {
		if s.asap {
			asks = append(asks, s.a.entry.ID)
		}
	}
	if strings.Join(asks, ",") != "arenaAAA,arenaBBB" {
		t.Errorf("stream open: asks %v, want both arenas", asks)
	}
}

// An arena that starts in an hour is not asked every CheckEvery: the next
// look is half-way to its start (at most 30 minutes away), then at its
// start; one whose start time has come is looked at again within seconds.
// When Lichess closes a running arena's pairings the bot asks for no more
// pairings there and matchmaking may go on.
func TestArenaPollingAndClosedPairings(t *testing.T) {
	now := time.Now()
	every := 30 * time.Second
	for _, tc := range []struct {
		toStart int
		want    time.Duration
	}{
		{3600, 30 * time.Minute}, {2 * 86400, 30 * time.Minute}, {600, 5 * time.Minute}, {45, every},
		{20, 21 * time.Second}, {0, arenaStartSoon},
	} {
		if got := createdCheckAt(now, tc.toStart, every).Sub(now); got != tc.want {
			t.Errorf("%d s to the start: next look in %v, want %v", tc.toStart, got, tc.want)
		}
	}

	h := newHarness(t)
	h.arenaScopes()
	later := h.srv.CreateArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true}) // starts in an hour
	running := h.startedArena(lichesstest.ArenaParams{ClockLimit: time.Minute, BotsAllowed: true})
	b := arenaBot(t, h, Settings{Challenge: ChallengePolicy{MaxGames: 2},
		Tournament: TournamentSettings{Join: []ArenaEntry{{ID: later}, {ID: running}}, CheckEvery: every, PairEvery: time.Second}})
	b.arenaRound(h.ctx, time.Now())
	b.arenaRound(h.ctx, time.Now())
	b.mu.Lock()
	checkAt := b.arenas.arenas[later].checkAt
	b.mu.Unlock()
	if wait := time.Until(checkAt); wait < 25*time.Minute {
		t.Errorf("an arena starting in an hour is looked at again in %v, want about 30 minutes", wait)
	}
	if !h.srv.ArenaWaiting(running, botName) {
		t.Fatal("the bot does not wait for a pairing in the running arena")
	}
	if err := h.srv.CloseArenaPairings(running); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	b.arenas.arenas[running].checkAt = time.Time{} // look now
	b.mu.Unlock()
	b.arenaRound(h.ctx, time.Now())
	joins := h.requests("POST /api/tournament/" + running + "/join")
	for range 3 {
		b.arenaRound(h.ctx, time.Now().Add(2*time.Second)) // past PairEvery, before the next look
	}
	if n := h.requests("POST /api/tournament/" + running + "/join"); n != joins {
		t.Errorf("%d joins after the pairings closed, want none", n-joins)
	}
	b.mu.Lock()
	in := b.inArenaLocked()
	b.mu.Unlock()
	if in {
		t.Error("matchmaking still paused by an arena whose pairings are closed")
	}
}
