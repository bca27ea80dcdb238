package client

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// The block lasts while block_after_declines counted declines are within
// the window: it ends when the oldest of the last N ages out, not the
// window's length after the last decline; "later" and "capped" do not
// count.
func TestBlockListEnd(t *testing.T) {
	now := time.Now()
	day := 24 * time.Hour
	b := NewBot(nil, nil, Settings{}, testsupport.Logger(t))
	mm := MatchmakingSettings{BlockAfterDeclines: 3, BlockFor: 7 * day}
	blitz := matchKind{variant: "standard", tc: TimeControlSetting{Base: 3 * time.Minute, Increment: 2 * time.Second}}
	b.mm.history = []DeclineRecord{
		{Opponent: "a", Reason: "generic", At: now.Add(-6 * day)},
		{Opponent: "a", Reason: "later", At: now.Add(-5 * day)},
		{Opponent: "a", Reason: "tooFast", At: now.Add(-4 * day), Speed: "blitz"},
		{Opponent: "a", Reason: DeclineCapped, At: now.Add(-3 * day)},
		{Opponent: "a", Reason: "generic", At: now.Add(-time.Hour)},
		{Opponent: "b", Reason: "generic", At: now.Add(-2 * day)},
		{Opponent: "b", Reason: "later", At: now.Add(-day)},
		{Opponent: "b", Reason: "generic", At: now.Add(-time.Hour)},
	}
	b.mu.Lock()
	got := b.blockedLocked(now, mm, blitz)
	b.mu.Unlock()
	if want := now.Add(day); len(got) != 1 || !got["a"].Equal(want) {
		t.Errorf("blocked %v, want only a until %v (its oldest counted decline ages out)", got, want)
	}
	b.mu.Lock()
	got = b.blockedLocked(now.Add(day+time.Second), mm, blitz)
	b.mu.Unlock()
	if len(got) != 0 {
		t.Errorf("blocked %v after the oldest counted decline aged out, want none", got)
	}
}

// Declines are remembered per kind of challenge (lichess-bot's
// challenge_filter: fine): a reason about the speed, the variant or the
// mode blocks that kind only (tooFast also the faster speeds, tooSlow the
// slower), a reason about the bot blocks it for every kind, and the
// declines recorded before the kinds were (no kind) block no kind.
func TestDeclinesPerKind(t *testing.T) {
	now := time.Now()
	day := 24 * time.Hour
	b := NewBot(nil, nil, Settings{}, testsupport.Logger(t))
	mm := MatchmakingSettings{BlockAfterDeclines: 3, BlockFor: 7 * day}.withDefaults()
	kind := func(variant string, base time.Duration, rated bool) matchKind {
		return matchKind{variant: variant, tc: TimeControlSetting{Base: base}, rated: rated}
	}
	bullet, blitz, rapid := kind("standard", time.Minute, true), kind("standard", 5*time.Minute, true), kind("standard", 15*time.Minute, true)
	classical := kind("standard", 60*time.Minute, true)
	chess960, casual := kind("chess960", 5*time.Minute, true), kind("standard", 5*time.Minute, false)
	three := func(opp, reason, variant, speed, mode string) {
		for i := range 3 {
			b.mm.history = append(b.mm.history, DeclineRecord{Opponent: opp, Reason: reason, At: now.Add(-time.Duration(3-i) * day),
				Variant: variant, Speed: speed, Mode: mode})
		}
	}
	three("fast", lichess.DeclineTooFast, "standard", "blitz", MatchRated)
	three("slow", lichess.DeclineTooSlow, "standard", "rapid", MatchRated)
	three("novariant", lichess.DeclineVariant, "chess960", "blitz", MatchRated)
	three("unrated", lichess.DeclineRated, "standard", "blitz", MatchRated)
	three("rude", lichess.DeclineGeneric, "standard", "blitz", MatchRated)
	three("nobots", lichess.DeclineNoBot, "chess960", "rapid", MatchCasual)
	three("migrated", lichess.DeclineTooFast, "", "", "") // recorded before the kinds
	b.mm.history = append(b.mm.history,
		DeclineRecord{Opponent: "mixed", Reason: lichess.DeclineGeneric, At: now.Add(-3 * day), Variant: "standard", Speed: "blitz", Mode: MatchRated},
		DeclineRecord{Opponent: "mixed", Reason: lichess.DeclineGeneric, At: now.Add(-2 * day), Variant: "standard", Speed: "blitz", Mode: MatchRated},
		DeclineRecord{Opponent: "mixed", Reason: lichess.DeclineTimeControl, At: now.Add(-day), Variant: "standard", Speed: "blitz", Mode: MatchRated},
	)
	slices.SortStableFunc(b.mm.history, func(x, y DeclineRecord) int { return x.At.Compare(y.At) })
	for _, tc := range []struct {
		what string
		k    matchKind
		want []string
	}{
		{"blitz", blitz, []string{"fast", "mixed", "nobots", "rude", "unrated"}},
		{"bullet (faster than a tooFast blitz)", bullet, []string{"fast", "nobots", "rude", "unrated"}},
		{"rapid", rapid, []string{"nobots", "rude", "slow", "unrated"}},
		{"classical (slower than a tooSlow rapid)", classical, []string{"nobots", "rude", "slow", "unrated"}},
		{"chess960 blitz", chess960, []string{"fast", "mixed", "nobots", "novariant", "rude", "unrated"}},
		{"casual blitz", casual, []string{"fast", "mixed", "nobots", "rude"}},
	} {
		b.mu.Lock()
		got := slices.Sorted(maps.Keys(b.blockedLocked(now, mm, tc.k)))
		b.mu.Unlock()
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: blocked %v, want %v", tc.what, got, tc.want)
		}
	}
}

