package web

import (
	"context"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/ponder"
	"github.com/ponderosa-chess/ponderosa/store"
)

// Source is what the web view shows; the daemon (and the demo) implement
// it over their bot, its ponder.Games and the archive. Its methods are
// called from HTTP handlers, concurrently.
type Source interface {
	// Games lists the running games, each with a fresh ponder.Snapshot.
	Games() []GameView
	// Expand lists the children of tree node ref ("" for the current
	// position) of running game id (ponder.Game.Expand). Errors wrapping
	// ponder.ErrStaleRef and ponder.ErrBadRef are told apart; ErrNoGame
	// when id is not running.
	Expand(id, ref string) ([]ponder.NodeView, error)
	// Queue lists the challenges waiting to be played.
	Queue() []Challenge
	// Archive lists finished games, newest first (nil, nil without an
	// archive).
	Archive(ctx context.Context, f store.Filter) ([]store.Game, error)
	// Changed returns a channel that is closed when something may have
	// changed: a game's snapshot, the set of games, the queue. A Notifier
	// does this.
	Changed() <-chan struct{}
}

// ErrNoGame is returned by Source.Expand for a game that is not running.
var ErrNoGame = errNoGame{}

type errNoGame struct{}

func (errNoGame) Error() string { return "web: no such running game" }

// Player is one side of a game.
type Player struct {
	Name   string `json:"name"`
	Rating int    `json:"rating,omitempty"`
	Title  string `json:"title,omitempty"`
}

// GameView is one running game.
type GameView struct {
	ID       string
	URL      string // the game on Lichess
	White    Player
	Black    Player
	OurColor string // "white" or "black"
	Speed    string
	Variant  string
	Rated    bool
	// Clocks as last told by the server, at ClockAt (the page counts the
	// side to move's down from there); HasClock false for correspondence.
	HasClock   bool
	WhiteClock time.Duration
	BlackClock time.Duration
	ClockAt    time.Time
	Snapshot   ponder.Snapshot
}

// Challenge is one challenge of the queue.
type Challenge struct {
	ID          string    `json:"id"`
	From        string    `json:"from"`
	Rating      int       `json:"rating,omitempty"`
	Title       string    `json:"title,omitempty"`
	Speed       string    `json:"speed,omitempty"`
	Variant     string    `json:"variant,omitempty"`
	TimeControl string    `json:"tc,omitempty"`
	Rated       bool      `json:"rated,omitempty"`
	Since       time.Time `json:"since,omitzero"`
	URL         string    `json:"url,omitempty"`
}

// Notifier is a broadcast signal: C returns a channel that Notify closes
// (and replaces). Notify never blocks. The zero value is ready to use.
type Notifier struct {
	mu sync.Mutex
	ch chan struct{}
}

// C returns the channel closed by the next Notify.
func (n *Notifier) C() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch == nil {
		n.ch = make(chan struct{})
	}
	return n.ch
}

// Notify wakes every waiter on C.
func (n *Notifier) Notify() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch != nil {
		close(n.ch)
		n.ch = nil
	}
}

// Follow calls n.Notify at each publication of a game (watch is
// ponder.Game.Watch) until ctx ends: a Source starts one per running game.
// It notifies once when it starts watching, so that nothing published
// before is missed.
func Follow(ctx context.Context, watch func() (uint64, <-chan struct{}), n *Notifier) {
	_, ch := watch()
	n.Notify()
	for {
		select {
		case <-ch:
			n.Notify()
			_, ch = watch()
		case <-ctx.Done():
			return
		}
	}
}
