// Package client is the Lichess Bot API client: HTTP, NDJSON streams, rate
// limits, reconnects, the challenge policy, game workers and their clocks.
//
// Two layers:
//
//   - Client (New) is the API: one file per area — account.go (profile,
//     token check with the bot:play scope, games in progress, bot upgrade),
//     events_api.go (the incoming-events stream), game_api.go (game stream,
//     move, chat, abort, resign, claims, draw and takeback answers),
//     challenges_api.go (accept, decline with a reason, cancel, create,
//     online bots). Errors say what was being done and never contain the
//     token. A 429 starts a cool-down of its endpoint (a move's: of its game
//     only); essential requests wait it out, the others fail at once with
//     ErrCoolingDown (see Client).
//
//   - Bot (NewBot) is the daemon: it streams events (reconnecting with
//     backoff when the stream drops or stays silent past the read
//     deadline), answers challenges by its ChallengePolicy, rejoins games
//     in progress (/api/account/playing) at start and after each reconnect,
//     runs one game worker per game, and challenges online bots when idle
//     (MatchmakingSettings, off by default). Drain stops taking games and
//     waits for the running ones; UpdateSettings applies to new games only.
//
// A game worker follows its game stream (reopened when it drops), keeps the
// position (rules.go: notnil/chess for standard and fromPosition, the
// project's engine/board for Chess960), asks a Player for our moves within
// the clock budget (clock.go), checks them, and posts each ply's move once.
// It plays a single legal move at once, answers draw and takeback offers,
// claims the win (or a draw without mating material) when the opponent is
// gone, aborts when the opponent never makes a first move, greets, says
// goodbye, answers !help, !eval and !name, and saves the PGN with its
// evaluations. When the Player fails it is restarted through the
// PlayerFactory; when there is no time left a legal fallback move is played.
package client
