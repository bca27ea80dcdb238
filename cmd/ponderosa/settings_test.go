package main

import (
	"context"
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
	s, notes := settingsFromConfig(config.Default())
	if len(notes) != 0 {
		t.Errorf("notes for the default config: %q", notes)
	}
	p := s.Challenge
	if !slices.Equal(p.Variants, []string{"standard", "chess960", "fromPosition"}) ||
		!slices.Equal(p.Speeds, []string{"bullet", "blitz", "rapid", "classical"}) {
		t.Errorf("variants %v speeds %v", p.Variants, p.Speeds)
	}
	if p.MaxGames != 1 || p.MaxBotGamesPerDay != 100 || !p.AcceptRated || !p.AcceptCasual || !p.AcceptBots || !p.AcceptHumans {
		t.Errorf("policy %+v", p)
	}
	if p.MinBase != 0 || p.MaxBase != 3*time.Hour || p.MaxIncrement != 3*time.Minute || p.MinRating != 0 || p.MaxRating != 4000 {
		t.Errorf("ranges %+v", p)
	}
	if len(p.AllowList) != 0 {
		t.Errorf("allow list %v", p.AllowList)
	}
	if s.Clock.MoveOverhead != 200*time.Millisecond {
		t.Errorf("move overhead %v", s.Clock.MoveOverhead)
	}
	g := s.Game
	if g.AbortAfter != 30*time.Second || !g.AcceptDraws || g.DrawScoreCP != 25 || g.DrawMinPly != 58 || g.AcceptTakebacks {
		t.Errorf("game %+v", g)
	}
	if s.Chat.Greeting != "Hi {opponent}! I'm {me}, a ponderosa bot. Good luck!" || s.Chat.Goodbye != "Good game, {opponent}!" ||
		!strings.HasPrefix(s.Chat.Name, "ponderosa ") {
		t.Errorf("chat %+v", s.Chat)
	}
	m := s.Matchmaking
	if m.Enabled || len(m.TimeControls) != 2 || m.TimeControls[0] != (client.TimeControlSetting{Base: 3 * time.Minute, Increment: 2 * time.Second}) ||
		m.Variant != "standard" || !m.Rated || m.IdleTime != 10*time.Minute || m.ChallengeTimeout != time.Minute {
		t.Errorf("matchmaking %+v", m)
	}
}