// newDeclineKindBot is the bot of the tests of declines per kind: rated
// matchmaking in blitz, one game at a time, idle for an hour; blitz and
// rapid are the two kinds they compare.
func newDeclineKindBot(t *testing.T) (b *Bot, blitz, rapid TimeControlSetting) {
	t.Helper()
	blitz = TimeControlSetting{Base: 3 * time.Minute, Increment: 2 * time.Second}
	rapid = TimeControlSetting{Base: 15 * time.Minute, Increment: 10 * time.Second}
	b = NewBot(nil, nil, Settings{
		Challenge:   ChallengePolicy{MaxGames: 1, MaxBotGamesPerDay: 100},
		Matchmaking: MatchmakingSettings{Enabled: true, IdleTime: time.Nanosecond, TimeControls: []TimeControlSetting{blitz}, Mode: MatchRated},
	}, testsupport.Logger(t))
	b.me = lichess.Account{ID: botID, Username: botName}
	b.idleFrom = time.Now().Add(-time.Hour)
	return b, blitz, rapid
}

// declineHistory is a copy of b's decline history.
func declineHistory(b *Bot) []DeclineRecord {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.mm.history)
}

// declinedFor is the set of opponents cooling down for time control tc,
// as a matchmaking round would see it (it must reserve the slot).
func declinedFor(t *testing.T, b *Bot, tc TimeControlSetting) map[string]bool {
	t.Helper()
	mm := b.Settings().Matchmaking
	mm.TimeControls = []TimeControlSetting{tc}
	v := b.matchmakeView(time.Now(), mm)
	b.sendingChallenge(false)
	if !v.reserved {
		t.Fatal("no slot reserved")
	}
	return v.declined
}

// A decline event of our challenge is recorded with its kind; a reason
// about the bot cools the bot down for every kind, one about the kind for
// that kind only.
func TestDeclineCooldownPerKind(t *testing.T) {
	b, blitz, rapid := newDeclineKindBot(t)
	decline := func(opp, reason string) {
		b.onOutgoingClosed(lichess.Event{Type: lichess.EventChallengeDeclined, Challenge: &lichess.Challenge{
			ID: "c-" + opp, Challenger: lichess.ChallengeUser{ID: botID}, DestUser: &lichess.ChallengeUser{ID: opp, Name: opp},
			Variant: lichess.Variant{Key: "standard"}, Speed: "blitz", Rated: true, DeclineReasonKey: reason}})
	}
	decline("fastbot", lichess.DeclineTooFast)
	decline("rudebot", lichess.DeclineGeneric)
	h := declineHistory(b)
	if len(h) != 2 || h[0].Variant != "standard" || h[0].Speed != "blitz" || h[0].Mode != MatchRated || h[0].Reason != lichess.DeclineTooFast {
		t.Fatalf("history %+v, want the declines with their kind", h)
	}
	if d := declinedFor(t, b, blitz); !d["fastbot"] || !d["rudebot"] {
		t.Errorf("blitz: cooling down %v, want fastbot and rudebot", d)
	}
	if d := declinedFor(t, b, rapid); d["fastbot"] || !d["rudebot"] {
		t.Errorf("rapid: cooling down %v, want rudebot only (fastbot found blitz too fast)", d)
	}
}

