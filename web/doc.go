// Package web is ponderosa's live web view: the running games (board,
// clocks, moves, evaluation graph, principal variation, the search's
// figures and a tree browser), the challenge queue and the finished games
// of the archive, each linked to its game on Lichess.
//
// New returns an http.Handler; the daemon's HTTP server (or the demo's)
// mounts it. It reads everything through a Source, which the daemon
// implements over its bot and ponder.Games: web never touches the search
// (it sees ponder.Snapshot values and asks ponder.Game.Expand through the
// Source), imports neither client nor cmd, and is never given the Lichess
// token.
//
// Routes (all GET, read-only):
//
//	/                            the page (index.html; app.js and style.css under /assets/)
//	/api/games                   running games, full state (JSON)
//	/api/games/{id}              one running game
//	/api/games/{id}/tree?node=R  children of tree node R ("" or absent: the current position);
//	                             400 for a malformed ref, 410 for a stale one, 404 for an unknown game
//	/api/queue                   the challenge queue
//	/api/archive?opponent=&result=&speed=&since=&limit=
//	                             finished games, newest first (since: RFC 3339 or YYYY-MM-DD)
//	/events                      server-sent events: "state" (everything, on connect), then
//	                             small deltas: "game" (a new game or one that changed position
//	                             otherwise than by moves), "move" (new moves, clocks, the last
//	                             move's figures and evaluation), "search" (the latest iteration),
//	                             "gone" (a game ended), "queue"
//
// The page is HTML, CSS and plain JavaScript embedded with go:embed: no
// CDN, no build step, no network. Updates are coalesced to at most one per
// Options.MinInterval per client.
package web
