package client

import (
	"time"

	"github.com/ponderosa-chess/ponderosa/internal/panics"
)

// Observer is told what the bot does, for metrics (cmd/ponderosa serves
// them on /metrics); the client itself knows no metrics library. Its
// methods are called on the bot's goroutines (the event stream's, a game
// worker's), several at once: each must be safe for concurrent use and
// return quickly; some are called with the bot's lock held, so none may
// call back into the Bot. Set it with WithObserver.
type Observer interface {
	// GameStarted: the bot began to follow a game (a game joined after a
	// restart included). It is told once per game in a run, however
	// many workers the game had (a correspondence game taken up again, a
	// worker rebuilt after a panic; Bot.noteStarted), and never for a
	// game whose end was told.
	GameStarted(g GameFacts)
	// GameFinished: the game ended; result is from our side (win, loss,
	// draw, aborted, unknown). It is told once per game in a run,
	// however many workers the game had (Bot.noteEnded). A run does not
	// know what the one before it told: a game that ended just before a
	// restart, and that Lichess still lists as in progress, is told again.
	GameFinished(g GameFacts, result string)
	// MovePlayed: our move reached Lichess. c.Duration is the player's
	// thinking time; c.Engine holds the built-in engine's figures (nil for
	// other players).
	MovePlayed(g GameFacts, c Choice)
	// ChallengeAnswered: an incoming challenge was accepted, queued or
	// declined (ChallengeAccepted, ChallengeQueued, ChallengeDeclined);
	// reason is the decline reason's Lichess key ("" otherwise).
	ChallengeAnswered(outcome, reason string)
	// StreamReconnect: the event stream dropped and is being opened again.
	StreamReconnect()
}

// Challenge outcomes for Observer.ChallengeAnswered.
const (
	ChallengeAccepted = "accepted"
	ChallengeQueued   = "queued"
	ChallengeDeclined = "declined"
)

// GameFacts are what an Observer is told of a game: a few words, never
// the players' names.
type GameFacts struct {
	ID      string
	Speed   string // Lichess speed: bullet, blitz, rapid, classical, correspondence, …
	Variant string // Lichess variant key
	Rated   bool
}

// EngineFacts are the built-in engine's figures for one of our moves
// (ponder.MoveStats, trimmed): Choice.Engine.
type EngineFacts struct {
	// Predicted: we had predicted the opponent's last move; PonderHit: it
	// was played; PonderTop3: it was among our three likeliest.
	Predicted, PonderHit, PonderTop3 bool
	// Rerooted: a tree existed before the moves since our last decision
	// were committed; KeptFraction is the share of it the new root kept.
	Rerooted     bool
	KeptFraction float64
	// TreeBytes is the game's search tree now; HashBytes its
	// transposition table.
	TreeBytes, HashBytes int64
}

// BotOption changes a Bot made by NewBot.
type BotOption func(*Bot)

// WithObserver sets the bot's Observer (nil: none). A panic in one of
// its methods is recovered and logged (once per method); the bot goes on.
func WithObserver(o Observer) BotOption {
	return func(b *Bot) {
		if o != nil {
			b.obs = &safeObserver{o: o, b: b}
		}
	}
}

// safeObserver calls an Observer, recovering its panics: metrics never
// stop a game.
type safeObserver struct {
	o    Observer
	b    *Bot
	once panics.Once // methods whose panic was logged
}

func (s *safeObserver) GameStarted(g GameFacts) {
	defer s.once.Contain(s.b.log, "observer GameStarted")
	s.o.GameStarted(g)
}

func (s *safeObserver) GameFinished(g GameFacts, result string) {
	defer s.once.Contain(s.b.log, "observer GameFinished")
	s.o.GameFinished(g, result)
}

func (s *safeObserver) MovePlayed(g GameFacts, c Choice) {
	defer s.once.Contain(s.b.log, "observer MovePlayed")
	s.o.MovePlayed(g, c)
}

func (s *safeObserver) ChallengeAnswered(outcome, reason string) {
	defer s.once.Contain(s.b.log, "observer ChallengeAnswered")
	s.o.ChallengeAnswered(outcome, reason)
}

func (s *safeObserver) StreamReconnect() {
	defer s.once.Contain(s.b.log, "observer StreamReconnect")
	s.o.StreamReconnect()
}

type nopObserver struct{}

func (nopObserver) GameStarted(GameFacts)          {}
func (nopObserver) GameFinished(GameFacts, string) {}
func (nopObserver) MovePlayed(GameFacts, Choice)   {}
func (nopObserver) ChallengeAnswered(_, _ string)  {}
func (nopObserver) StreamReconnect()               {}

// BotGamesToday returns the bot-vs-bot games of the last 24 hours and the
// most the settings allow (challenge.max_bot_games_per_day, counting
// incoming and outgoing).
func (b *Bot) BotGamesToday() (played, limit int) {
	limit = b.Settings().Challenge.MaxBotGamesPerDay
	return b.botGames.count(time.Now()), limit
}

// gameFacts are the facts of g for the Observer. They are set once, on
// the worker's goroutine before any mover starts, so the mover may read
// them too (g.full may not: a reconnect rewrites it).
func (g *gameWorker) gameFacts() GameFacts {
	if g.facts.ID == "" {
		return GameFacts{ID: g.id}
	}
	return g.facts
}