// A decline event that lacks the challenge's speed and variant: the kind
// is the one we sent, so a reason about the kind cools that kind down;
// when we know no kind (not our challenge out), the bot is cooled down
// for every kind, as before the kinds.
func TestDeclineWithoutKind(t *testing.T) {
	b, blitz, rapid := newDeclineKindBot(t)
	bare := func(id, opp, reason string) {
		b.onOutgoingClosed(lichess.Event{Type: lichess.EventChallengeDeclined, Challenge: &lichess.Challenge{
			ID: id, Challenger: lichess.ChallengeUser{ID: botID}, DestUser: &lichess.ChallengeUser{ID: opp, Name: opp},
			DeclineReasonKey: reason}})
	}
	b.sendingChallenge(true)
	b.challengeSent(context.Background(), "c-ours", "fastbot", matchKind{variant: "standard", tc: blitz, rated: true})
	bare("c-ours", "fastbot", lichess.DeclineTooFast)
	bare("c-other", "slowbot", lichess.DeclineTooSlow) // not the challenge out: kind unknown
	h := declineHistory(b)
	if len(h) != 2 || h[0].Variant != "standard" || h[0].Speed != "blitz" || h[0].Mode != MatchRated {
		t.Fatalf("history %+v, want the decline of our challenge with the kind we sent", h)
	}
	if d := declinedFor(t, b, blitz); !d["fastbot"] || !d["slowbot"] {
		t.Errorf("blitz: cooling down %v, want fastbot (blitz too fast) and slowbot (kind unknown)", d)
	}
	if d := declinedFor(t, b, rapid); d["fastbot"] || !d["slowbot"] {
		t.Errorf("rapid: cooling down %v, want slowbot only", d)
	}
}

// A decline with reason "standard" says "I only play standard": it
// refuses every variant, not only the one declined, and never standard.
func TestDeclineStandardRefusesEveryVariant(t *testing.T) {
	blitz := TimeControlSetting{Base: 3 * time.Minute, Increment: 2 * time.Second}
	d := DeclineRecord{Opponent: "stdonly", Reason: lichess.DeclineStandard, Variant: "atomic", Speed: "blitz", Mode: MatchRated}
	for variant, want := range map[string]bool{"atomic": true, "chess960": true, "crazyhouse": true, "standard": false} {
		if got := d.refuses(matchKind{variant: variant, tc: blitz, rated: true}); got != want {
			t.Errorf("standard-only decline of atomic refuses %s: %v, want %v", variant, got, want)
		}
	}
	// Recorded before the kinds (no variant): the reason still says it.
	d.Variant = ""
	if !d.refuses(matchKind{variant: "horde", tc: blitz}) || d.refuses(matchKind{variant: "standard", tc: blitz}) {
		t.Error("a standard-only decline with no kind recorded: want every variant refused, standard not")
	}
	// "variant" keeps to the variant declined.
	v := DeclineRecord{Opponent: "noatomic", Reason: lichess.DeclineVariant, Variant: "atomic"}
	if !v.refuses(matchKind{variant: "atomic", tc: blitz}) || v.refuses(matchKind{variant: "chess960", tc: blitz}) {
		t.Error("a variant decline of atomic: want atomic refused, chess960 not")
	}
}

// The blocks logged are forgotten once over: the map does not grow for
// good.
func TestBlockLoggedForgetsEndedBlocks(t *testing.T) {
	b := NewBot(nil, nil, Settings{
		Challenge:   ChallengePolicy{MaxGames: 1, MaxBotGamesPerDay: 100},
		Matchmaking: MatchmakingSettings{Enabled: true, IdleTime: time.Nanosecond},
	}, testsupport.Logger(t))
	b.idleFrom = time.Now().Add(-time.Hour)
	now := time.Now()
	b.mu.Lock()
	b.mm.blockLogged = map[string]time.Time{"oldbot standard blitz casual": now.Add(-time.Minute), "newbot standard blitz casual": now.Add(time.Hour)}
	b.mu.Unlock()
	if v := b.matchmakeView(now, b.Settings().Matchmaking); !v.reserved {
		t.Fatal("no slot reserved")
	}
	b.sendingChallenge(false)
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.mm.blockLogged["oldbot standard blitz casual"]; ok {
		t.Error("a block logged whose end has passed is still kept")
	}
	if _, ok := b.mm.blockLogged["newbot standard blitz casual"]; !ok {
		t.Error("a block logged that still holds was dropped (it would be logged again)")
	}
}
