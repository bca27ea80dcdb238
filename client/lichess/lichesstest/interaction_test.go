package lichesstest

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/notnil/chess"

	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
)

// startGame makes w (white) and b play a 1-minute game and returns its id.
func startGame(t *testing.T, s *Server, p ChallengeParams) string {
	t.Helper()
	s.AddAccount("w", "tw", true, 1500)
	s.AddAccount("b", "tb", true, 1500)
	if p.ClockLimit == 0 && p.Days == 0 {
		p.ClockLimit = time.Minute
	}
	p.Color = "white"
	id, err := s.Challenge("w", "b", p)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestDrawOfferFromOpponent(t *testing.T) {
	s := newTestServer(t)
	id := startGame(t, s, ChallengeParams{})
	base := s.URL()
	gs := openStream(t, base, "tw", "/api/bot/game/stream/"+id)
	gs.nextOfType(t, "gameFull")
	for _, m := range []string{"e2e4", "e7e5"} {
		who := map[string]string{"e2e4": "w", "e7e5": "b"}[m]
		if err := s.Move(id, who, m); err != nil {
			t.Fatal(err)
		}
		gs.nextOfType(t, "gameState")
	}
	if err := s.Draw(id, "b", true); err != nil {
		t.Fatal(err)
	}
	if st := gs.nextOfType(t, "gameState"); st["bdraw"] != true || st["wdraw"] != nil {
		t.Fatalf("offer state %v", st)
	}
	// Declining clears it.
	wantStatus(t, post(t, base, "tw", "/api/bot/game/"+id+"/draw/no", nil), 200)
	if st := gs.nextOfType(t, "gameState"); st["bdraw"] != nil {
		t.Fatalf("after decline %v", st)
	}
	// Offer again, and accept.
	if err := s.Draw(id, "b", true); err != nil {
		t.Fatal(err)
	}
	gs.nextOfType(t, "gameState")
	wantStatus(t, post(t, base, "tw", "/api/bot/game/"+id+"/draw/yes", nil), 200)
	if st := gs.nextOfType(t, "gameState"); str(st, "status") != "draw" || st["winner"] != nil {
		t.Fatalf("final %v", st)
	}
}

func TestMoveDeclinesDrawAndOfferingDrawWithMove(t *testing.T) {
	s := newTestServer(t)
	id := startGame(t, s, ChallengeParams{})
	base := s.URL()
	// Before both players have moved, Lichess ignores draw offers.
	wantStatus(t, post(t, base, "tw", "/api/bot/game/"+id+"/move/e2e4?offeringDraw=true", nil), 200)
	if snap, _ := s.Game(id); snap.WhiteDraw {
		t.Fatal("draw offer accepted while the game is abortable")
	}
	if err := s.Move(id, "b", "e7e5"); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, post(t, base, "tw", "/api/bot/game/"+id+"/move/d2d4?offeringDraw=true", nil), 200)
	if snap, _ := s.Game(id); !snap.WhiteDraw {
		t.Fatal("offer with the move not recorded")
	}
	if err := s.Move(id, "b", "e5d4"); err != nil { // black moves: white's offer lapses
		t.Fatal(err)
	}
	if snap, _ := s.Game(id); snap.WhiteDraw {
		t.Fatal("a move should decline the pending offer")
	}
}

func TestTakeback(t *testing.T) {
	s := newTestServer(t)
	id := startGame(t, s, ChallengeParams{})
	base := s.URL()
	gs := openStream(t, base, "tw", "/api/bot/game/stream/"+id)
	gs.nextOfType(t, "gameFull")
	for i, m := range []string{"e2e4", "e7e5", "g1f3"} {
		if err := s.Move(id, []string{"w", "b"}[i%2], m); err != nil {
			t.Fatal(err)
		}
		gs.nextOfType(t, "gameState")
	}
	// Black (to move) proposes taking back its own e7e5: that undoes
	// white's g1f3 too.
	if err := s.Takeback(id, "b", true); err != nil {
		t.Fatal(err)
	}
	if st := gs.nextOfType(t, "gameState"); st["btakeback"] != true {
		t.Fatalf("proposal state %v", st)
	}
	wantStatus(t, post(t, base, "tw", "/api/bot/game/"+id+"/takeback/yes", nil), 200)
	if st := gs.nextOfType(t, "gameState"); str(st, "moves") != "e2e4" || st["btakeback"] != nil {
		t.Fatalf("after takeback %v", st)
	}
	// Declined proposal.
	if err := s.Takeback(id, "w", true); err != nil {
		t.Fatal(err)
	}
	gs.nextOfType(t, "gameState")
	if err := s.Takeback(id, "b", false); err != nil {
		t.Fatal(err)
	}
	if st := gs.nextOfType(t, "gameState"); st["wtakeback"] != nil || str(st, "moves") != "e2e4" {
		t.Fatalf("after decline %v", st)
	}
}

