// Package lichesstest is a Lichess-compatible HTTP server for tests and the
// demo, written from the official Lichess OpenAPI spec (bot subset), like
// net/http/httptest: a fake that lives beside the thing it fakes.
//
// # Starting
//
//	s := lichesstest.New(lichesstest.WithKeepAlive(20 * time.Millisecond))
//	s.AddAccount("ponderosa", "lip_bot", true, 1500)   // a BOT account and its token
//	s.AddAccount("alice", "lip_alice", false, 1700)    // a human
//	if err := s.Start(); err != nil { … }               // 127.0.0.1:0 unless WithAddr
//	defer s.Close()
//	baseURL := s.URL()                                   // "http://127.0.0.1:PORT"
//
// NewStarted does New and Start and panics on failure, like
// httptest.NewServer. Handler returns the http.Handler for mounting
// elsewhere.
//
// # Endpoints
//
// Authenticated with "Authorization: Bearer <token>". A missing or unknown
// token gets 401 {"error": …}; a token without a scope the endpoint accepts
// gets 403 {"error":"Missing scope"}. Every authenticated answer carries
// X-OAuth-Scopes (the token's scopes, comma-separated) and
// X-Accepted-OAuth-Scopes, as Lichess does.
//
//	GET  /api/account                           UserExtended; title "BOT" for bots
//	GET  /api/account/playing                   {nowPlaying:[…], nbMyTurn}
//	POST /api/token/test                        body "tok1,tok2" → {tok: {userId, scopes, expires} | null}
//	GET  /api/users/status?ids=a,b              [{id, name, title?, online?, playing?}]
//	GET  /api/stream/event                      NDJSON: gameStart, gameFinish, challenge,
//	                                            challengeCanceled, challengeDeclined
//	GET  /api/bot/online                        NDJSON of online bots (event stream open, or house players)
//	GET  /api/stream/game/{id}                  public NDJSON move stream (no auth; moves not delayed)
//	GET  /game/export/{id}                      one game (no auth): PGN, or GameJson with Accept:
//	                                            application/json (moves in SAN; pgnInJson, moves)
//	POST /api/bot/account/upgrade               400 if already a bot or has played
//	GET  /api/challenge                         {in:[…], out:[…]} (open challenges; challenge:read only)
//	POST /api/challenge/{username}              form: rated, clock.limit, clock.increment, days, color, variant, fen
//	GET  /api/challenge/{id}/show
//	POST /api/challenge/{id}/accept
//	POST /api/challenge/{id}/decline            form: reason (generic, later, tooFast, tooSlow, timeControl,
//	                                            rated, casual, standard, variant, noBot, onlyBot)
//	POST /api/challenge/{id}/cancel             also aborts the game while it is abortable
//	POST /api/challenge/{id}/start-clocks       ?token1=…&token2=… (both players' tokens)
//	POST /api/round/{id}/add-time/{seconds}     5 to 60 s to the opponent's clock
//	GET  /api/bot/game/stream/{id}              NDJSON: gameFull, then gameState, chatLine, opponentGone
//	POST /api/bot/game/{id}/move/{uci}          ?offeringDraw=true|false
//	POST /api/bot/game/{id}/chat                form: room (player|spectator), text
//	GET  /api/bot/game/{id}/chat                [{text, user}] of the player room
//	POST /api/bot/game/{id}/abort
//	POST /api/bot/game/{id}/resign
//	POST /api/bot/game/{id}/draw/{yes|no}
//	POST /api/bot/game/{id}/takeback/{yes|no}
//	POST /api/bot/game/{id}/claim-victory
//	POST /api/bot/game/{id}/claim-draw
//	POST /api/tournament/{id}/join              form: password, team, pairMeAsap (tournament:write)
//	POST /api/tournament/{id}/withdraw          leaves a created arena, pauses a started one
//	GET  /api/tournament/{id}                   ArenaTournamentFull: id, fullName, clock, nbPlayers,
//	                                            secondsToStart | secondsToFinish | isFinished, …
//
// The same game endpoints exist under /api/board/ for non-bot accounts.
// Errors are JSON {"error": "…"}: 404 "No such game" / "Not your game",
// 400 "Not your turn, or game already over", "Piece on e2 cannot move to
// e5", "This game can no longer be aborted", and so on. Clients should
// branch on the status, not on the text.
//
// Fakes of the online knowledge sources (online.go) answer without a token
// (whether one was sent is recorded, OnlineAnswers); a good answer
// recommends OnlineMove(fen), a legal move chosen by a fixed rule:
//
//	GET  /tablebase/standard?fen=               the Lichess tablebase (TablebasePath)
//	GET  /api/cloud-eval?fen=&multiPv=&variant= the Lichess cloud evaluation (variant chess960 too)
//	GET  /explorer/masters|lichess?fen=         the Lichess opening explorer (ExplorerPath)
//	GET  /chessdb/cdb.php?action=&board=&json=1 chessdb: querybest, queryall (ChessDBPath)
//
// Streams are NDJSON (Content-Type application/x-ndjson) with an empty
// keep-alive line every WithKeepAlive (7 s by default, as Lichess). A new
// event stream of an account closes its previous one and starts with the
// games in progress (gameStart) and open challenges (challenge). A game
// stream ends cleanly after the game's final gameState.
//
// # Games and clocks
//
// Moves are checked with github.com/notnil/chess. Castling is accepted as
// the king's two-square move (e1g1) and as king-takes-rook (e1h1); it is
// recorded as e1g1 (WithCastlingAsKingTakesRook writes it as e1h1 on the
// game streams). As on Lichess, clocks start once both players have
// moved; until then gameState carries expiration {idleMillis,
// millisToMove}, and a player who does not make their first move in time
// gets the game aborted (status "aborted"). Increments are added after
// each move once the clock runs; a player whose clock reaches zero loses
// ("outoftime"), or draws if the opponent cannot mate. Games also end by
// mate, stalemate, insufficient material, threefold repetition and the
// fifty-move rule (all automatic, status "draw" for the last three),
// resignation, abort, agreed draw, and claims after opponentGone
// ("timeout"). A rated game that ends other than aborted carries, in its
// gameFinish event as on Lichess, the player's own "ratingDiff" and the
// opponent's "opponent.ratingDiff": Elo with K = 20 here (Lichess uses
// Glicko-2), and the accounts' ratings stay as they were. Correspondence games (days per move, no clock) have a
// days-per-move clock: it runs from the start for the side to move, each
// move gives the mover the full days per move again, and a player whose
// time runs out loses ("outoftime"); there is no first-move expiration.
// WithCorrespondenceDay shortens the "day" for tests. After each move of
// a correspondence game the player to move gets a gameStart on the event
// stream, as Lichess sends it, whether or not they follow the game.
// Draw offers made before both players have moved are
// ignored (200, no offer), and a move declines the opponent's pending
// offer; resigning an abortable game aborts it. Chess960 can be challenged
// (and declined) but accepting it answers 400 (notnil/chess knows no
// Chess960 castling).
//
// # Variants
//
// Standard and fromPosition games are refereed as above. The server does
// not know the rules of the other variants (crazyhouse, antichess, atomic,
// horde, kingOfTheHill, racingKings, threeCheck) and trusts their moves:
// any move of UCI shape is played (drops as P@e4, promotions to a king),
// the side to move alternates by ply, and the players' engines are taken to
// know what is legal. Such a game never ends by its position (no mate,
// variant end or draw by the board): it ends by resignation, abort, agreed
// draw, claims after opponentGone, the clock (the opponent of a player out
// of time wins: a player whose engine sees the game lost, with no move
// left, loses that way), or as a draw with status "draw" once it has
// WithVariantPlyLimit plies (400 by default). Its FEN stays its initial
// position, its PGN keeps the moves in UCI under a Variant tag, and house
// players decline its challenges and never move in it.
//
// # Driving the other side
//
// Any account can act without HTTP: Challenge, AcceptChallenge,
// DeclineChallenge, CancelChallenge, Move, Resign, Abort, Draw, Takeback,
// Chat, SetGone.
// SetHousePlayer makes the server play an account itself (accepting
// challenges, moving after HouseOptions.ThinkTime with a random, greedy or
// first-legal-move strategy, after an optional script of first moves;
// resigning at a given ply if asked; accepting or declining draw offers and
// takebacks; optionally claiming the win when its opponent is gone), so a
// test can run a whole game against the bot under test. Both sides may
// equally be external HTTP clients.
//
// Arena tournaments (tournament.go): CreateArena, StartArena, FinishArena;
// JoinArena joins an account without HTTP (a house player); PairArena
// starts a game between two players who wait for a pairing (ArenaWaiting:
// joined, not paused, not playing a game of the arena, and a house player
// or one whose join asked pairMeAsap within the last minute), sending both
// a gameStart with the tournamentId and no challenge; Arena snapshots the
// players (joins, withdrawals, paused) and games. ArenaParams.PauseDelay
// makes a join within the pause after a withdrawal fail as on Lichess
// (400 "Your pause is not over yet"). CloseArenaPairings closes a running
// arena's pairings (pairingsClosed), as Lichess does in its last minutes.
//
// # Faults
//
//	WithLatency / SetLatency(min, max)   delay each request, uniform in [min, max] (seeded)
//	Inject429(pattern, n, retryAfter)    answer the next n matching requests 429 + Retry-After;
//	                                     the client is then in cool-down for the requests matching
//	                                     pattern (put a game id in it to cool down one game only)
//	WithEnforcedCoolDown()               also answer 429 to requests sent during a cool-down
//	WithGlobalCoolDown()                 a 429 cools down every endpoint of that token
//	InjectError(pattern, n, status)      answer the next n matching requests with e.g. 502 (HTML body)
//	InjectAnswer(pattern, n, st, body)   answer the next n matching requests with st and a JSON body
//	                                     (BotDayLimitBody: 429 bot.vsBot.day; OpponentCappedBody: 400)
//	InjectLostAnswer(pattern, n)         handle the next n matching requests, then cut the connection
//	                                     before the answer (a move so posted is played)
//	InjectSilence(pattern, n)            answer the next n matching streams 200, then write nothing,
//	                                     not even keep-alives (a dead link)
//	SetRateLimit(pattern, n, per, ra)    at most n matching requests per client per period, then 429
//	DropEventStream, DropGameStreams,    cut streams abruptly (the client reads an unexpected EOF)
//	DropAllStreams
//	DropGameStreamsAfter(game, plies…)   cut a game's streams right after the state of these plies
//	RepeatGameState(game)                write the current gameState again
//	RevokeToken(token)                   every later request with the token gets 401 (open
//	                                     streams stay open; SetScopes changes a token's scopes)
//	Restart(down)                        cut all streams, refuse connections for down, listen again
//	                                     on the same address; games and clocks go on
//	InjectEventLine, InjectGameLine      write any raw line (e.g. an unknown event type)
//	WithUnknownFields()                  add a field unknown to the spec to every stream object
//	SetGone(game, user, gone, wait)      opponentGone with a claimWinInSeconds countdown (wait < 0: none)
//	WithAutoGone(after)                  a player without a game stream for after is gone
//	Draw / Takeback / Chat               offers, proposals and chat lines from the opponent
//	SetOnlineFault(service, fault)       a knowledge fake answers slow (SetOnlineSlowness), 429,
//	                                     500, garbage, an illegal move, or not found
//
// # Instrumentation
//
// Requests and RequestsMatching return every request (method, path, time,
// duration, status, account, whether it fell in a cool-down). Stats counts
// cool-down violations (requests a client sent, within the Retry-After of
// a 429, that match the pattern that answered 429), 429 answers, refused
// and accepted moves, and requests sent while another non-stream request
// of the same client was in progress (Lichess asks for one at a time).
// Game and Games return snapshots (moves, FEN, status, winner, clocks, PGN);
// WaitFor, WaitGameOver and WaitGameStarted block until a condition holds.
// WithLog(t.Logf) narrates requests, challenges, moves and results.
//
// # Where it differs from Lichess
//
//   - The game export does not delay the moves of a game in progress,
//     and its PGN is this server's (no clocks, evaluations or opening).
//   - Clock values are not restricted to Lichess's list and bots may play
//     UltraBullet unless WithLichessLimits is given (tests want 2+0 games);
//     programmatic challenges may even use sub-second clocks.
//   - No ratings change, no rating ranges, no rematches, no
//     keepAliveStream, no open challenges, no AI games, no Swiss
//     tournaments; arenas pair only when a test calls PairArena (no
//     pairing system, no scores or berserk), and their games keep going
//     after FinishArena.
//   - A correspondence game that nobody moves in ends "outoftime" like any
//     other; a takeback leaves the days-per-move clock as it is.
//   - Expired challenges (WithChallengeTTL, 20 s) are reported to the
//     destination as challengeCanceled.
//   - Variants other than standard and fromPosition are not refereed (see
//     Variants): their moves are trusted and their games end only by
//     resignation, time, agreement, claims or the ply limit; Chess960
//     games cannot be played.
//   - Draw claims after opponentGone end the game with status "timeout"
//     and no winner; threefold repetition and the fifty-move rule end the
//     game automatically.
//   - A takeback keeps both clocks as they are.
//   - Cool-downs are per endpoint pattern by default (WithGlobalCoolDown
//     for per token); Lichess's limits are its own and unpublished.
//   - The perf icons are placeholders and profiles are minimal.
package lichesstest
