package config

import (
	"strings"
	"testing"
)

// The challenge queue's keys: defaults, and what validation refuses.
func TestQueueKeys(t *testing.T) {
	d := Default().Challenge
	if d.QueueLength != 10 || d.QueueMaxAge.String() != "10m0s" || d.SortBy != SortFirst ||
		d.GamesReservedForHumans != 0 || d.MaxSimultaneousGamesPerUser != 5 {
		t.Errorf("defaults %+v", d)
	}
	c, err := Parse([]byte("challenge:\n  concurrency: 3\n  games_reserved_for_humans: 2\n  max_simultaneous_games_per_user: 1\n  queue_length: 0\n  queue_max_age: 1h\n  sort_by: best\n"), "config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if ch := c.Challenge; ch.GamesReservedForHumans != 2 || ch.MaxSimultaneousGamesPerUser != 1 || ch.QueueLength != 0 || ch.QueueMaxAge.Hours() != 1 || ch.SortBy != SortBest {
		t.Errorf("parsed %+v", ch)
	}
	for _, tt := range []struct{ src, want string }{
		{"challenge:\n  sort_by: rating\n", `challenge.sort_by: "rating" is not one of first, best`},
		{"challenge:\n  sort_by: firts\n", `(did you mean "first"?)`},
		{"challenge:\n  queue_length: -1\n", "challenge.queue_length: must be between 0 and 100, got -1"},
		{"challenge:\n  queue_length: 101\n", "challenge.queue_length: must be between 0 and 100"},
		{"challenge:\n  queue_max_age: 1s\n", "challenge.queue_max_age: must be between 10s and 168h0m0s, got 1s"},
		{"challenge:\n  queue_max_age: 10\n", "challenge.queue_max_age: 10 has no unit"},
		{"challenge:\n  max_simultaneous_games_per_user: 0\n", "challenge.max_simultaneous_games_per_user: must be between 1 and 64, got 0"},
		{"challenge:\n  games_reserved_for_humans: -1\n", "challenge.games_reserved_for_humans: must be between 0 and 64, got -1"},
		{"challenge:\n  concurrency: 2\n  games_reserved_for_humans: 2\n", "challenge.games_reserved_for_humans: 2 of 2 slots leaves none for bots though accept_bots is true"},
		{"challenge:\n  concurrency: 2\n  games_reserved_for_humans: 1\n  accept_humans: false\n", "challenge.games_reserved_for_humans: accept_humans is false, so the reserved slots would stay empty"},
	} {
		probs := problemsOf(t, tt.src)
		if !strings.Contains(probs.Error(), tt.want) {
			t.Errorf("%q: problems %q lack %q", tt.src, probs.Error(), tt.want)
		}
	}
	// Every slot reserved is fine when bots are not accepted anyway, and
	// nothing is checked when no challenge is accepted.
	for _, src := range []string{
		"challenge:\n  concurrency: 2\n  games_reserved_for_humans: 2\n  accept_bots: false\n",
		"challenge:\n  accept: false\n  games_reserved_for_humans: 1\n",
	} {
		if _, err := Parse([]byte(src), "config.yaml"); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}