func TestChatLines(t *testing.T) {
	s := newTestServer(t)
	id := startGame(t, s, ChallengeParams{})
	base := s.URL()
	gs := openStream(t, base, "tw", "/api/bot/game/stream/"+id)
	gs.nextOfType(t, "gameFull")
	if err := s.Chat(id, "b", "player", "good luck"); err != nil {
		t.Fatal(err)
	}
	if c := gs.nextOfType(t, "chatLine"); str(c, "username") != "b" || str(c, "text") != "good luck" || str(c, "room") != "player" {
		t.Fatalf("chat line %v", c)
	}
	wantStatus(t, post(t, base, "tw", "/api/bot/game/"+id+"/chat", url.Values{"room": {"spectator"}, "text": {"hi all"}}), 200)
	if c := gs.nextOfType(t, "chatLine"); str(c, "username") != "w" || str(c, "room") != "spectator" {
		t.Fatalf("own chat line %v", c)
	}
	wantStatus(t, post(t, base, "tw", "/api/bot/game/"+id+"/chat", url.Values{"room": {"lobby"}, "text": {"x"}}), 400)
	r := get(t, base, "tw", "/api/bot/game/"+id+"/chat")
	wantStatus(t, r, 200)
	if !strings.Contains(r.raw, `"good luck"`) || strings.Contains(r.raw, "hi all") {
		t.Fatalf("player chat %s", r.raw)
	}
	snap, _ := s.Game(id)
	if len(snap.Chat) != 2 || snap.Chat[1] != (ChatLine{Room: "spectator", Username: "w", Text: "hi all"}) {
		t.Fatalf("snapshot chat %+v", snap.Chat)
	}
}

func TestOpponentGoneAndClaimVictory(t *testing.T) {
	s := newTestServer(t)
	id := startGame(t, s, ChallengeParams{})
	base := s.URL()
	for i, m := range []string{"e2e4", "e7e5"} {
		if err := s.Move(id, []string{"w", "b"}[i%2], m); err != nil {
			t.Fatal(err)
		}
	}
	gs := openStream(t, base, "tw", "/api/bot/game/stream/"+id)
	gs.nextOfType(t, "gameFull")
	wantStatus(t, post(t, base, "tw", "/api/bot/game/"+id+"/claim-victory", nil), 400)
	if err := s.SetGone(id, "b", true, time.Hour); err != nil {
		t.Fatal(err)
	}
	if g := gs.nextOfType(t, "opponentGone"); g["gone"] != true || num(g, "claimWinInSeconds") != 3600 {
		t.Fatalf("gone %v", g)
	}
	wantStatus(t, post(t, base, "tw", "/api/bot/game/"+id+"/claim-victory", nil), 400) // too early
	if err := s.SetGone(id, "b", false, 0); err != nil {
		t.Fatal(err)
	}
	for g := gs.nextOfType(t, "opponentGone"); g["gone"] != false; g = gs.nextOfType(t, "opponentGone") {
		if num(g, "claimWinInSeconds") > 3600 || num(g, "claimWinInSeconds") < 3500 {
			t.Fatalf("countdown tick %v", g)
		}
	}
	if err := s.SetGone(id, "b", true, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	gs.nextOfType(t, "opponentGone")
	if g := gs.nextOfType(t, "opponentGone"); num(g, "claimWinInSeconds") != 0 {
		t.Fatalf("countdown end %v", g)
	}
	wantStatus(t, post(t, base, "tw", "/api/bot/game/"+id+"/claim-victory", nil), 200)
	if st := gs.nextOfType(t, "gameState"); str(st, "status") != "timeout" || str(st, "winner") != "white" {
		t.Fatalf("claimed %v", st)
	}
}

func TestAbortAndResign(t *testing.T) {
	s := newTestServer(t)
	id := startGame(t, s, ChallengeParams{})
	base := s.URL()
	if err := s.Move(id, "w", "e2e4"); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, post(t, base, "tb", "/api/bot/game/"+id+"/abort", nil), 200)
	if snap, _ := s.Game(id); snap.Status != "aborted" {
		t.Fatalf("status %s", snap.Status)
	}
	wantStatus(t, post(t, base, "tb", "/api/bot/game/"+id+"/resign", nil), 400)

	s2 := newTestServer(t)
	id = startGame(t, s2, ChallengeParams{})
	for i, m := range []string{"e2e4", "e7e5"} {
		if err := s2.Move(id, []string{"w", "b"}[i%2], m); err != nil {
			t.Fatal(err)
		}
	}
	wantStatus(t, post(t, s2.URL(), "tw", "/api/bot/game/"+id+"/abort", nil), 400)
	wantStatus(t, post(t, s2.URL(), "tw", "/api/bot/game/"+id+"/resign", nil), 200)
	if snap, _ := s2.Game(id); snap.Status != "resign" || snap.Winner != "black" {
		t.Fatalf("snapshot %+v", snap)
	}
}

