package lichess

import (
	"context"
	"net/http"
	"net/url"
)

// ScopeTournamentWrite is the OAuth scope that joining and leaving an
// arena tournament needs (POST /api/tournament/{id}/join and /withdraw).
const ScopeTournamentWrite = "tournament:write"

// JoinRequest holds the optional fields of POST /api/tournament/{id}/join
// (form fields password, team and pairMeAsap).
type JoinRequest struct {
	// Password is the tournament's password or a user-specific entry
	// code ("" = none).
	Password string
	// Team is the team to join a team battle with ("" = none).
	Team string
	// PairMeAsap asks Lichess, when the tournament has started, to pair
	// us even though we are not on the tournament page; it expires after
	// one minute, and joining again extends it.
	PairMeAsap bool
}

// JoinArena joins arena tournament id, or unpauses it after WithdrawArena
// (POST /api/tournament/{id}/join). A refusal (wrong password, bots not
// allowed, the tournament is over) is Lichess' 400 with its reason in the
// *APIError. Non-essential: fails at once inside a cool-down. The password
// is sent in the form body, never in the URL or an error.
func (c *Client) JoinArena(ctx context.Context, id string, jr JoinRequest) error {
	f := url.Values{}
	if jr.Password != "" {
		f.Set("password", jr.Password)
	}
	if jr.Team != "" {
		f.Set("team", jr.Team)
	}
	if jr.PairMeAsap {
		f.Set("pairMeAsap", "true")
	}
	return c.doJSON(ctx, request{op: "join tournament " + id, method: http.MethodPost,
		path: "/api/tournament/" + pathEscape(id) + "/join", form: f, limitKey: "tournament/join"}, nil)
}

// WithdrawArena leaves arena tournament id before it starts, or pauses
// it while it runs (POST /api/tournament/{id}/withdraw): Lichess pairs us
// no more until we join again; points and streaks are kept. Essential: it
// waits out a cool-down (bounded by ctx), since it is sent when stopping.
func (c *Client) WithdrawArena(ctx context.Context, id string) error {
	return c.doJSON(ctx, request{op: "withdraw from tournament " + id, method: http.MethodPost,
		path: "/api/tournament/" + pathEscape(id) + "/withdraw", limitKey: "tournament/withdraw", essential: true}, nil)
}

// Arena is schema ArenaTournamentFull: the fields the bot uses.
type Arena struct {
	ID       string `json:"id"`
	FullName string `json:"fullName"`
	Rated    bool   `json:"rated"`
	Clock    struct {
		Limit     int `json:"limit"`
		Increment int `json:"increment"`
	} `json:"clock"`
	Minutes         int    `json:"minutes"`
	Variant         string `json:"variant,omitempty"`
	SecondsToStart  int    `json:"secondsToStart,omitempty"`
	SecondsToFinish int    `json:"secondsToFinish,omitempty"`
	IsFinished      bool   `json:"isFinished,omitempty"`
	PairingsClosed  bool   `json:"pairingsClosed,omitempty"`
	NbPlayers       int    `json:"nbPlayers"`
	BotsAllowed     bool   `json:"botsAllowed,omitempty"`
}

// Arena states, as ArenaTournamentFull tells them (State).
const (
	ArenaCreated  = "created"  // not started yet (secondsToStart > 0)
	ArenaStarted  = "started"  // running
	ArenaFinished = "finished" // over (isFinished)
)

// State is the arena's state: ArenaFinished once isFinished, ArenaStarted
// while secondsToFinish is above 0 (Lichess sends it only for a running
// arena), else ArenaCreated: secondsToStart above 0, or neither (an arena
// at its start time that Lichess has not started yet, or an answer
// without either field, is not taken for a running one).
func (a Arena) State() string {
	switch {
	case a.IsFinished:
		return ArenaFinished
	case a.SecondsToFinish > 0:
		return ArenaStarted
	}
	return ArenaCreated
}

// ArenaInfo returns arena tournament id (GET /api/tournament/{id}).
// Non-essential: fails at once inside a cool-down.
func (c *Client) ArenaInfo(ctx context.Context, id string) (Arena, error) {
	var a Arena
	err := c.doJSON(ctx, request{op: "get tournament " + id, method: http.MethodGet,
		path: "/api/tournament/" + pathEscape(id), limitKey: "tournament/get"}, &a)
	return a, err
}
