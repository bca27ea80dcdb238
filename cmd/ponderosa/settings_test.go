package main

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/config"
)

func parseConfig(t *testing.T, yaml string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(yaml), "test.yaml")
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	return cfg
}

func TestSettingsFromDefaultConfig(t *testing.T) {
	s := settingsFromConfig(config.Default(), "/var/lib/ponderosa")
	p := s.Challenge
	if p.DeclineAll || !slices.Equal(p.Variants, []string{"standard", "chess960", "fromPosition"}) ||
		!slices.Equal(p.Speeds, []string{"bullet", "blitz", "rapid", "classical"}) {
		t.Errorf("variants %v speeds %v decline all %v", p.Variants, p.Speeds, p.DeclineAll)
	}
	if p.MaxGames != 1 || p.MaxBotGamesPerDay != 100 || !p.AcceptRated || !p.AcceptCasual || !p.AcceptBots || !p.AcceptHumans {
		t.Errorf("policy %+v", p)
	}
	any := client.ClockRange{BaseMax: 3 * time.Hour, IncrementMax: 3 * time.Minute}
	for _, sp := range []string{"bullet", "blitz", "rapid", "classical"} {
		if p.SpeedClocks[sp] != any {
			t.Errorf("%s clock range %+v", sp, p.SpeedClocks[sp])
		}
	}
	if p.MinDays != 1 || p.MaxDays != 14 || p.MinRating != 0 || p.MaxRating != 4000 || len(p.AllowList) != 0 {
		t.Errorf("ranges %+v", p)
	}
	if s.Clock.MoveOverhead != 200*time.Millisecond {
		t.Errorf("move overhead %v", s.Clock.MoveOverhead)
	}
	g := s.Game
	if g.AbortAfter != 30*time.Second || !g.AcceptDraws || g.DrawWithinCP != 25 || g.DrawAfterMove != 30 || g.AcceptTakebacks ||
		g.Resign || g.ResignBelowCP != 1000 || g.ResignForMoves != 5 || g.OnOpponentGone != client.OpponentGoneClaimVictory {
		t.Errorf("game %+v", g)
	}
	if !g.DrawTablebase || g.OfferDraws || g.OfferWithinCP != 25 || g.OfferForMoves != 10 || g.OfferMaxPieces != 0 || g.OfferAfterMove != 40 ||
		g.OfferPauseMoves != 10 || g.OfferMinOpponentClock != 10*time.Second || g.ResignTablebase {
		t.Errorf("draw offers and tablebase rules %+v", g)
	}
	if s.Chat.Greeting.Player != "Hi {opponent}! I'm {me}, a ponderosa bot. Good luck!" || s.Chat.Greeting.Spectator != "" ||
		s.Chat.Goodbye.Player != "Good game, {opponent}!" || !strings.HasPrefix(s.Chat.Name, "ponderosa ") {
		t.Errorf("chat %+v", s.Chat)
	}
	if s.StateDir != "/var/lib/ponderosa" || s.PGNDir != "" {
		t.Errorf("state dir %q, pgn dir %q (want no PGN saved by default)", s.StateDir, s.PGNDir)
	}
	m := s.Matchmaking
	if m.Enabled || len(m.TimeControls) != 2 || m.TimeControls[0] != (client.TimeControlSetting{Base: 3 * time.Minute, Increment: 2 * time.Second}) ||
		!slices.Equal(m.Variants, []string{"standard"}) || m.Mode != client.MatchRated || m.IdleTime != 10*time.Minute || m.ChallengeTimeout != time.Minute ||
		m.MinRating != 0 || m.MaxRating != 4000 {
		t.Errorf("matchmaking %+v", m)
	}
}