func TestGameEndsByRule(t *testing.T) {
	cases := []struct {
		name, fen string
		moves     []string
		status    string
		winner    string
	}{
		{"stalemate", "7k/8/6Q1/8/8/8/8/K7 w - - 0 1", []string{"g6f7"}, "stalemate", ""},
		{"insufficient material", "7k/8/8/8/8/8/6b1/K6R b - - 0 1", []string{"g2h1"}, "draw", ""},
		{"fifty moves", "7k/8/8/8/8/8/8/KR6 w - - 99 80", []string{"b1b2"}, "draw", ""},
		{"threefold", "", []string{"g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"}, "draw", ""},
		{"mate", "7k/8/6K1/8/8/8/8/R7 w - - 0 1", []string{"a1a8"}, "mate", "white"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newTestServer(t)
			s.AddAccount("x", "tx", true, 1500)
			s.AddAccount("y", "ty", true, 1500)
			id, err := s.Challenge("x", "y", ChallengeParams{ClockLimit: time.Minute, FEN: c.fen, Color: "white"})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.AcceptChallenge(id); err != nil {
				t.Fatal(err)
			}
			snap, _ := s.Game(id)
			for _, m := range c.moves {
				who := "x"
				if strings.Fields(snap.FEN)[1] == "b" {
					who = "y"
				}
				if err := s.Move(id, who, m); err != nil {
					t.Fatal(err)
				}
				snap, _ = s.Game(id)
			}
			if snap.Status != c.status || snap.Winner != c.winner {
				t.Fatalf("status %s winner %q, want %s %q", snap.Status, snap.Winner, c.status, c.winner)
			}
		})
	}
}

