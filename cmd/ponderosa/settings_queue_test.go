package main

import (
	"slices"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client"
)

// The challenge queue's keys reach the client: the defaults (a queue of 10,
// 10 minutes, arrival order, 5 games per opponent), and values set in the
// file.
func TestSettingsQueueFromConfig(t *testing.T) {
	p := settingsFromConfig(parseConfig(t, ""), "/state").Challenge
	if p.QueueLength != 10 || p.QueueMaxAge != 10*time.Minute || p.SortBy != client.SortFirst || p.ReservedForHumans != 0 || p.MaxGamesPerUser != 5 {
		t.Errorf("default queue settings %+v", p)
	}
	p = settingsFromConfig(parseConfig(t, "challenge:\n  concurrency: 4\n  games_reserved_for_humans: 1\n  max_simultaneous_games_per_user: 2\n"+
		"  queue_length: 0\n  queue_max_age: 30s\n  sort_by: best\n"), "/state").Challenge
	if p.MaxGames != 4 || p.QueueLength != 0 || p.QueueMaxAge != 30*time.Second || p.SortBy != client.SortBest || p.ReservedForHumans != 1 || p.MaxGamesPerUser != 2 {
		t.Errorf("queue settings %+v", p)
	}
}

// The correspondence keys reach the client, defaults and values set.
func TestSettingsCorrespondenceFromConfig(t *testing.T) {
	c := settingsFromConfig(parseConfig(t, ""), "/state").Correspondence
	if c.MoveTime != time.Minute || c.CheckinPeriod != 10*time.Minute || c.DisconnectTime != 150*time.Second || c.Ponder || c.Concurrency != 5 {
		t.Errorf("default correspondence settings %+v", c)
	}
	c = settingsFromConfig(parseConfig(t, "correspondence:\n  move_time: 5s\n  checkin_period: 1m\n  disconnect_time: 10s\n  ponder: true\n  concurrency: 2\n"), "/state").Correspondence
	if c.MoveTime != 5*time.Second || c.CheckinPeriod != time.Minute || c.DisconnectTime != 10*time.Second || !c.Ponder || c.Concurrency != 2 {
		t.Errorf("correspondence settings %+v", c)
	}
}

// matchmaking.correspondence_days reaches the client; written alone, no
// real-time time control goes with it (correspondence only).
func TestSettingsCorrespondenceDaysFromConfig(t *testing.T) {
	m := settingsFromConfig(parseConfig(t, "challenge:\n  speeds: [blitz, correspondence]\nmatchmaking:\n  enabled: true\n  correspondence_days: [2, 5]\n"), "/state").Matchmaking
	if !slices.Equal(m.CorrespondenceDays, []int{2, 5}) || len(m.TimeControls) != 0 {
		t.Errorf("correspondence days %v, time controls %v; want [2 5] and none", m.CorrespondenceDays, m.TimeControls)
	}
	if m = settingsFromConfig(parseConfig(t, ""), "/state").Matchmaking; len(m.CorrespondenceDays) != 0 || len(m.TimeControls) != 2 {
		t.Errorf("defaults: correspondence days %v, time controls %v; want none and 3+2, 5+3", m.CorrespondenceDays, m.TimeControls)
	}
}
