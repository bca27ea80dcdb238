// Package client is the bot daemon: it plays on Lichess through the API
// client of package lichess, with moves chosen by a Player.
//
// # The bot
//
// Bot (NewBot) follows the incoming-events stream, reopening it with
// backoff when it drops or stays silent past the read deadline. It answers
// challenges by its ChallengePolicy (variants, speeds and clocks, rated or
// casual, bots or humans, ratings, allow and block lists, games at once
// and bot games per day; a decline carries its reason). A challenge that
// passes the rules but finds every slot busy waits in a queue (queue.go:
// arrival order or best rating first, a length and an age limit, slots
// reserved for humans, games per opponent) and is accepted when a game
// ends, unless its challenger withdraws it; at start-up the challenges still
// open on Lichess are listed and queued. The Bot rejoins the games in
// progress at start-up and after each reconnect, runs one game worker per
// game, and, when matchmaking is on and a real-time slot that no queued
// real-time challenge waits for and no slot reserved for humans has been free
// idle_time (or, with correspondence days to offer, a correspondence slot
// that no queued correspondence challenge waits for), challenges an online
// bot (matchmaking.go; our challenge out,
// its cancel when stale, in matchmaking_out.go; Lichess' daily bot-game
// caps pause it or skip an opponent, matchmaking_daycaps.go; bots that
// declined repeatedly are blocked by the persisted decline history, per
// kind of challenge for a reason about the kind, matchmaking_declines.go).
// Correspondence games (correspondence.go)
// have a budget of their own apart from the real-time slots: the worker
// thinks for a set time when it is our move, posts, and lets the game's
// stream go after a while without our move; the game is taken up again on
// the gameStart Lichess sends when the opponent moves, at each periodic
// check-in of the games in progress, and after a restart. Arena
// tournaments (tournament.go and tournament_*.go: those of the settings
// and those an ArenaStore records, read again every few seconds) are joined at
// start-up; the bot asks Lichess
// for a pairing (pairMeAsap) while a real-time slot is free, plays the
// games it is paired in, sends no real-time matchmaking challenge while an
// arena's pairings are open (correspondence ones go on), and
// withdraws when it stops. Drain stops
// taking new games, withdraws from the arenas, declines the queued challenges and waits for the
// running real-time ones (correspondence games are let go); EndGames
// aborts or resigns the real-time games left when the grace period is
// over. UpdateSettings applies to new games only.
//
// # The game worker
//
// A game worker follows its game's stream (reopened when it drops) and
// keeps the position: the rules of standard chess and of games from a
// position come from github.com/notnil/chess, those of Chess960 from the
// engine's board package (engine/board). The other Lichess variants
// (crazyhouse, atomic, antichess, kingOfTheHill, threeCheck, horde,
// racingKings) are followed without rules of its own (KnowsRules): turn
// by ply parity, moves as the per-variant engine gives them and as Lichess
// sends them, legality left to the engine and to Lichess; with no
// legal-move list there, a move the engine fails to give in time is asked
// of a fresh engine process (a quick move) instead of taken from the list,
// and an engine that sees no move at all (the game is over by its rules)
// leaves the game to Lichess, which ends it. The game's moves live there: the
// Player is told each new position once (the opponent's move before it
// thinks, our posted move before it ponders). For each of our moves the
// worker computes one thing, the hard deadline (the last moment the move
// can be posted: our clock less the measured latency of a move's round trip
// and the move overhead; before the clocks run, the first-move expiration),
// and hands the Player the clock situation with it (MoveClock); how much of
// it to use is the Player's choice. It checks the answer and posts each
// ply's move once. A single legal move is played at once; a Player that
// fails is made again through the PlayerFactory, and when no time is left a
// legal fallback move is played. Besides moving
// it answers draw offers (by evaluation and move number, by a tablebase
// result for the position of the offer, which is then answered with our
// next move, or when we cannot win on material) and takeback requests, offers
// draws with its moves by the rule of drawoffer.go, resigns a lost position
// (by evaluation, or a tablebase loss) when told to, claims the win (or a draw) when the opponent has left, aborts
// when the opponent never makes a first move, greets and says goodbye in
// the chat and answers !help, !eval, !name and !queue there, and saves the PGN of
// the game with its evaluations.
//
// # State store
//
// A Bot given a Store (SetStore; cmd/ponderosa gives the SQLite store of
// package store, which this package does not import) archives every
// finished game there, each move with the figures of our choice (score,
// depth, nodes, time, Choice.Source), and keeps its counters in it: the
// bot games of the last 24 hours for max_bot_games_per_day and the bots
// that declined our challenges, read back when Run starts. Counter updates
// go through a goroutine, so that a slow or locked database never holds up
// the event loop; a game's record is written when the game ends. A Store
// that is also an OpenGameStore notes each game as it begins; at start the
// Bot archives the noted games without a record that have ended (a crash
// lost their records, or they ended while no bot ran) from Lichess' game
// export, paced, and again every few minutes while a pass fails
// (archive_recover.go).
//
// # Observer
//
// A Bot made WithObserver tells an Observer what it does, for metrics
// (package monitor serves them; this package knows no metrics library):
// games started and finished (result, speed), each of our moves that
// reached Lichess (the Choice, with the built-in engine's ponder, tree and
// memory figures in Choice.Engine), challenges accepted, queued or
// declined (with the reason; a decline once Lichess took it) and event
// stream reconnects. A game's end is told after its last move; a game
// the worker cannot follow is not told. A panic in the Observer is
// recovered and logged once per method. BotGamesToday gives the bot games
// of the last 24 hours.
//
// # Panics
//
// A panic in a game ends neither the daemon nor another game. Each of the
// game's goroutines recovers it at its top and logs it with its stack on
// the game's logger: a panic of the worker makes a new worker for the game,
// which resyncs from the game stream's gameFull; one of the stream's reader
// reopens the stream; one of the mover, of a Player method, or of the
// built-in engine's search is answered with a legal fallback move (a Player
// that panicked is made anew for the next move); a background request or
// chat line is just lost. The Bot's event handling, challenge answers and
// matchmaking rounds recover the same way.
//
// # Players
//
// A Player chooses moves for one game. NewBuiltinPlayer makes players on
// the built-in engine, with a search tree kept over the game and pondering
// on the opponent's time (package ponder, whose PlanMove budgets each move
// from our clock as the time left until the deadline); NewUCIPlayer drives
// an external UCI engine process (package uci) with "go wtime … btime …"
// and our clock likewise reduced, pondering with ponderhit when the
// opponent plays the expected move, and restarted when it dies; with
// UCIOptions.Variant it is a per-variant engine, set to that UCI_Variant
// for each game. NewVariantPlayer hands each game to the factory of its
// variant. NewOnlinePlayer (player_online.go) puts online knowledge
// sources (package online: the Lichess tablebase, cloud evaluation and
// opening explorer, chessdb) in front of another player, in standard chess
// and games from a position, and in Chess960 those that serve it (the
// tablebase, the cloud evaluation): they are asked in order, each within
// its timeout, only with at least its minimum time left and until it has
// missed its cap of times in a row; the first legal move one gives is
// played (logged with source=online-tablebase, cloud, explorer or
// chessdb), and on any failure the player behind it moves. That player is still told every
// position, so its tree follows the moves it did not choose.
package client
