package client

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/ponder"
)

// GameView is what a viewer (the web view) sees of one running game: who
// plays, the clocks as Lichess last told them, and the built-in engine's
// ponder.Game (nil with another player, or before the game's player
// started), whose Snapshot, Watch and Expand viewers use. No token.
type GameView struct {
	ID         string
	URL        string
	White      ViewPlayer
	Black      ViewPlayer
	OurColor   string // "white" or "black"
	Speed      string
	Variant    string
	Rated      bool
	HasClock   bool
	WhiteClock time.Duration
	BlackClock time.Duration
	ClockAt    time.Time // when the clocks were received
	// StartFEN ("" for the standard start) and Moves (UCI) are the game
	// as Lichess tells it, for a game without a ponder.Game (a UCI
	// engine's), whose position viewers then work out themselves.
	StartFEN string
	Moves    []string
	Game     *ponder.Game
}

// ViewPlayer is one side of a GameView.
type ViewPlayer struct {
	Name   string
	Title  string
	Rating int
}

// QueuedView is one challenge of the queue, for viewers.
type QueuedView struct {
	ID          string
	URL         string
	From        string
	Title       string
	Rating      int
	Speed       string
	Variant     string
	TimeControl string
	Rated       bool
	Since       time.Time
}

// gameView is a worker's GameView, written by its goroutines and read by
// viewers.
type gameView struct {
	mu sync.Mutex
	v  GameView
}

func (gv *gameView) update(f func(*GameView)) {
	gv.mu.Lock()
	f(&gv.v)
	gv.mu.Unlock()
}

func (gv *gameView) get() GameView {
	gv.mu.Lock()
	defer gv.mu.Unlock()
	return gv.v
}

// viewFull fills the view from the game's full description.
func (g *gameWorker) viewFull(f *lichess.GameFull) {
	g.view.update(func(v *GameView) {
		v.ID, v.URL = g.id, g.bot.gameURL(g.id)
		v.White = ViewPlayer{Name: f.White.Name, Title: f.White.Title, Rating: f.White.Rating}
		v.Black = ViewPlayer{Name: f.Black.Name, Title: f.Black.Title, Rating: f.Black.Rating}
		v.OurColor = "black"
		if g.white {
			v.OurColor = "white"
		}
		v.Speed, v.Variant, v.Rated, v.HasClock = f.Speed, f.Variant.Key, f.Rated, f.Clock != nil
		v.StartFEN = f.InitialFEN
		if v.StartFEN == "startpos" {
			v.StartFEN = ""
		}
	})
}

// viewState takes the clocks of a game state received at.
// A game without a ponder.Game (a UCI engine's) has no Watch to follow,
// so a new move of it wakes the bot's Changed.
func (g *gameWorker) viewState(st lichess.GameState, at time.Time) {
	var moved bool
	g.view.update(func(v *GameView) {
		v.WhiteClock = time.Duration(st.WTime) * time.Millisecond
		v.BlackClock = time.Duration(st.BTime) * time.Millisecond
		v.ClockAt = at
		moves := strings.Fields(st.Moves)
		moved = v.Game == nil && len(moves) != len(v.Moves)
		v.Moves = moves
	})
	if moved {
		g.bot.mu.Lock()
		g.bot.notifyLocked()
		g.bot.mu.Unlock()
	}
}

// viewPlayer shows the ponder.Game of p (nil: none).
func (g *gameWorker) viewPlayer(p Player) {
	var pg *ponder.Game
	if x, ok := p.(PonderGamer); ok {
		pg = x.PonderGame()
	}
	g.view.update(func(v *GameView) { v.Game = pg })
	g.bot.mu.Lock()
	g.bot.notifyLocked()
	g.bot.mu.Unlock()
}

// GameViews lists the running games for viewers, by id.
func (b *Bot) GameViews() []GameView {
	b.mu.Lock()
	ws := make([]*gameWorker, 0, len(b.games))
	for _, w := range b.games {
		ws = append(ws, w)
	}
	b.mu.Unlock()
	out := make([]GameView, 0, len(ws))
	for _, w := range ws {
		if v := w.view.get(); v.ID != "" {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b GameView) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// QueueView lists the challenges waiting for a slot, oldest first.
func (b *Bot) QueueView() []QueuedView {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]QueuedView, 0, len(b.queue.items))
	for _, q := range b.queue.items {
		ch := q.ch
		out = append(out, QueuedView{ID: ch.ID, URL: ch.URL, From: ch.Challenger.Name, Title: ch.Challenger.Title,
			Rating: ch.Challenger.Rating, Speed: ch.Speed, Variant: ch.Variant.Key, TimeControl: ch.TimeControl.Show,
			Rated: ch.Rated, Since: q.at})
	}
	return out
}

// Changed returns a channel closed at the next change of the games, the
// queue, the settings or a game's player (not at each move: follow each
// game's ponder.Game.Watch for those).
func (b *Bot) Changed() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.changed
}

// PonderGame returns the ponder.Game of the variant's player, if it has one.
func (v *variantPlayer) PonderGame() *ponder.Game {
	v.mu.Lock()
	p := v.p
	v.mu.Unlock()
	if x, ok := p.(PonderGamer); ok {
		return x.PonderGame()
	}
	return nil
}
