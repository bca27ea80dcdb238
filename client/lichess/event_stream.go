package lichess

import (
	"context"
	"errors"
	"net/http"
)

// StreamEvents streams the incoming events of the bot (GET /api/stream/event),
// calling fn with each decoded event. When the stream opens, Lichess sends
// all current challenges and games. Unknown event types are skipped (logged
// at debug level) and malformed lines are logged and skipped. It returns when
// the stream ends or fails, ctx ends, or fn returns an error; reconnecting is
// the caller's business (package client's Bot does it with backoff).
func (c *Client) StreamEvents(ctx context.Context, fn func(Event) error) error {
	return c.StreamEventsOpened(ctx, nil, fn)
}

// StreamEventsOpened is StreamEvents; opened, when not nil, is called once
// Lichess has answered (the stream is open), before the first event.
func (c *Client) StreamEventsOpened(ctx context.Context, opened func(), fn func(Event) error) error {
	r := request{op: "stream events", method: http.MethodGet, path: "/api/stream/event",
		limitKey: "stream/event", essential: true, opened: opened}
	return c.stream(ctx, r, func(line []byte) error {
		ev, err := DecodeEvent(line)
		if errors.Is(err, ErrUnknownEvent) {
			c.log.Debug().Str("type", ev.Type).Msg("ignoring unknown event")
			return nil
		}
		if err != nil {
			c.log.Warn().Err(err).Msg("ignoring malformed event")
			return nil
		}
		return fn(ev)
	})
}