func TestSettingsFromConfig(t *testing.T) {
	tests := []struct {
		name  string
		yaml  string
		check func(t *testing.T, s client.Settings)
	}{
		{
			name: "challenge rules",
			yaml: "challenge:\n  concurrency: 3\n  variants: [standard]\n  speeds: [blitz, rapid, correspondence]\n  accept_rated: false\n  accept_humans: false\n" +
				"  opponent_rating: {min: 1500, max: 2500}\n  allow_list: [Alice]\n  block_list: [bob]\n  max_bot_games_per_day: 0\n" +
				"  time_controls:\n    blitz: {base_min: 3m, base_max: 5m, increment_min: 1s, increment_max: 2s}\n    correspondence: {days_min: 2, days_max: 3}\n",
			check: func(t *testing.T, s client.Settings) {
				p := s.Challenge
				if p.DeclineAll || p.MaxGames != 3 || !slices.Equal(p.Variants, []string{"standard"}) || !slices.Equal(p.Speeds, []string{"blitz", "rapid", "correspondence"}) {
					t.Errorf("%+v", p)
				}
				if p.AcceptRated || !p.AcceptCasual || !p.AcceptBots || p.AcceptHumans {
					t.Errorf("modes %+v", p)
				}
				if p.MinRating != 1500 || p.MaxRating != 2500 || !slices.Equal(p.AllowList, []string{"Alice"}) || !slices.Equal(p.BlockList, []string{"bob"}) {
					t.Errorf("people %+v", p)
				}
				if p.MaxBotGamesPerDay < 1<<20 {
					t.Errorf("max_bot_games_per_day 0 gave %d, want no limit", p.MaxBotGamesPerDay)
				}
				if want := (client.ClockRange{BaseMin: 3 * time.Minute, BaseMax: 5 * time.Minute, IncrementMin: time.Second, IncrementMax: 2 * time.Second}); p.SpeedClocks["blitz"] != want {
					t.Errorf("blitz %+v", p.SpeedClocks["blitz"])
				}
				if p.SpeedClocks["rapid"].BaseMax != 3*time.Hour || p.MinDays != 2 || p.MaxDays != 3 {
					t.Errorf("rapid %+v days %d..%d", p.SpeedClocks["rapid"], p.MinDays, p.MaxDays)
				}
			},
		},
		{
			name: "accept false declines everyone",
			yaml: "challenge:\n  accept: false\nmatchmaking:\n  enabled: true\n",
			check: func(t *testing.T, s client.Settings) {
				if !s.Challenge.DeclineAll || !s.Matchmaking.Enabled {
					t.Errorf("decline all %v, matchmaking %v", s.Challenge.DeclineAll, s.Matchmaking.Enabled)
				}
			},
		},
		{
			name: "no mode accepted declines everyone",
			yaml: "challenge:\n  accept: false\n  accept_rated: false\n  accept_casual: false\n",
			check: func(t *testing.T, s client.Settings) {
				if !s.Challenge.DeclineAll {
					t.Error("not declining all")
				}
			},
		},
		{
			name: "game rules",
			yaml: "game:\n  move_overhead: 350ms\n  abort_after: 0s\n  draw: {accept: false, after_move: 40, within_cp: 10, tablebase: false, offer: true,\n" +
				"    offer_within_cp: 15, offer_moves: 6, offer_pieces: 12, offer_after_move: 35, offer_pause_moves: 4, offer_min_opponent_clock: 20s}\n  accept_takebacks: true\n" +
				"  resign: {enabled: true, below_cp: 600, for_moves: 3, tablebase: true}\n" +
				"  pgn_dir: /tmp/pgn\n  opponent_gone: wait\n  greeting: {player: \"\", spectator: \"hello all\"}\n  goodbye: {player: bye, spectator: see you}\n",
			check: func(t *testing.T, s client.Settings) {
				g := s.Game
				if g.AbortAfter >= 0 || g.AcceptDraws || g.DrawAfterMove != 40 || g.DrawWithinCP != 10 || !g.AcceptTakebacks ||
					!g.Resign || g.ResignBelowCP != 600 || g.ResignForMoves != 3 || g.OnOpponentGone != client.OpponentGoneWait {
					t.Errorf("game %+v", g)
				}
				if g.DrawTablebase || !g.OfferDraws || g.OfferWithinCP != 15 || g.OfferForMoves != 6 || g.OfferMaxPieces != 12 || g.OfferAfterMove != 35 ||
					g.OfferPauseMoves != 4 || g.OfferMinOpponentClock != 20*time.Second || !g.ResignTablebase {
					t.Errorf("draw offers and tablebase rules %+v", g)
				}
				if s.Clock.MoveOverhead != 350*time.Millisecond || s.PGNDir != "/tmp/pgn" {
					t.Errorf("overhead %v pgn %q", s.Clock.MoveOverhead, s.PGNDir)
				}
				if s.Chat.Greeting != (client.ChatMessages{Spectator: "hello all"}) || s.Chat.Goodbye != (client.ChatMessages{Player: "bye", Spectator: "see you"}) {
					t.Errorf("chat %+v", s.Chat)
				}
			},
		},
		{
			name: "relative pgn_dir lies under the state directory",
			yaml: "game:\n  pgn_dir: games\n",
			check: func(t *testing.T, s client.Settings) {
				if s.StateDir != "/srv/state" || s.PGNDir != "/srv/state/games" {
					t.Errorf("state dir %q, pgn dir %q", s.StateDir, s.PGNDir)
				}
			},
		},
		{
			name: "matchmaking",
			yaml: "matchmaking:\n  enabled: true\n  time_controls: [\"1+0\"]\n  variants: [chess960, standard]\n  rated: false\n" +
				"  opponent_rating: {min: 1000, max: 2000}\n  rating_difference: 300\n  idle_time: 1m\n  challenge_timeout: 20s\n  block_list: [somebot]\n",
			check: func(t *testing.T, s client.Settings) {
				m := s.Matchmaking
				if !m.Enabled || len(m.TimeControls) != 1 || m.TimeControls[0].Base != time.Minute || !slices.Equal(m.Variants, []string{"chess960", "standard"}) ||
					m.Mode != client.MatchCasual || m.IdleTime != time.Minute || m.ChallengeTimeout != 20*time.Second || !slices.Equal(m.BlockList, []string{"somebot"}) ||
					m.MinRating != 1000 || m.MaxRating != 2000 || m.MaxRatingDiff != 300 {
					t.Errorf("%+v", m)
				}
				if m.BlockAfterDeclines != 3 || m.BlockFor != 7*24*time.Hour {
					t.Errorf("default block after %d declines for %v, want 3 for 7 days", m.BlockAfterDeclines, m.BlockFor)
				}
			},
		},
		{
			name: "matchmaking mode and per-variant time controls",
			yaml: "matchmaking:\n  enabled: true\n  time_controls: [\"3+2\"]\n  variants: [chess960, standard]\n  mode: random\n" +
				"  variant_time_controls: {chess960: [\"10+5\", \"15+10\"]}\n",
			check: func(t *testing.T, s client.Settings) {
				m := s.Matchmaking
				if m.Mode != client.MatchRandom {
					t.Errorf("mode %q, want random", m.Mode)
				}
				if own := m.VariantTimeControls["chess960"]; len(own) != 2 || own[1] != (client.TimeControlSetting{Base: 15 * time.Minute, Increment: 10 * time.Second}) ||
					len(m.VariantTimeControls) != 1 || len(m.TimeControls) != 1 {
					t.Errorf("time controls %v, per variant %v", m.TimeControls, m.VariantTimeControls)
				}
			},
		},
		{
			name: "matchmaking block list off",
			yaml: "matchmaking:\n  block_after_declines: 0\n  block_days: 2\n",
			check: func(t *testing.T, s client.Settings) {
				if m := s.Matchmaking; m.BlockAfterDeclines >= 0 || m.BlockFor != 48*time.Hour {
					t.Errorf("block after %d declines for %v, want never (negative) and 48h", m.BlockAfterDeclines, m.BlockFor)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, settingsFromConfig(parseConfig(t, tt.yaml), "/srv/state"))
		})
	}
}

