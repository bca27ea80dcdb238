package lichess

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Types and decoding of the NDJSON events, following the schemas of the
// Lichess API (GameStartEvent, ChallengeEvent, GameFullEvent, ...). Unknown
// fields are ignored; unknown event types are reported with ErrUnknownEvent.

// ErrUnknownEvent is matched by the error of a decoded line whose "type" is
// not one this client knows. Callers ignore such lines.
var ErrUnknownEvent = errors.New("unknown event type")

// Event types of the incoming-events stream (/api/stream/event).
const (
	EventGameStart         = "gameStart"
	EventGameFinish        = "gameFinish"
	EventChallenge         = "challenge"
	EventChallengeCanceled = "challengeCanceled"
	EventChallengeDeclined = "challengeDeclined"
)

// Event types of a bot game stream (/api/bot/game/stream/{gameId}).
const (
	GameEventFull         = "gameFull"
	GameEventState        = "gameState"
	GameEventChatLine     = "chatLine"
	GameEventOpponentGone = "opponentGone"
)

// Variant is a chess variant (schema Variant).
type Variant struct {
	Key   string `json:"key"` // standard, chess960, fromPosition, ...
	Name  string `json:"name"`
	Short string `json:"short,omitempty"`
}

// ChallengeUser is a player in a challenge (schema ChallengeUser).
type ChallengeUser struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Rating      int    `json:"rating,omitempty"`
	Title       string `json:"title,omitempty"`
	Provisional bool   `json:"provisional,omitempty"`
	Online      bool   `json:"online,omitempty"`
	Lag         int    `json:"lag,omitempty"`
}

// IsBot reports whether the user has the BOT title.
func (u *ChallengeUser) IsBot() bool { return u != nil && u.Title == "BOT" }

// TimeControl of a challenge (schema TimeControl): Type is clock,
// correspondence or unlimited; Limit and Increment are in seconds.
type TimeControl struct {
	Type        string `json:"type"`
	Limit       int    `json:"limit,omitempty"`
	Increment   int    `json:"increment,omitempty"`
	Show        string `json:"show,omitempty"`
	DaysPerTurn int    `json:"daysPerTurn,omitempty"`
}

// Challenge is schema ChallengeJson (with the decline fields of
// ChallengeDeclinedJson).
type Challenge struct {
	ID               string         `json:"id"`
	URL              string         `json:"url"`
	Status           string         `json:"status"`
	Challenger       ChallengeUser  `json:"challenger"`
	DestUser         *ChallengeUser `json:"destUser"`
	Variant          Variant        `json:"variant"`
	Rated            bool           `json:"rated"`
	Speed            string         `json:"speed"`
	TimeControl      TimeControl    `json:"timeControl"`
	Color            string         `json:"color"`
	FinalColor       string         `json:"finalColor,omitempty"`
	Direction        string         `json:"direction,omitempty"` // in or out
	InitialFEN       string         `json:"initialFen,omitempty"`
	RematchOf        string         `json:"rematchOf,omitempty"`
	DeclineReason    string         `json:"declineReason,omitempty"`
	DeclineReasonKey string         `json:"declineReasonKey,omitempty"`
}

// GameStatus is the status object of GameEventInfo.
type GameStatus struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// GameOpponent is the opponent in a GameEventInfo (a player or the AI).
type GameOpponent struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	Rating   int    `json:"rating,omitempty"`
	// RatingDiff is the opponent's rating change, in the gameFinish of a
	// rated game; nil when Lichess sends none.
	RatingDiff *int `json:"ratingDiff,omitempty"`
	AI         int  `json:"ai,omitempty"`
}

// GameEventInfo describes a game in gameStart and gameFinish events.
type GameEventInfo struct {
	FullID      string       `json:"fullId"`
	GameID      string       `json:"gameId"`
	FEN         string       `json:"fen,omitempty"`
	Color       string       `json:"color,omitempty"`
	LastMove    string       `json:"lastMove,omitempty"`
	Source      string       `json:"source,omitempty"`
	Status      GameStatus   `json:"status"`
	Variant     Variant      `json:"variant"`
	Speed       string       `json:"speed,omitempty"`
	Perf        string       `json:"perf,omitempty"`
	Rated       bool         `json:"rated,omitempty"`
	HasMoved    bool         `json:"hasMoved,omitempty"`
	Opponent    GameOpponent `json:"opponent"`
	IsMyTurn    bool         `json:"isMyTurn,omitempty"`
	SecondsLeft int          `json:"secondsLeft,omitempty"`
	Winner      string       `json:"winner,omitempty"`
	// Rating is our rating in the game's perf (Lichess sends it, though
	// the spec leaves it out).
	Rating int `json:"rating,omitempty"`
	// RatingDiff is our rating change, in the gameFinish of a rated game
	// (Lichess sends it, though the spec leaves it out); nil when absent.
	RatingDiff *int `json:"ratingDiff,omitempty"`
	// TournamentID is the arena tournament the game belongs to ("" for
	// a game that is not a tournament's).
	TournamentID string `json:"tournamentId,omitempty"`
}

// Event is one line of the incoming-events stream. Challenge is set for the
// challenge events, Game for gameStart and gameFinish.
type Event struct {
	Type      string
	Challenge *Challenge
	Game      *GameEventInfo
}