func TestHousePlayerAgainstHTTPClient(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.AddAccount("mybot", "tbot", true, 1500)
	s.AddAccount("house", "thouse", false, 1500)
	if err := s.SetHousePlayer("house", HouseOptions{Strategy: HouseGreedy, ThinkTime: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	base := s.URL()
	ev := openStream(t, base, "tbot", "/api/stream/event")
	r := post(t, base, "tbot", "/api/challenge/house", url.Values{"clock.limit": {"1"}, "clock.increment": {"0"}, "color": {"white"}})
	wantStatus(t, r, 200)
	id := str(r.body, "id")
	ev.nextOfType(t, "gameStart")

	// The bot plays random legal moves over HTTP (notnil picks them).
	gs := openStream(t, base, "tbot", "/api/bot/game/stream/"+id)
	var last map[string]any
	for m := gs.next(t); m != nil; m = gs.next(t) {
		st := stateOf(m)
		if st == nil || str(st, "status") == "" {
			continue
		}
		last = st
		if str(st, "status") != "started" || plies(st)%2 != 0 {
			continue
		}
		g := chess.NewGame(chess.UseNotation(chess.UCINotation{}))
		for _, mv := range strings.Fields(str(st, "moves")) {
			if err := g.MoveStr(mv); err != nil {
				t.Fatalf("replay %s: %v", mv, err)
			}
		}
		valid := g.ValidMoves()
		mv := valid[plies(st)%len(valid)]
		post(t, base, "tbot", "/api/bot/game/"+id+"/move/"+mv.String(), nil)
	}
	if str(last, "status") == "started" {
		t.Fatalf("game stream ended before the game: %v", last)
	}
	snap, _ := s.Game(id)
	if !snap.Finished || len(snap.Moves) < 2 {
		t.Fatalf("snapshot %+v", snap)
	}
	ev.nextOfType(t, "gameFinish")
}

func TestHousePlayersPlayEachOther(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, WithSeed(7))
	s.AddAccount("h1", "t1", true, 1500)
	s.AddAccount("h2", "t2", true, 1500)
	for _, h := range []string{"h1", "h2"} {
		if err := s.SetHousePlayer(h, HouseOptions{Strategy: HouseGreedy}); err != nil {
			t.Fatal(err)
		}
	}
	id, err := s.Challenge("h1", "h2", ChallengeParams{ClockLimit: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := s.WaitGameOver(testsupport.Context(t), id)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Status == "started" || snap.Status == "aborted" || len(snap.Moves) < 2 {
		t.Fatalf("snapshot %+v", snap)
	}
	// Replaying the recorded moves is legal all the way.
	g := chess.NewGame(chess.UseNotation(chess.UCINotation{}))
	for _, m := range snap.Moves {
		if err := g.MoveStr(m); err != nil {
			t.Fatalf("illegal recorded move %s: %v", m, err)
		}
	}
}

func TestHousePlayerDeclines(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("mybot", "tbot", true, 1500)
	s.AddAccount("picky", "tp", true, 1500)
	if err := s.SetHousePlayer("picky", HouseOptions{DeclineReason: "tooFast"}); err != nil {
		t.Fatal(err)
	}
	ev := openStream(t, s.URL(), "tbot", "/api/stream/event")
	r := post(t, s.URL(), "tbot", "/api/challenge/picky", url.Values{"clock.limit": {"60"}, "clock.increment": {"0"}})
	wantStatus(t, r, 200)
	if d := ev.nextOfType(t, "challengeDeclined"); str(d, "challenge", "declineReasonKey") != "toofast" {
		t.Fatalf("declined %v", d)
	}
}

func TestWatchGame(t *testing.T) {
	s := newTestServer(t)
	id := startGame(t, s, ChallengeParams{ClockLimit: 3 * time.Minute})
	st := openStream(t, s.URL(), "", "/api/stream/game/"+id)
	desc := st.next(t)
	if str(desc, "id") != id || str(desc, "players", "white", "user", "name") != "w" || str(desc, "status", "name") != "started" {
		t.Fatalf("description %v", desc)
	}
	if first := st.next(t); str(first, "fen") != "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w" || num(first, "wc") != 180 {
		t.Fatalf("first position %v", first)
	}
	for i, m := range []string{"f2f3", "e7e5", "g2g4", "d8h4"} {
		if err := s.Move(id, []string{"w", "b"}[i%2], m); err != nil {
			t.Fatal(err)
		}
		if e := st.next(t); str(e, "lm") != m {
			t.Fatalf("entry %v, want lm %s", e, m)
		}
	}
	end := st.next(t)
	if str(end, "status", "name") != "mate" || str(end, "winner") != "black" || num(end, "turns") != 4 {
		t.Fatalf("final description %v", end)
	}
	if err := st.waitEnd(t); err != nil {
		t.Fatalf("watch stream end: %v", err)
	}
}

func TestHouseAnswersOffers(t *testing.T) {
	for _, accept := range []bool{true, false} {
		s := newTestServer(t)
		s.AddAccount("mybot", "tbot", true, 1500)
		s.AddAccount("house", "th", false, 1500)
		if err := s.SetHousePlayer("house", HouseOptions{Strategy: HouseFirst, AcceptDraws: accept, AcceptTakebacks: accept, ThinkTime: time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		id, err := s.Challenge("mybot", "house", ChallengeParams{ClockLimit: time.Minute, Color: "white"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.WaitGameStarted(testsupport.Context(t), "mybot"); err != nil {
			t.Fatal(err)
		}
		base := s.URL()
		gs := openStream(t, base, "tbot", "/api/bot/game/stream/"+id)
		gs.nextOfType(t, "gameFull")
		wantStatus(t, post(t, base, "tbot", "/api/bot/game/"+id+"/move/e2e4", nil), 200)
		for st := gs.nextOfType(t, "gameState"); plies(st) < 2; st = gs.nextOfType(t, "gameState") {
		}
		// Takeback proposal: accepted (back to no moves… of ours: e2e4
		// and the reply go) or declined.
		wantStatus(t, post(t, base, "tbot", "/api/bot/game/"+id+"/takeback/yes", nil), 200)
		st := gs.nextOfType(t, "gameState")
		if st["wtakeback"] != true {
			t.Fatalf("proposal not shown: %v", st)
		}
		st = gs.nextOfType(t, "gameState")
		if accept && plies(st) != 0 {
			t.Fatalf("accepted takeback left moves %q", str(st, "moves"))
		}
		if !accept && (plies(st) != 2 || st["wtakeback"] != nil) {
			t.Fatalf("declined takeback: %v", st)
		}
		if accept {
			continue
		}
		wantStatus(t, post(t, base, "tbot", "/api/bot/game/"+id+"/draw/yes", nil), 200)
		gs.nextOfType(t, "gameState") // the offer
		if st := gs.nextOfType(t, "gameState"); st["wdraw"] != nil || str(st, "status") != "started" {
			t.Fatalf("declined draw: %v", st)
		}
	}
}

// A house player that accepts draws accepts one offered with a move
// before it replies, whichever of its timers fires first (both wait
// ThinkTime, 0 here); one that declines them replies.
func TestHouseAnswersDrawOfferedWithMove(t *testing.T) {
	for _, accept := range []bool{true, false} {
		for range 5 {
			s := newTestServer(t)
			s.AddAccount("mybot", "tbot", true, 1500)
			s.AddAccount("house", "th", false, 1500)
			if err := s.SetHousePlayer("house", HouseOptions{Strategy: HouseFirst, AcceptDraws: accept}); err != nil {
				t.Fatal(err)
			}
			id, err := s.Challenge("mybot", "house", ChallengeParams{ClockLimit: time.Minute, Color: "white"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.WaitGameStarted(testsupport.Context(t), "mybot"); err != nil {
				t.Fatal(err)
			}
			base := s.URL()
			wantStatus(t, post(t, base, "tbot", "/api/bot/game/"+id+"/move/e2e4", nil), 200)
			if err := s.WaitFor(testsupport.Context(t), func() bool { g, _ := s.Game(id); return len(g.Moves) == 2 }); err != nil {
				t.Fatal(err)
			}
			wantStatus(t, post(t, base, "tbot", "/api/bot/game/"+id+"/move/d2d4?offeringDraw=true", nil), 200)
			if err := s.WaitFor(testsupport.Context(t), func() bool { g, _ := s.Game(id); return g.Finished || len(g.Moves) == 4 }); err != nil {
				t.Fatal(err)
			}
			g, _ := s.Game(id)
			if accept && (g.Status != "draw" || len(g.Moves) != 3) {
				t.Fatalf("accepting house: game %s after %d plies, want a draw after 3", g.Status, len(g.Moves))
			}
			if !accept && (g.Finished || len(g.Moves) != 4) {
				t.Fatalf("declining house: game %s after %d plies, want it going on after 4", g.Status, len(g.Moves))
			}
		}
	}
}

func TestAutoGoneAndHouseClaims(t *testing.T) {
	s := newTestServer(t, WithAutoGone(20*time.Millisecond), WithClaimWait(time.Millisecond))
	s.AddAccount("mybot", "tbot", true, 1500)
	s.AddAccount("house", "th", false, 1500)
	if err := s.SetHousePlayer("house", HouseOptions{Strategy: HouseFirst, ClaimVictory: true}); err != nil {
		t.Fatal(err)
	}
	id, err := s.Challenge("mybot", "house", ChallengeParams{ClockLimit: time.Minute, Color: "white"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitGameStarted(testsupport.Context(t), "mybot"); err != nil {
		t.Fatal(err)
	}
	base := s.URL()
	gs := openStream(t, base, "tbot", "/api/bot/game/stream/"+id)
	gs.nextOfType(t, "gameFull")
	wantStatus(t, post(t, base, "tbot", "/api/bot/game/"+id+"/move/d2d4", nil), 200)
	for st := gs.nextOfType(t, "gameState"); plies(st) < 2; st = gs.nextOfType(t, "gameState") {
	}
	gs.cancel() // the bot disconnects from its game
	snap, err := s.WaitGameOver(testsupport.Context(t), id)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Status != "timeout" || snap.Winner != "black" {
		t.Fatalf("snapshot %+v", snap)
	}
}

func TestOpponentGoneCountsDown(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	id := startGame(t, s, ChallengeParams{})
	gs := openStream(t, s.URL(), "tw", "/api/bot/game/stream/"+id)
	gs.nextOfType(t, "gameFull")
	if err := s.SetGone(id, "b", true, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	var counts []float64
	for len(counts) == 0 || counts[len(counts)-1] > 0 {
		counts = append(counts, num(gs.nextOfType(t, "opponentGone"), "claimWinInSeconds"))
	}
	// [2 1 0] unless the machine stalled past a tick: strictly down from 2.
	if counts[0] != 2 {
		t.Fatalf("countdown %v starts at %v, want 2", counts, counts[0])
	}
	for i := 1; i < len(counts); i++ {
		if counts[i] >= counts[i-1] {
			t.Fatalf("countdown %v does not go down", counts)
		}
	}
}

// A house player plays its script while the moves are legal, then its
// strategy, and resigns at ResignAt.
func TestHouseScriptAndResignAt(t *testing.T) {
	s := newTestServer(t)
	s.AddAccount("mybot", "tbot", true, 1500)
	s.AddAccount("house", "thouse", false, 1500)
	// The third scripted move is illegal after 1. e4 e5 2. d4 Nc6 3. dxe5:
	// the house plays the strategy's (first legal) move instead, and
	// resigns at its turn after 4. Nf3.
	err := s.SetHousePlayer("house", HouseOptions{Strategy: HouseFirst, Moves: []string{"e7e5", "b8c6", "e5e4"}, ResignAt: 7})
	if err != nil {
		t.Fatal(err)
	}
	id, err := s.Challenge("mybot", "house", ChallengeParams{ClockLimit: time.Minute, Color: "white"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AcceptChallenge(id); err != nil {
		t.Fatal(err)
	}
	ctx := testsupport.Context(t)
	for i, m := range []string{"e2e4", "d2d4", "d4e5", "g1f3"} {
		if err := s.Move(id, "mybot", m); err != nil {
			t.Fatal(err)
		}
		if err := s.WaitFor(ctx, func() bool { g, _ := s.Game(id); return len(g.Moves) >= 2*i+2 || g.Finished }); err != nil {
			t.Fatal(err)
		}
	}
	g, err := s.WaitGameOver(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(g.Moves, " "); !strings.HasPrefix(got, "e2e4 e7e5 d2d4 b8c6 d4e5 ") || len(g.Moves) != 7 {
		t.Fatalf("moves %q", got)
	}
	if g.Moves[5] == "e5e4" {
		t.Error("an illegal scripted move was played")
	}
	if g.Status != "resign" || g.Winner != "white" {
		t.Errorf("game ended %s, winner %q; want the house's resignation at ply 7", g.Status, g.Winner)
	}
}

// SetGone with a negative wait lets the opponent claim at once.
func TestOpponentGoneAtOnce(t *testing.T) {
	s := newTestServer(t)
	id := startGame(t, s, ChallengeParams{})
	gs := openStream(t, s.URL(), "tw", "/api/bot/game/stream/"+id)
	gs.nextOfType(t, "gameFull")
	if err := s.SetGone(id, "b", true, -1); err != nil {
		t.Fatal(err)
	}
	if g := gs.nextOfType(t, "opponentGone"); g["gone"] != true || num(g, "claimWinInSeconds") != 0 {
		t.Fatalf("gone %v", g)
	}
	wantStatus(t, post(t, s.URL(), "tw", "/api/bot/game/"+id+"/claim-draw", nil), 200)
	if g, _ := s.Game(id); g.Status != "timeout" || g.Winner != "" {
		t.Fatalf("claimed: %s, winner %q", g.Status, g.Winner)
	}
}
