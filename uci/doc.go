// Package uci speaks the Universal Chess Interface both ways.
//
// The driver (ExternalEngine) runs an external UCI engine such as Stockfish
// as a move chooser, with real "go ponder" / "ponderhit" / "stop":
//
//	e, err := uci.Start(ctx, "/usr/games/stockfish", nil, map[string]string{"Hash": "64"}, log)
//	defer e.Close()                      // quit, kill if need be, always reap
//	e.NewGame(ctx)
//	e.Position("startpos", moves)
//	res, err := e.Go(ctx, uci.GoLimits{WTime: wt, BTime: bt, Deadline: budget})
//	if errors.Is(err, uci.ErrEngineDied) { /* play a fallback */ e.Restart(ctx) }
//
//	s, err := e.GoPonder(ctx, limits)    // on the position after the expected reply
//	s.PonderHit(); res, err := s.Wait(ctx) // the opponent played it
//	s.Stop()                              // or not: stop and discard
//
// Every search is read up to its own "bestmove" and each "go" follows an
// "isready" barrier, so no output is ever attributed to the wrong search.
//
// The front end (Server) makes a Backend (ponderosa's own engine through
// EngineBackend, which drives a persistent per-game ponder.Game) a UCI
// engine for GUIs and match runners:
// ParseCommand turns lines into typed commands, and Server.Run drives the
// Backend with "go" in its own goroutine so that "stop", "ponderhit" and
// "isready" are handled during a search.
//
// Panics end neither the process nor another game: a panic in a reader of
// an external engine's output (the process's pump, a search's reader) is
// logged with its stack and kills that engine, so the search fails with
// ErrEngineDied and the caller goes on as after a crash (a fallback move,
// Restart). A panic in the Server's search goroutine (Backend.Go) is
// logged, reported as "info string error", and answered with the
// Backend's fallback move (PanicRecoverer: EngineBackend starts a fresh game
// and plays its first legal move); one in the engine's own search run is
// recovered by ponder, and Go answers a legal move as for any failed
// search.
//
// Both halves share the protocol types: GoLimits ("go" parameters), Info
// ("info" lines), Score and OptionSpec.
package uci