// DecodeEvent decodes one non-empty line of the incoming-events stream.
func DecodeEvent(line []byte) (Event, error) {
	var raw struct {
		Type      string         `json:"type"`
		Challenge *Challenge     `json:"challenge"`
		Game      *GameEventInfo `json:"game"`
	}
	if err := json.Unmarshal(line, &raw); err != nil {
		return Event{}, fmt.Errorf("decode event: %w", err)
	}
	ev := Event{Type: raw.Type}
	switch raw.Type {
	case EventGameStart, EventGameFinish:
		if raw.Game == nil || raw.Game.GameID == "" {
			return ev, fmt.Errorf("decode %s event: no game id", raw.Type)
		}
		ev.Game = raw.Game
	case EventChallenge, EventChallengeCanceled, EventChallengeDeclined:
		if raw.Challenge == nil || raw.Challenge.ID == "" {
			return ev, fmt.Errorf("decode %s event: no challenge id", raw.Type)
		}
		ev.Challenge = raw.Challenge
	default:
		return ev, fmt.Errorf("decode event %q: %w", raw.Type, ErrUnknownEvent)
	}
	return ev, nil
}

// GamePlayer is a player in a gameFull event (schema GameEventPlayer).
type GamePlayer struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Rating      int    `json:"rating,omitempty"`
	Provisional bool   `json:"provisional,omitempty"`
	AILevel     int    `json:"aiLevel,omitempty"`
}

// Expiration is the first-move deadline of a GameState.
type Expiration struct {
	IdleMillis   int64 `json:"idleMillis"`
	MillisToMove int64 `json:"millisToMove"`
}

// GameState is schema GameStateEvent. Times are in milliseconds.
type GameState struct {
	Moves      string      `json:"moves"`
	WTime      int64       `json:"wtime"`
	BTime      int64       `json:"btime"`
	WInc       int64       `json:"winc"`
	BInc       int64       `json:"binc"`
	Status     string      `json:"status"`
	Winner     string      `json:"winner,omitempty"`
	WDraw      bool        `json:"wdraw,omitempty"`
	BDraw      bool        `json:"bdraw,omitempty"`
	WTakeback  bool        `json:"wtakeback,omitempty"`
	BTakeback  bool        `json:"btakeback,omitempty"`
	Expiration *Expiration `json:"expiration,omitempty"`
}

// GameClock is the clock of a gameFull event, in milliseconds.
type GameClock struct {
	Initial   int64 `json:"initial"`
	Increment int64 `json:"increment"`
}

// GameFull is schema GameFullEvent.
type GameFull struct {
	ID          string     `json:"id"`
	Variant     Variant    `json:"variant"`
	Clock       *GameClock `json:"clock,omitempty"`
	Speed       string     `json:"speed"`
	Rated       bool       `json:"rated"`
	CreatedAt   int64      `json:"createdAt"`
	White       GamePlayer `json:"white"`
	Black       GamePlayer `json:"black"`
	InitialFEN  string     `json:"initialFen"`
	State       GameState  `json:"state"`
	DaysPerTurn int        `json:"daysPerTurn,omitempty"`
	Perf        struct {
		Name string `json:"name"`
	} `json:"perf"`
	// TournamentID is the arena tournament of the game ("" for none).
	TournamentID string `json:"tournamentId,omitempty"`
}

// ChatLine is schema ChatLineEvent.
type ChatLine struct {
	Room     string `json:"room"` // player or spectator
	Username string `json:"username"`
	Text     string `json:"text"`
}

// OpponentGone is schema OpponentGoneEvent.
type OpponentGone struct {
	Gone              bool `json:"gone"`
	ClaimWinInSeconds *int `json:"claimWinInSeconds,omitempty"`
}

// GameEvent is one line of a bot game stream; exactly one field besides Type
// is set.
type GameEvent struct {
	Type         string
	Full         *GameFull
	State        *GameState
	Chat         *ChatLine
	OpponentGone *OpponentGone
}

// DecodeGameEvent decodes one non-empty line of a bot game stream.
func DecodeGameEvent(line []byte) (GameEvent, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return GameEvent{}, fmt.Errorf("decode game event: %w", err)
	}
	ev := GameEvent{Type: head.Type}
	var err error
	switch head.Type {
	case GameEventFull:
		ev.Full = new(GameFull)
		err = json.Unmarshal(line, ev.Full)
		if err == nil && ev.Full.ID == "" {
			err = errors.New("no game id")
		}
	case GameEventState:
		ev.State = new(GameState)
		err = json.Unmarshal(line, ev.State)
	case GameEventChatLine:
		ev.Chat = new(ChatLine)
		err = json.Unmarshal(line, ev.Chat)
	case GameEventOpponentGone:
		ev.OpponentGone = new(OpponentGone)
		err = json.Unmarshal(line, ev.OpponentGone)
	default:
		return ev, fmt.Errorf("decode game event %q: %w", head.Type, ErrUnknownEvent)
	}
	if err != nil {
		return GameEvent{Type: head.Type}, fmt.Errorf("decode %s: %w", head.Type, err)
	}
	return ev, nil
}
