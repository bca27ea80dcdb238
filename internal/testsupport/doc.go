// Package testsupport holds the helpers that the tests of several packages
// share, so that each exists once: a goroutine-safe buffer for logs
// (SyncBuffer), polling until a condition holds (WaitFor), a context that
// bounds a test's waits (Context), a logger for
// tests (Logger) and one that counts lines (CountingLogger), positions from
// FEN and moves (MustFEN, Play), and a fake UCI engine.
//
// Only tests import it. It imports engine/board and nothing else of ours,
// so the tests of every package above the board, uci's included, can use
// it.
//
// # The fake UCI engine
//
// A test binary doubles as a UCI engine: a package's TestMain calls Main,
// and NewFakeEngine describes a process that runs the same binary again
// in a mode, speaking UCI on stdin/stdout instead of running tests. Every
// line such an engine receives goes to a command log that the test reads
// back (FakeEngine.Commands). The modes:
//
//	normal   answers promptly; "go depth N" gives N info lines then bestmove;
//	         ponder and infinite searches wait for ponderhit/stop
//	slow     ignores its limits: only "stop" ends a search
//	hang     never answers bestmove and ignores stop and quit
//	crash    the first process started from a FakeEngine exits in the
//	         middle of its first search; later ones behave normally
//	garbage  mixes junk into everything it says, then behaves normally
//	badmove  answers "bestmove zz99"
//	mute     reads but never answers "uci"
//	legal    plays the first legal move of the position it was given (see
//	         FakeEngine.DieOnce for an engine that dies once)
//	variant  a per-variant engine: its UCI_Variant combo lists chess,
//	         crazyhouse and 3check; every search answers the drop N@f3
//
// The scripted modes (all but legal) answer search 1, 2, 3, … with
// FakeMove(1), FakeMove(2), … whatever the position, and "bestmove (none)"
// in FoolsMateFEN. A package adds modes of its own through Main.
package testsupport
