package lichess

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
)

// The Bot API for one game: stream, move, chat, abort, resign, claims,
// draw and takeback answers.

// StreamGame streams the state of bot game id, calling fn with each decoded
// event. Lines of unknown types are skipped (logged at debug level); a
// malformed line is logged and skipped. It returns when the stream ends or
// fails (ErrStreamEnded, ErrStreamIdle, ...), ctx ends, or fn returns an error.
func (c *Client) StreamGame(ctx context.Context, id string, fn func(GameEvent) error) error {
	r := request{op: "stream game " + id, method: http.MethodGet,
		path: "/api/bot/game/stream/" + pathEscape(id), limitKey: "bot/game/stream", essential: true}
	return c.stream(ctx, r, func(line []byte) error {
		ev, err := DecodeGameEvent(line)
		if errors.Is(err, ErrUnknownEvent) {
			c.log.Debug().Str("game", id).Str("type", ev.Type).Msg("ignoring unknown game event")
			return nil
		}
		if err != nil {
			c.log.Warn().Err(err).Str("game", id).Msg("ignoring malformed game event")
			return nil
		}
		return fn(ev)
	})
}

// Move posts our move (UCI) in game id, optionally offering or accepting a
// draw. A 429 cools down moves of this game only.
func (c *Client) Move(ctx context.Context, id, move string, offerDraw bool) error {
	p := "/api/bot/game/" + pathEscape(id) + "/move/" + pathEscape(move)
	if offerDraw {
		p += "?offeringDraw=true"
	}
	return c.doJSON(ctx, request{op: fmt.Sprintf("post move %s in game %s", move, id), method: http.MethodPost,
		path: p, limitKey: "move/" + id, essential: true}, nil)
}

// Chat rooms.
const (
	RoomPlayer    = "player"
	RoomSpectator = "spectator"
)

// Chat writes text in the player or spectator room of game id.
// Non-essential: fails at once inside a cool-down.
func (c *Client) Chat(ctx context.Context, id, room, text string) error {
	return c.doJSON(ctx, request{op: "chat in game " + id, method: http.MethodPost,
		path: "/api/bot/game/" + pathEscape(id) + "/chat", form: url.Values{"room": {room}, "text": {text}},
		limitKey: "bot/game/chat"}, nil)
}

func (c *Client) gameAction(ctx context.Context, id, action, op string) error {
	return c.doJSON(ctx, request{op: op + " game " + id, method: http.MethodPost,
		path: "/api/bot/game/" + pathEscape(id) + "/" + action, limitKey: "bot/game/" + action, essential: true}, nil)
}

// Abort aborts game id (possible before both players moved).
func (c *Client) Abort(ctx context.Context, id string) error {
	return c.gameAction(ctx, id, "abort", "abort")
}

// Resign resigns game id.
func (c *Client) Resign(ctx context.Context, id string) error {
	return c.gameAction(ctx, id, "resign", "resign")
}

// ClaimVictory claims the win of game id after the opponent left.
func (c *Client) ClaimVictory(ctx context.Context, id string) error {
	return c.gameAction(ctx, id, "claim-victory", "claim victory in")
}

// ClaimDraw claims a draw in game id after the opponent left.
func (c *Client) ClaimDraw(ctx context.Context, id string) error {
	return c.gameAction(ctx, id, "claim-draw", "claim draw in")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Draw offers or accepts (yes) or declines (no) a draw in game id.
func (c *Client) Draw(ctx context.Context, id string, accept bool) error {
	return c.doJSON(ctx, request{op: "answer draw offer in game " + id, method: http.MethodPost,
		path: "/api/bot/game/" + pathEscape(id) + "/draw/" + yesNo(accept), limitKey: "bot/game/draw", essential: true}, nil)
}

// Takeback proposes or accepts (yes) or declines (no) a takeback in game id.
func (c *Client) Takeback(ctx context.Context, id string, accept bool) error {
	return c.doJSON(ctx, request{op: "answer takeback in game " + id, method: http.MethodPost,
		path: "/api/bot/game/" + pathEscape(id) + "/takeback/" + yesNo(accept), limitKey: "bot/game/takeback", essential: true}, nil)
}