// firstMove makes a player from cfg's factory and has it choose White's
// first move, failing the test (naming what) if it cannot.
func firstMove(t *testing.T, cfg *config.Config, what string) {
	t.Helper()
	f, err := playerFactory(cfg, discardLogger(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := thinkFirst(t, f, client.GameInfo{ID: "x", White: true}); d.Move == "" {
		t.Fatalf("%s: %+v", what, d)
	}
}

// thinkFirst is the first move, as White with a second on each clock, of
// a new player of f in the game gi (from its start position).
func thinkFirst(t *testing.T, f client.PlayerFactory, gi client.GameInfo) client.Choice {
	t.Helper()
	p, err := f(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.NewGame(context.Background(), gi); err != nil {
		t.Fatal(err)
	}
	if err := p.Position(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	c, err := p.Think(context.Background(), client.MoveClock{WTime: time.Second, BTime: time.Second, White: true,
		Running: true, Deadline: time.Now().Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestPlayerFactoryFromConfig(t *testing.T) {
	cfg := parseConfig(t, "engine:\n  builtin: {hash_mb: 8, tree_memory_mb: 4}\n")
	firstMove(t, cfg, "built-in player from config")

	cfg.Engine.Type = "telepathy"
	if _, err := playerFactory(cfg, discardLogger(), nil); err == nil {
		t.Error("unknown engine type accepted")
	}
	cfg.Engine.Type = config.EngineExternal
	cfg.Engine.External.Path = "/nonexistent/engine"
	f, err := playerFactory(cfg, discardLogger(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f(context.Background()); err == nil || !strings.Contains(err.Error(), "/nonexistent/engine") {
		t.Errorf("missing external engine: %v", err)
	}
}

func TestSwappableFactory(t *testing.T) {
	mk := func(name string) client.PlayerFactory {
		return func(context.Context) (client.Player, error) { return nil, &namedErr{name} }
	}
	s := newSwappableFactory(mk("a"))
	if _, err := s.factory(context.Background()); err.Error() != "a" {
		t.Fatal(err)
	}
	s.set(mk("b"))
	if _, err := s.factory(context.Background()); err.Error() != "b" {
		t.Fatal(err)
	}
}

type namedErr struct{ s string }

func (e *namedErr) Error() string { return e.s }

func discardLogger() zerolog.Logger { return zerolog.Nop() }

// The built-in engine's thread budget is one for the process: a reload
// sets the total of the same share (so that old and new games share it),
// from engine.builtin.threads_total or, unset, the cores.
func TestCPUShareFromConfig(t *testing.T) {
	cur := cpuShare(parseConfig(t, "engine:\n  builtin: {threads_total: 3}\n"), nil)
	if cur.Total() != 3 {
		t.Fatalf("threads_total 3 gives a share of %d", cur.Total())
	}
	if got := cpuShare(parseConfig(t, "engine:\n  builtin: {threads_total: 1}\n"), cur); got != cur || cur.Total() != 1 {
		t.Fatalf("reload: a new share (%v) or total %d, want the same share with 1", got != cur, cur.Total())
	}
	if got := cpuShare(parseConfig(t, "engine:\n  builtin: {}\n"), cur); got.Total() != runtime.NumCPU() {
		t.Fatalf("unset threads_total gives %d, want the %d cores", got.Total(), runtime.NumCPU())
	}
}
