// Package lichess is a client of the Lichess Bot API over HTTP, and nothing
// more: it knows the endpoints, the streams and the JSON shapes of Lichess,
// not chess, engines or how a bot plays. The bot daemon that uses it is
// package client; the fake Lichess server its tests (and the demo) run
// against is package lichesstest, beside it.
//
// # Client and endpoints
//
// New makes a Client for a base URL (Lichess itself by default) and an
// OAuth2 token source; Options set the HTTP transport, logger, user agent
// and timeouts. Its methods cover what a bot needs:
//
//   - the account: the profile, the start-up token check (the token must
//     carry the bot:play scope), the games in progress, the one-way upgrade
//     to a Bot account;
//   - the incoming-events stream (StreamEvents): game starts and ends,
//     challenges received, cancelled and declined;
//   - one game (StreamGame and the actions): its stream, posting a move
//     (optionally offering a draw), chat, abort, resign, claiming the win
//     or a draw when the opponent has left, answering draw and takeback
//     offers; and one game's export (ExportGame: its players, result,
//     moves and PGN, for a record a crash lost);
//   - challenges: accept, decline with a reason, cancel, create, the list
//     of open challenges to us and from us, and the list of online bots to
//     challenge;
//   - knowledge for choosing a move (online.go): the Lichess tablebase
//     (without the token), the cloud evaluation and the opening explorer
//     (with it), the tablebase and the explorer at base URLs of their own.
//     These requests are not essential (they fail at once in a cool-down)
//     but do not queue behind the other non-essential ones either: a move
//     waits for them.
//
// # Streams and events
//
// Streams are NDJSON read line by line; empty keep-alive lines are
// skipped, and a stream silent for longer than the idle timeout is closed
// with ErrStreamIdle (Lichess sends a keep-alive every few seconds, so
// silence means a dead connection). A normal end is ErrStreamEnded.
// Reconnecting is the caller's business. Each line is decoded into a typed
// event (Event for the incoming-events stream, GameEvent for a game
// stream) following the schemas of the Lichess API; unknown fields are
// ignored, and lines of unknown types or malformed lines are logged and
// skipped, so a new kind of event on Lichess does not break a stream.
//
// # Errors and rate limits
//
// Errors say what was being done ("post move e2e4 in game abc") and never
// contain the token. A request with the token follows a redirect only on
// its host (never from https to http): the token would go with it, so a
// redirect elsewhere fails with ErrRedirectRefused. An answer with a non-2xx status is an *APIError
// (StatusCode extracts its status). A 429 starts a cool-down of the
// endpoint that got it, for its Retry-After or a minute; a 429 on a move
// cools down that game's moves only. Inside a cool-down, essential
// requests (moves, streams, claims, answers) wait for its end, and the
// others (chat, sending, listing or cancelling challenges, the online-bot
// list, account look-ups) fail at once with an error matching ErrCoolingDown
// (IsRateLimited matches both). Lichess
// asks for one request at a time: the non-essential requests go one at a
// time, and the essential ones never queue behind them, since a game's
// clock would pay for it. An Observer (WithObserver) is told of each 429
// and of each request refused in a cool-down, by endpoint family, for
// metrics (package monitor); this package knows no metrics library.
package lichess