func TestSettingsFromConfig(t *testing.T) {
	tests := []struct {
		name  string
		yaml  string
		check func(t *testing.T, s client.Settings)
		notes []string // substrings, one per expected note
	}{
		{
			name: "challenge rules",
			yaml: "challenge:\n  concurrency: 3\n  variants: [standard]\n  speeds: [blitz, rapid]\n  accept_rated: false\n  accept_humans: false\n" +
				"  opponent_rating: {min: 1500, max: 2500}\n  allow_list: [Alice]\n  block_list: [bob]\n  max_bot_games_per_day: 0\n",
			check: func(t *testing.T, s client.Settings) {
				p := s.Challenge
				if p.MaxGames != 3 || !slices.Equal(p.Variants, []string{"standard"}) || !slices.Equal(p.Speeds, []string{"blitz", "rapid"}) {
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
			},
		},
		{
			name: "accept false declines everyone",
			yaml: "challenge:\n  accept: false\nmatchmaking:\n  enabled: true\n",
			check: func(t *testing.T, s client.Settings) {
				if !slices.Equal(s.Challenge.AllowList, []string{noOne}) || !s.Matchmaking.Enabled {
					t.Errorf("allow list %v, matchmaking %v", s.Challenge.AllowList, s.Matchmaking.Enabled)
				}
			},
		},
		{
			name: "time controls differing by speed",
			yaml: "challenge:\n  speeds: [bullet, blitz]\n  time_controls:\n    bullet: {base_min: 1m, base_max: 2m, increment_min: 1s, increment_max: 2s}\n" +
				"    blitz: {base_min: 3m, base_max: 5m, increment_min: 0s, increment_max: 5s}\n    rapid: {base_min: 10m, base_max: 15m}\n",
			check: func(t *testing.T, s client.Settings) {
				p := s.Challenge
				if p.MinBase != time.Minute || p.MaxBase != 5*time.Minute || p.MinIncrement != 0 || p.MaxIncrement != 5*time.Second {
					t.Errorf("range %v..%v +%v..%v", p.MinBase, p.MaxBase, p.MinIncrement, p.MaxIncrement)
				}
			},
			notes: []string{"differ between speeds"},
		},
		{
			name: "game rules",
			yaml: "game:\n  move_overhead: 350ms\n  abort_after: 0s\n  draw: {accept: false, after_move: 40, within_cp: 10}\n  accept_takebacks: true\n" +
				"  pgn_dir: /tmp/pgn\n  opponent_gone: wait\n  greeting: {player: \"\", spectator: \"hello all\"}\n  goodbye: {player: bye, spectator: see you}\n",
			check: func(t *testing.T, s client.Settings) {
				g := s.Game
				if g.AbortAfter < 24*time.Hour || g.AcceptDraws || g.DrawMinPly != 78 || g.DrawScoreCP != 10 || !g.AcceptTakebacks {
					t.Errorf("game %+v", g)
				}
				if s.Clock.MoveOverhead != 350*time.Millisecond || s.PGNDir != "/tmp/pgn" {
					t.Errorf("overhead %v pgn %q", s.Clock.MoveOverhead, s.PGNDir)
				}
				if s.Chat.Greeting != "hello all" || s.Chat.Goodbye != "bye" {
					t.Errorf("chat %+v", s.Chat)
				}
			},
			notes: []string{"opponent_gone wait", `game.greeting: the bot writes one message in both rooms: "hello all"`, `game.goodbye: the bot writes one message in both rooms: "bye"`},
		},
		{
			name: "matchmaking",
			yaml: "matchmaking:\n  enabled: true\n  time_controls: [\"1+0\"]\n  variants: [chess960, standard]\n  rated: false\n" +
				"  opponent_rating: {min: 1000, max: 2000}\n  idle_time: 1m\n  challenge_timeout: 20s\n  block_list: [somebot]\n",
			check: func(t *testing.T, s client.Settings) {
				m := s.Matchmaking
				if !m.Enabled || len(m.TimeControls) != 1 || m.TimeControls[0].Base != time.Minute || m.Variant != "chess960" || m.Rated ||
					m.IdleTime != time.Minute || m.ChallengeTimeout != 20*time.Second || !slices.Equal(m.BlockList, []string{"somebot"}) {
					t.Errorf("%+v", m)
				}
			},
			notes: []string{"only the first (chess960)", "matchmaking.opponent_rating"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, notes := settingsFromConfig(parseConfig(t, tt.yaml))
			tt.check(t, s)
			if len(notes) != len(tt.notes) {
				t.Errorf("notes %q, want %d", notes, len(tt.notes))
			}
			for _, want := range tt.notes {
				if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, want) }) {
					t.Errorf("no note says %q: %q", want, notes)
				}
			}
		})
	}
}

func TestPlayerFactoryFromConfig(t *testing.T) {
	cfg := parseConfig(t, "engine:\n  builtin: {hash_mb: 8, tree_memory_mb: 4}\ngame:\n  resign: {enabled: true, below_cp: 500, for_moves: 2}\n")
	f, err := playerFactory(cfg, discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	p, err := f(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.NewGame(context.Background(), client.GameInfo{ID: "x", White: true}); err != nil {
		t.Fatal(err)
	}
	if err := p.Position(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	d, err := p.Think(context.Background(), client.Limits{WTime: time.Second, BTime: time.Second, White: true,
		Budget: 50 * time.Millisecond, Deadline: time.Now().Add(time.Second)})
	if err != nil || d.Move == "" {
		t.Fatalf("built-in player from config: %+v, %v", d, err)
	}

	cfg.Engine.Type = "telepathy"
	if _, err := playerFactory(cfg, discardLogger()); err == nil {
		t.Error("unknown engine type accepted")
	}
	cfg.Engine.Type = config.EngineExternal
	cfg.Engine.External.Path = "/nonexistent/engine"
	f, err = playerFactory(cfg, discardLogger())
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
