package lichesstest

import (
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notnil/chess"

	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// scriptedPlayer plays script (the whole game's moves, both colours) for
// one side over the game stream, as an external HTTP client. It returns
// every game line it saw.
func scriptedPlayer(t *testing.T, base, token, id string, color int, script []string) []map[string]any {
	t.Helper()
	st := openStream(t, base, token, "/api/bot/game/stream/"+id)
	if st.status != 200 {
		t.Errorf("game stream status %d", st.status)
		return nil
	}
	var seen []map[string]any
	posted := map[int]bool{}
	for {
		m := st.next(t)
		if m == nil {
			return seen
		}
		seen = append(seen, m)
		if m["type"] != "gameFull" && m["type"] != "gameState" {
			continue
		}
		state := stateOf(m)
		if str(state, "status") != "started" {
			continue
		}
		n := plies(state)
		if n%2 == color && n < len(script) && !posted[n] {
			posted[n] = true
			r := post(t, base, token, "/api/bot/game/"+id+"/move/"+script[n], nil)
			if r.status != 200 {
				t.Errorf("move %s: status %d %s", script[n], r.status, r.raw)
			}
		}
	}
}

func TestFullGameOverHTTP(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("Alice", "tokA", true, 1500)
	s.AddAccount("Bob", "tokB", true, 1600)
	base := s.URL()
	evA := openStream(t, base, "tokA", "/api/stream/event")
	evB := openStream(t, base, "tokB", "/api/stream/event")

	r := post(t, base, "tokA", "/api/challenge/bob", url.Values{
		"clock.limit": {"60"}, "clock.increment": {"1"}, "color": {"black"}, "rated": {"false"},
	})
	wantStatus(t, r, 200)
	id := str(r.body, "id")
	if str(r.body, "status") != "created" || str(r.body, "direction") != "out" || str(r.body, "finalColor") != "black" {
		t.Fatalf("create challenge answer %s", r.raw)
	}
	if ch := evB.nextOfType(t, "challenge"); str(ch, "challenge", "id") != id || str(ch, "challenge", "challenger", "name") != "Alice" {
		t.Fatalf("bob's challenge event %v", ch)
	}
	if ch := evA.nextOfType(t, "challenge"); str(ch, "challenge", "id") != id {
		t.Fatalf("alice's challenge event %v", ch)
	}
	wantStatus(t, post(t, base, "tokB", "/api/challenge/"+id+"/accept", nil), 200)
	for _, ev := range []*ndStream{evA, evB} {
		gs := ev.nextOfType(t, "gameStart")
		if str(gs, "game", "gameId") != id || str(gs, "game", "status", "name") != "started" {
			t.Fatalf("gameStart %v", gs)
		}
	}

	// Fool's mate: Bob (white) loses to Alice (black).
	script := []string{"f2f3", "e7e5", "g2g4", "d8h4"}
	var wg sync.WaitGroup
	var linesW, linesB []map[string]any
	wg.Add(2)
	go func() { defer wg.Done(); linesW = scriptedPlayer(t, base, "tokB", id, white, script) }()
	go func() { defer wg.Done(); linesB = scriptedPlayer(t, base, "tokA", id, black, script) }()
	wg.Wait()

	for name, lines := range map[string][]map[string]any{"white": linesW, "black": linesB} {
		if len(lines) == 0 || lines[0]["type"] != "gameFull" {
			t.Fatalf("%s: first line not gameFull: %v", name, lines)
		}
		full := lines[0]
		if num(full, "clock", "initial") != 60000 || num(full, "clock", "increment") != 1000 ||
			str(full, "white", "name") != "Bob" || str(full, "black", "title") != "BOT" || str(full, "initialFen") != "startpos" {
			t.Errorf("%s: gameFull %v", name, full)
		}
		last := stateOf(lines[len(lines)-1])
		if str(last, "status") != "mate" || str(last, "winner") != "black" || str(last, "moves") != strings.Join(script, " ") {
			t.Errorf("%s: last state %v", name, last)
		}
		// Clocks: white's first move costs nothing; after both moved
		// the expiration disappears.
		for _, l := range lines {
			st := stateOf(l)
			n := plies(st)
			_, hasExp := st["expiration"]
			if str(st, "status") == "started" && hasExp != (n < 2) {
				t.Errorf("%s: ply %d: expiration present=%v", name, n, hasExp)
			}
			if n == 1 && num(st, "wtime") != 60000 {
				t.Errorf("%s: wtime after the first move %v, want 60000 (clock not started)", name, num(st, "wtime"))
			}
			if num(st, "winc") != 1000 || num(st, "binc") != 1000 {
				t.Errorf("%s: increments %v", name, st)
			}
		}
	}
	for _, ev := range []*ndStream{evA, evB} {
		gf := ev.nextOfType(t, "gameFinish")
		if str(gf, "game", "status", "name") != "mate" || str(gf, "game", "winner") != "black" {
			t.Fatalf("gameFinish %v", gf)
		}
	}
	snap, ok := s.Game(id)
	if !ok || !snap.Finished || snap.Status != "mate" || snap.Winner != "black" || len(snap.Moves) != 4 {
		t.Fatalf("snapshot %+v", snap)
	}
	if !strings.Contains(snap.PGN, "Qh4#") || !strings.Contains(snap.PGN, "0-1") {
		t.Errorf("PGN %q", snap.PGN)
	}
	// No move was posted twice.
	moves := s.RequestsMatching("POST /api/bot/game/*/move/*")
	seen := map[string]bool{}
	for _, m := range moves {
		if seen[m.Path] {
			t.Errorf("move posted twice: %s", m.Path)
		}
		seen[m.Path] = true
	}
	if len(moves) != 4 {
		t.Errorf("%d move requests, want 4", len(moves))
	}
}

func TestIllegalMovesRejected(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("w", "tw", true, 1500)
	s.AddAccount("b", "tb", true, 1500)
	s.AddAccount("x", "tx", true, 1500)
	id, err := s.Challenge("w", "b", ChallengeParams{ClockLimit: time.Minute, Color: "white"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	base := s.URL()
	cases := []struct {
		name, token, move string
		status            int
		errPart           string
	}{
		{"illegal", "tw", "e2e5", 400, "cannot move"},
		{"empty square", "tw", "e3e4", 400, "No piece"},
		{"garbage", "tw", "zz", 400, "Invalid UCI"},
		{"not your turn", "tb", "e7e5", 400, "Not your turn"},
		{"not your game", "tx", "e2e4", 404, "Not your game"},
		{"legal", "tw", "e2e4", 200, ""},
		{"same move again", "tw", "e2e4", 400, "Not your turn"},
		{"promotion without piece", "tb", "e7e8", 400, "cannot move"},
	}
	for _, c := range cases {
		r := post(t, base, c.token, "/api/bot/game/"+id+"/move/"+c.move, nil)
		if r.status != c.status {
			t.Errorf("%s: status %d, want %d (%s)", c.name, r.status, c.status, r.raw)
		}
		if c.errPart != "" && !strings.Contains(str(r.body, "error"), c.errPart) {
			t.Errorf("%s: error %q, want it to contain %q", c.name, str(r.body, "error"), c.errPart)
		}
	}
	wantStatus(t, post(t, base, "tb", "/api/bot/game/nosuchid/move/e7e5", nil), 404)
	snap, _ := s.Game(id)
	if len(snap.Moves) != 1 || snap.Moves[0] != "e2e4" {
		t.Fatalf("moves %v", snap.Moves)
	}
	if st := s.Stats(); st.IllegalMoves != 6 || st.MovesPlayed != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestCastlingBothNotations(t *testing.T) {
	for _, move := range []string{"e1g1", "e1h1"} {
		t.Run(move, func(t *testing.T) {
			s := newTestServer(t)
			s.AddAccount("w", "tw", true, 1500)
			s.AddAccount("b", "tb", true, 1500)
			id, err := s.Challenge("w", "b", ChallengeParams{
				ClockLimit: time.Minute, Color: "white",
				FEN: "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.AcceptChallenge(id); err != nil {
				t.Fatal(err)
			}
			wantStatus(t, post(t, s.URL(), "tw", "/api/bot/game/"+id+"/move/"+move, nil), 200)
			wantStatus(t, post(t, s.URL(), "tb", "/api/bot/game/"+id+"/move/e8a8", nil), 200)
			snap, _ := s.Game(id)
			if strings.Join(snap.Moves, " ") != "e1g1 e8c8" || snap.Variant != "fromPosition" {
				t.Fatalf("moves %v variant %s", snap.Moves, snap.Variant)
			}
			if !strings.HasPrefix(snap.FEN, "2kr3r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 w") {
				t.Fatalf("FEN %s", snap.FEN)
			}
		})
	}
}

func TestLossOnTime(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.AddAccount("w", "tw", true, 1500)
	s.AddAccount("b", "tb", true, 1500)
	id, err := s.Challenge("w", "b", ChallengeParams{ClockLimit: 300 * time.Millisecond, Color: "white"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	st := openStream(t, s.URL(), "tb", "/api/bot/game/stream/"+id)
	st.nextOfType(t, "gameFull")
	if err := s.Move(id, "w", "e2e4"); err != nil {
		t.Fatal(err)
	}
	if err := s.Move(id, "b", "e7e5"); err != nil {
		t.Fatal(err)
	}
	// White's clock runs now; white never moves again.
	var last map[string]any
	for m := st.next(t); m != nil; m = st.next(t) {
		last = m
	}
	if str(last, "status") != "outoftime" || str(last, "winner") != "black" || num(last, "wtime") != 0 {
		t.Fatalf("last state %v", last)
	}
	if num(last, "btime") != 300 {
		t.Errorf("btime %v, want 300 (black's clock never ran)", num(last, "btime"))
	}
	if err := st.waitEnd(t); err != nil {
		t.Errorf("game stream should end cleanly after the game, got %v", err)
	}
	snap, _ := s.Game(id)
	if snap.Status != "outoftime" || snap.Winner != "black" || snap.WhiteTime != 0 {
		t.Fatalf("snapshot %+v", snap)
	}
}

func TestOutOfTimeAgainstBareKingIsDraw(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.AddAccount("w", "tw", true, 1500)
	s.AddAccount("b", "tb", true, 1500)
	id, err := s.Challenge("w", "b", ChallengeParams{ClockLimit: 200 * time.Millisecond, Color: "white",
		FEN: "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	if err := s.Move(id, "w", "e2e4"); err != nil {
		t.Fatal(err)
	}
	if err := s.Move(id, "b", "e8d7"); err != nil {
		t.Fatal(err)
	}
	snap, err := s.WaitGameOver(testsupport.Context(t), id)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Status != "outoftime" || snap.Winner != "" {
		t.Fatalf("white flagged against a bare king: %+v", snap)
	}
}

func TestFirstMoveAbort(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, WithFirstMoveTimeout(150*time.Millisecond))
	s.AddAccount("w", "tw", true, 1500)
	s.AddAccount("b", "tb", true, 1500)
	ev := openStream(t, s.URL(), "tw", "/api/stream/event")
	id, err := s.Challenge("b", "w", ChallengeParams{ClockLimit: time.Minute, Color: "black"})
	if err != nil {
		t.Fatal(err)
	}
	ev.nextOfType(t, "challenge")
	if err := s.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	ev.nextOfType(t, "gameStart")
	st := openStream(t, s.URL(), "tw", "/api/bot/game/stream/"+id)
	full := st.nextOfType(t, "gameFull")
	if num(full, "state", "expiration", "millisToMove") != 150 {
		t.Fatalf("gameFull without expiration: %v", full)
	}
	last := st.nextOfType(t, "gameState")
	if str(last, "status") != "aborted" || last["winner"] != nil {
		t.Fatalf("state %v", last)
	}
	gf := ev.nextOfType(t, "gameFinish")
	if str(gf, "game", "status", "name") != "aborted" || num(gf, "game", "status", "id") != 25 {
		t.Fatalf("gameFinish %v", gf)
	}
}

func TestFirstMoveAbortAfterWhiteMoved(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, WithFirstMoveTimeout(150*time.Millisecond))
	s.AddAccount("w", "tw", true, 1500)
	s.AddAccount("b", "tb", true, 1500)
	id, _ := s.Challenge("w", "b", ChallengeParams{ClockLimit: time.Minute, Color: "white"})
	if err := s.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	if err := s.Move(id, "w", "d2d4"); err != nil {
		t.Fatal(err)
	}
	snap, err := s.WaitGameOver(testsupport.Context(t), id)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Status != "aborted" || snap.BlackTime != time.Minute || snap.WhiteTime != time.Minute {
		t.Fatalf("snapshot %+v", snap)
	}
}

func TestClockIncrementAndDeduction(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("w", "tw", true, 1500)
	s.AddAccount("b", "tb", true, 1500)
	id, _ := s.Challenge("w", "b", ChallengeParams{ClockLimit: time.Minute, ClockIncrement: time.Minute, Color: "white"})
	if err := s.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	for i, m := range []string{"e2e4", "e7e5", "g1f3", "b8c6"} {
		who := []string{"w", "b"}[i%2]
		if err := s.Move(id, who, m); err != nil {
			t.Fatal(err)
		}
	}
	snap, _ := s.Game(id)
	// The first move of each side is free; the second costs what it took
	// (far less than a minute) and earns the 1-minute increment.
	for name, left := range map[string]time.Duration{"white": snap.WhiteTime, "black": snap.BlackTime} {
		if left <= time.Minute || left >= 2*time.Minute {
			t.Errorf("%s time %v, want between 1 and 2 minutes", name, left)
		}
	}
	if !snap.ClockRunning {
		t.Error("clock should run after both players moved")
	}
}

func TestStartClocksAndAddTime(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("w", "tw", true, 1500)
	s.AddAccount("b", "tb", true, 1500)
	id, _ := s.Challenge("w", "b", ChallengeParams{ClockLimit: time.Minute, Color: "white"})
	if err := s.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	base := s.URL()
	wantStatus(t, post(t, base, "", "/api/challenge/"+id+"/start-clocks?token1=tw", nil), 401)
	wantStatus(t, post(t, base, "", "/api/challenge/"+id+"/start-clocks?token1=tw&token2=tb", nil), 200)
	if snap, _ := s.Game(id); !snap.ClockRunning {
		t.Fatal("clocks not started")
	}
	wantStatus(t, post(t, base, "tb", "/api/round/"+id+"/add-time/61", nil), 400)
	wantStatus(t, post(t, base, "tb", "/api/round/"+id+"/add-time/60", nil), 200)
	snap, _ := s.Game(id)
	// White's clock runs (it is white's turn) but got a minute: more
	// than a minute is left unless a whole minute passed.
	if snap.WhiteTime <= time.Minute || snap.BlackTime != time.Minute {
		t.Fatalf("times w %v b %v", snap.WhiteTime, snap.BlackTime)
	}
}

// randomPlayer plays random legal moves for color over HTTP until the game
// stream ends; it returns the last state seen.
func randomPlayer(t *testing.T, base, token, id string, color int, seed int) map[string]any {
	st := openStream(t, base, token, "/api/bot/game/stream/"+id)
	var last map[string]any
	posted := map[int]bool{}
	for m := st.next(t); m != nil; m = st.next(t) {
		state := stateOf(m)
		if m["type"] != "gameFull" && m["type"] != "gameState" {
			continue
		}
		last = state
		n := plies(state)
		if str(state, "status") != "started" || n%2 != color || posted[n] {
			continue
		}
		g := chess.NewGame(chess.UseNotation(chess.UCINotation{}))
		for _, mv := range strings.Fields(str(state, "moves")) {
			if err := g.MoveStr(mv); err != nil {
				t.Errorf("replay %s: %v", mv, err)
				return last
			}
		}
		valid := g.ValidMoves()
		posted[n] = true
		post(t, base, token, "/api/bot/game/"+id+"/move/"+valid[(n*7+seed)%len(valid)].String(), nil)
	}
	return last
}

func TestRandomGameBetweenTwoHTTPClients(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.AddAccount("one", "t1", true, 1500)
	s.AddAccount("two", "t2", true, 1500)
	base := s.URL()
	ev1 := openStream(t, base, "t1", "/api/stream/event")
	ev2 := openStream(t, base, "t2", "/api/stream/event")
	r := post(t, base, "t1", "/api/challenge/two", url.Values{"clock.limit": {"1"}, "clock.increment": {"0"}, "color": {"white"}})
	wantStatus(t, r, 200)
	id := str(r.body, "id")
	ch := ev2.nextOfType(t, "challenge")
	wantStatus(t, post(t, base, "t2", "/api/challenge/"+str(ch, "challenge", "id")+"/accept", nil), 200)
	ev1.nextOfType(t, "gameStart")
	ev2.nextOfType(t, "gameStart")

	var wg sync.WaitGroup
	var last [2]map[string]any
	wg.Add(2)
	go func() { defer wg.Done(); last[0] = randomPlayer(t, base, "t1", id, white, 1) }()
	go func() { defer wg.Done(); last[1] = randomPlayer(t, base, "t2", id, black, 2) }()
	wg.Wait()

	snap, _ := s.Game(id)
	if !snap.Finished {
		t.Fatalf("game not finished: %+v", snap)
	}
	for i, l := range last {
		if str(l, "status") != snap.Status || str(l, "moves") != strings.Join(snap.Moves, " ") {
			t.Errorf("player %d last state %v, server %s after %d plies", i, l, snap.Status, len(snap.Moves))
		}
	}
	for _, ev := range []*ndStream{ev1, ev2} {
		if gf := ev.nextOfType(t, "gameFinish"); str(gf, "game", "status", "name") != snap.Status {
			t.Errorf("gameFinish %v", gf)
		}
	}
	// Every accepted move request is one move of the game; at most one
	// was refused (a move that arrived after its player's flag fell).
	moves := s.RequestsMatching("POST /api/bot/game/*/move/*")
	ok := 0
	for _, m := range moves {
		if m.Status == 200 {
			ok++
		}
	}
	if ok != len(snap.Moves) || len(moves) > len(snap.Moves)+1 {
		t.Errorf("%d move requests, %d accepted, for %d moves", len(moves), ok, len(snap.Moves))
	}
}

func TestCastlingAsKingTakesRook(t *testing.T) {
	s := newTestServer(t, WithCastlingAsKingTakesRook())
	s.AddAccount("w", "tw", true, 1500)
	s.AddAccount("b", "tb", true, 1500)
	id, err := s.Challenge("w", "b", ChallengeParams{
		ClockLimit: time.Minute, Color: "white",
		FEN: "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	gs := openStream(t, s.URL(), "tw", "/api/bot/game/stream/"+id)
	gs.nextOfType(t, "gameFull")
	for _, m := range [][2]string{{"w", "e1g1"}, {"b", "e8c8"}, {"w", "a2a3"}} {
		if err := s.Move(id, m[0], m[1]); err != nil {
			t.Fatal(err)
		}
	}
	var st map[string]any
	for st = gs.nextOfType(t, "gameState"); plies(st) < 3; st = gs.nextOfType(t, "gameState") {
	}
	if got := str(st, "moves"); got != "e1h1 e8a8 a2a3" {
		t.Errorf("stream moves %q, want castling as king takes rook", got)
	}
	if snap, _ := s.Game(id); strings.Join(snap.Moves, " ") != "e1g1 e8c8 a2a3" {
		t.Errorf("snapshot moves %v", snap.Moves)
	}
}
