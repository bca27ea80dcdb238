package client

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
)

// offerRules are the draw-offer settings of the rule's tests: level within
// 20 cp for 3 moves, from move 10, at most 12 pieces, a pause of 2 moves
// after a refusal, the opponent needing 10 s and a quarter of our clock.
func offerRules() GameSettings {
	return GameSettings{OfferDraws: true, DrawTablebase: true, OfferWithinCP: 20, OfferForMoves: 3, OfferMaxPieces: 12,
		OfferAfterMove: 10, OfferPauseMoves: 2, OfferMinOpponentClock: 10 * time.Second}
}

// level is a scored choice of cp.
func level(cp int) Choice { return Choice{Move: "e2e4", ScoreCP: cp, HasScore: true} }

// facts is our move number index at full move 20 + index with 10 pieces
// and a minute on both clocks.
func facts(index int) offerFacts {
	return offerFacts{index: index, fullMove: 20 + index, pieces: 10, clocked: true, ours: time.Minute, theirs: time.Minute}
}

// play runs the rule over the choices, our moves 0, 1, …, with facts f(i),
// and returns whether each move offered.
func play(t *testing.T, s GameSettings, choices []Choice, f func(i int) offerFacts) []bool {
	t.Helper()
	var st drawOffers
	var out []bool
	for i, d := range choices {
		var offer bool
		st, offer, _ = offerDraw(s, st, d, f(i))
		out = append(out, offer)
	}
	return out
}

func offers(bs []bool) string {
	var b strings.Builder
	for _, x := range bs {
		if x {
			b.WriteByte('O')
		} else {
			b.WriteByte('.')
		}
	}
	return b.String()
}

// An offer comes with the OfferForMoves-th level score in a row, and again
// with each later one while nothing stops it; a score out of the margin,
// or a mate score, starts the count again; a move without a score leaves
// it as it is.
func TestOfferDrawAfterLevelMoves(t *testing.T) {
	s := offerRules()
	s.OfferPauseMoves = 0
	noScore := Choice{Move: "e2e4"}
	choices := []Choice{level(0), level(-20), level(15), level(5), level(21), level(0), noScore, level(3), level(-4),
		{Move: "e2e4", Mate: 3, HasScore: true}, level(0), level(0), level(0)}
	// Each offer is "refused" by the next move (the game goes on), and the
	// pause is 0: the next level move may offer again.
	if got, want := offers(play(t, s, choices, facts)), "..OO....O...O"; got != want {
		t.Errorf("offers %s, want %s", got, want)
	}
	s.OfferDraws = false
	if got := offers(play(t, s, choices, facts)); strings.Contains(got, "O") {
		t.Errorf("offers %s with offers off", got)
	}
}

// No offer by the evaluation before full move OfferAfterMove.
func TestOfferDrawNotBeforeMoveNumber(t *testing.T) {
	s := offerRules()
	choices := []Choice{level(0), level(0), level(0), level(0), level(0)}
	got := offers(play(t, s, choices, func(i int) offerFacts { f := facts(i); f.fullMove = 7 + i; return f }))
	// Level from move 7 on; the third level move is move 9, the first
	// move that may offer is move 10.
	if want := "...O."; got != want {
		t.Errorf("offers %s, want %s (moves 7 to 11, from move 10 on)", got, want)
	}
}

// No offer with more than OfferMaxPieces pieces on the board, nor when the
// count is unknown; 0 allows any number.
func TestOfferDrawPieces(t *testing.T) {
	s := offerRules()
	choices := []Choice{level(0), level(0), level(0), level(0), level(0)}
	pieces := []int{20, 14, 13, 12, 0}
	got := offers(play(t, s, choices, func(i int) offerFacts { f := facts(i); f.pieces = pieces[i]; return f }))
	if want := "...O."; got != want {
		t.Errorf("offers %s, want %s (pieces %v, at most 12)", got, want, pieces)
	}
	s.OfferMaxPieces = 0
	if got, want := offers(play(t, s, choices, func(i int) offerFacts { f := facts(i); f.pieces = 30; return f })), "..O.."; got != want {
		t.Errorf("offers %s with any number of pieces allowed, want %s", got, want)
	}
	var st drawOffers
	for i := range 2 {
		st, _, _ = offerDraw(s, st, level(0), facts(i))
	}
	s.OfferMaxPieces = 12
	f := facts(2)
	f.pieces = 16
	if _, offer, why := offerDraw(s, st, level(0), f); offer || !strings.Contains(why, "16 pieces on the board (at most 12)") {
		t.Errorf("16 pieces: offer %v, why %q", offer, why)
	}
}

// After a refused offer (the game reached our next move), no offer for
// OfferPauseMoves of our moves; the level count goes on meanwhile.
func TestOfferDrawPauseAfterRefusal(t *testing.T) {
	s := offerRules()
	choices := make([]Choice, 12)
	for i := range choices {
		choices[i] = level(0)
	}
	// Offers at our moves 2, 5 (after moves 3 and 4 paused), 8, 11.
	if got, want := offers(play(t, s, choices, facts)), "..O..O..O..O"; got != want {
		t.Errorf("offers %s, want %s (pause of 2)", got, want)
	}
	s.OfferPauseMoves = 5
	if got, want := offers(play(t, s, choices, facts)), "..O.....O..."; got != want {
		t.Errorf("offers %s, want %s (pause of 5)", got, want)
	}
	// The reason names the refusal.
	var st drawOffers
	for i := range 4 {
		st, _, _ = offerDraw(s, st, level(0), facts(i))
	}
	if _, offer, why := offerDraw(s, st, level(0), facts(4)); offer || !strings.Contains(why, "an offer was refused 2 of our moves ago") {
		t.Errorf("during the pause: offer %v, why %q", offer, why)
	}
}

// No offer while the opponent is in time trouble: below
// OfferMinOpponentClock, or below a quarter of our clock; a game without a
// real-time clock (correspondence, unlimited) is not checked.
func TestOfferDrawOpponentTimeTrouble(t *testing.T) {
	s := offerRules()
	var st drawOffers
	for i := range 2 {
		st, _, _ = offerDraw(s, st, level(0), facts(i))
	}
	for _, tc := range []struct {
		name         string
		clocked      bool
		ours, theirs time.Duration
		want         bool
	}{
		{"both a minute", true, time.Minute, time.Minute, true},
		{"theirs below 10 s", true, 5 * time.Second, 9 * time.Second, false},
		{"theirs at 10 s", true, 20 * time.Second, 10 * time.Second, true},
		{"theirs below a quarter of ours", true, 5 * time.Minute, 74 * time.Second, false},
		{"theirs a quarter of ours", true, 5 * time.Minute, 75 * time.Second, true},
		{"no clock", false, 5 * time.Minute, time.Second, true},
	} {
		f := facts(2)
		f.clocked, f.ours, f.theirs = tc.clocked, tc.ours, tc.theirs
		_, offer, why := offerDraw(s, st, level(0), f)
		if offer != tc.want {
			t.Errorf("%s: offer %v (%s), want %v", tc.name, offer, why, tc.want)
		}
		if !offer && !strings.Contains(why, "time trouble") {
			t.Errorf("%s: why %q does not say time trouble", tc.name, why)
		}
	}
	s.OfferMinOpponentClock = 0
	f := facts(2)
	f.ours, f.theirs = 8*time.Second, 3*time.Second
	if _, offer, why := offerDraw(s, st, level(0), f); !offer {
		t.Errorf("no minimum clock, 3 s against 8 s: no offer (%s)", why)
	}
}

// A tablebase draw (or blessed loss) offers at once, without the level
// streak or the move number; a tablebase win or loss, or an unknown result,
// does not; DrawTablebase off ignores it. The piece limit, the pause and
// the opponent's clock still apply.
func TestOfferDrawTablebase(t *testing.T) {
	s := offerRules()
	tb := func(wdl int) Choice {
		return Choice{Move: "e2e4", TB: TBResult{Known: true, WDL: wdl, Source: "online-tablebase"}}
	}
	early := offerFacts{index: 1, fullMove: 2, pieces: 5, clocked: true, ours: time.Minute, theirs: time.Minute}
	for wdl, want := range map[int]bool{2: false, 1: false, 0: true, -1: true, -2: false} {
		if _, offer, why := offerDraw(s, drawOffers{}, tb(wdl), early); offer != want {
			t.Errorf("tablebase %s: offer %v (%s), want %v", tb(wdl).TB.Result(), offer, why, want)
		} else if offer && !strings.Contains(why, "tablebase says") {
			t.Errorf("tablebase %s: why %q", tb(wdl).TB.Result(), why)
		}
	}
	if _, offer, _ := offerDraw(s, drawOffers{}, Choice{Move: "e2e4", TB: TBResult{WDL: 0}}, early); offer {
		t.Error("an unknown tablebase result offers")
	}
	s.DrawTablebase = false
	if _, offer, _ := offerDraw(s, drawOffers{}, tb(0), early); offer {
		t.Error("a tablebase draw offers with DrawTablebase off")
	}
	s.DrawTablebase = true
	f := early
	f.pieces = 13
	if _, offer, _ := offerDraw(s, drawOffers{}, tb(0), f); offer {
		t.Error("a tablebase draw offers with 13 pieces (at most 12)")
	}
	f = early
	f.theirs = 5 * time.Second
	if _, offer, _ := offerDraw(s, drawOffers{}, tb(0), f); offer {
		t.Error("a tablebase draw offers to an opponent in time trouble")
	}
	if _, offer, _ := offerDraw(s, drawOffers{offered: true, offeredAt: 0}, tb(0), early); offer {
		t.Error("a tablebase draw offers again right after a refusal")
	}
}

// A player's own offer is honoured whatever the rule says (even with
// offers off), and counts for the pause.
func TestOfferDrawPlayerOffers(t *testing.T) {
	s := offerRules()
	s.OfferDraws = false
	d := level(500)
	d.OfferDraw = true
	st, offer, _ := offerDraw(s, drawOffers{}, d, facts(0))
	if !offer || !st.offered || st.offeredAt != 0 {
		t.Fatalf("player's offer: offer %v, state %+v", offer, st)
	}
	// Then the rule: the pause of 2 after the refused offer covers our
	// moves 1 and 2; the level count (3 moves) is reached at move 3.
	s.OfferDraws = true
	var got []bool
	for i := 1; i <= 4; i++ {
		var o bool
		st, o, _ = offerDraw(s, st, level(0), facts(i))
		got = append(got, o)
	}
	if g, want := offers(got), "..O."; g != want {
		t.Errorf("moves 1 to 4 after the player's offer: %s, want %s", g, want)
	}
}

// While the opponent's refused offer is pending (f.refused) nothing
// offers, neither the rule nor the player, and the refused move does not
// count as our offer for the pause.
func TestOfferDrawNotWhenRefused(t *testing.T) {
	s := offerRules()
	f := facts(5)
	f.refused = true
	for _, d := range []Choice{
		{HasScore: true, TB: TBResult{Known: true, WDL: 0}},
		{HasScore: true, OfferDraw: true},
	} {
		next, offer, why := offerDraw(s, drawOffers{level: 5}, d, f)
		if offer || next.offered || why == "" {
			t.Errorf("%+v with a refused pending offer: offer %v, state %+v, why %q; want no offer and a reason", d, offer, next, why)
		}
		f.refused = false
		if _, offer, _ := offerDraw(s, drawOffers{level: 5}, d, f); !offer {
			t.Errorf("%+v without a pending offer: no offer", d)
		}
		f.refused = true
	}
}

func TestCountPieces(t *testing.T) {
	for fen, want := range map[string]int{
		StartFEN:                            32,
		"8/8/4k3/8/8/4K3/8/8 w - - 0 1":     2,
		"8/8/4k3/8/8/4K3/4P3/6n1 b - - 0 1": 4,
		"":                                  0,
	} {
		if got := countPieces(fen); got != want {
			t.Errorf("countPieces(%q) = %d, want %d", fen, got, want)
		}
	}
}

// ourOffers returns, for each move our bot posted in game id, whether it
// offered a draw with it (O) or not (.).
func (h *harness) ourOffers(id string) string {
	var b strings.Builder
	for _, r := range h.srv.RequestsMatching("POST /api/bot/game/" + id + "/move/*") {
		if r.Account != botID || r.Status != 200 {
			continue
		}
		if strings.Contains(r.Query, "offeringDraw=true") {
			b.WriteByte('O')
		} else {
			b.WriteByte('.')
		}
	}
	return b.String()
}

// End to end: the bot offers a draw with its move once its score has been
// level for OfferForMoves moves from move OfferAfterMove on, the opponent
// declines (it moves on), and the bot offers again only after the pause.
func TestDrawOffersDeclined(t *testing.T) {
	h := newHarness(t)
	h.addHouse("opponent", houseFirst(0))
	id := h.startGame("opponent", true, lichesstest.ChallengeParams{})
	s := Settings{Game: GameSettings{OfferDraws: true, OfferWithinCP: 25, OfferForMoves: 2, OfferAfterMove: 3, OfferPauseMoves: 1}}
	_, stop := h.runBot(s, &playerPool{next: func(i int, p *testPlayer) { p.score = 10 }})
	h.resignAfter(id, "opponent", 16)
	g := h.waitOver(id)
	stop()
	got := h.ourOffers(id)
	// Our moves 1 and 2 (full moves 1, 2): too early; 3 offers; 4 is
	// paused; 5 offers; …
	want := "..O.O.O.O"
	if len(got) < 6 || got != want[:len(got)] {
		t.Errorf("our moves' offers %s (game %s after %d plies), want %s", got, g.Status, len(g.Moves), want[:min(len(want), max(len(got), 6))])
	}
}

// End to end: an opponent that accepts draws ends the game with our first
// offer, made by the evaluation or, earlier, by a tablebase draw.
func TestDrawOfferAccepted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		player func(p *testPlayer)
		plies  int
	}{
		{"level score", func(p *testPlayer) { p.score = -5 }, 5},
		{"tablebase draw", func(p *testPlayer) { p.score, p.tb, p.tbAt = 300, TBResult{Known: true, WDL: 0, Source: "test"}, 2 }, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.addHouse("opponent", lichesstest.HouseOptions{Strategy: lichesstest.HouseFirst, AcceptDraws: true})
			id := h.startGame("opponent", true, lichesstest.ChallengeParams{})
			s := Settings{Game: GameSettings{OfferDraws: true, DrawTablebase: true, OfferWithinCP: 25, OfferForMoves: 3, OfferAfterMove: 2, OfferPauseMoves: 5}}
			_, stop := h.runBot(s, &playerPool{next: func(i int, p *testPlayer) { tc.player(p) }})
			g := h.waitOver(id)
			stop()
			if g.Status != "draw" || len(g.Moves) != tc.plies || !strings.HasSuffix(h.ourOffers(id), "O") {
				t.Errorf("game %s after %d plies, our offers %s; want a draw after %d plies", g.Status, len(g.Moves), h.ourOffers(id), tc.plies)
			}
		})
	}
}

// End to end: no offer while the opponent's clock is in trouble (below
// OfferMinOpponentClock), though everything else asks for one.
func TestDrawOfferNotInTimeTrouble(t *testing.T) {
	h := newHarness(t)
	h.addHouse("opponent", houseFirst(0))
	id := h.startGame("opponent", true, lichesstest.ChallengeParams{ClockLimit: 30 * time.Second, ClockIncrement: time.Second})
	s := Settings{Game: GameSettings{OfferDraws: true, OfferWithinCP: 25, OfferForMoves: 1, OfferMinOpponentClock: time.Minute}}
	_, stop := h.runBot(s, &playerPool{next: func(i int, p *testPlayer) { p.score = 0 }})
	h.resignAfter(id, "opponent", 8)
	h.waitOver(id)
	stop()
	if got := h.ourOffers(id); len(got) < 3 || strings.Contains(got, "O") {
		t.Errorf("our moves' offers %s against an opponent with less than a minute", got)
	}
}

// drawAnswer waits until the bot has answered the opponent's draw offer,
// made with the opponent's move at ply 1, and has made its move at ply 2
// (when the game goes on); it returns "yes" when the game ended drawn by
// our move offering a draw (which agrees to theirs) or by a POST
// …/draw/yes, else the bot's last …/draw/{answer}, and our moves' offers.
func (h *harness) drawAnswer(id string) (string, string) {
	h.t.Helper()
	draw := "POST /api/bot/game/" + id + "/draw/*"
	h.waitFor("the answer", func() bool {
		g := h.game(id)
		return g.Finished || (h.requests(draw) >= 1 && len(g.Moves) >= 3)
	})
	g := h.game(id)
	offers := h.ourOffers(id)
	d := h.lastSegments(draw)
	switch {
	case g.Finished && g.Status == "draw" && (strings.HasSuffix(offers, "O") || slices.Contains(d, "yes")):
		return "yes", offers
	case len(d) == 1:
		return d[0], offers
	}
	return fmt.Sprintf("game %s, answers %v", g.Status, d), offers
}

// End to end: an offer that comes with the opponent's move is answered by
// the tablebase result of our next move (for the position of the offer),
// with that move: a draw or a loss for us is accepted whatever the score
// (our move offers a draw, which agrees to theirs), a win declined even at
// a level score (…/draw/no, and our move offers nothing). With
// DrawTablebase off the score decides at once.
func TestAcceptDrawByTablebase(t *testing.T) {
	for _, tc := range []struct {
		name  string
		score int
		wdl   int
		useTB bool
		want  string
	}{
		{"tablebase loss", 400, -2, true, "yes"},
		{"tablebase draw", 400, 0, true, "yes"},
		{"tablebase win at a level score", 0, 2, true, "no"},
		{"tablebase off", 400, -2, false, "no"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.addHuman("opponent")
			id := h.startGame("opponent", true, lichesstest.ChallengeParams{})
			s := Settings{Game: GameSettings{AcceptDraws: true, DrawWithinCP: 25, DrawTablebase: tc.useTB}}
			pool := &playerPool{next: func(i int, p *testPlayer) {
				p.score = tc.score
				p.tb = TBResult{Known: true, WDL: tc.wdl, Source: "test"}
			}}
			_, stop := h.runBot(s, pool)
			h.waitPlies(id, 1)
			if err := h.srv.MoveOfferingDraw(id, "opponent", "e7e5"); err != nil {
				t.Fatal(err)
			}
			got, offers := h.drawAnswer(id)
			stop()
			if got != tc.want {
				t.Errorf("draw answer %s (our offers %s), want %s", got, offers, tc.want)
			}
			if tc.want == "no" && strings.Contains(offers, "O") {
				t.Errorf("our moves' offers %s after declining the opponent's", offers)
			}
		})
	}
}

// End to end: the tablebase result of our previous move (for the position
// before it, one move old when the opponent offers) answers no offer: a
// draw there, a win after the opponent's move, is declined; unknown there,
// a draw after it, is accepted, whatever the score.
func TestDrawOfferAnsweredByFreshTablebase(t *testing.T) {
	draw, win := TBResult{Known: true, WDL: 0, Source: "test"}, TBResult{Known: true, WDL: 2, Source: "test"}
	for _, tc := range []struct {
		name string
		tbs  map[int]TBResult
		want string
	}{
		{"a draw before, a win now", map[int]TBResult{0: draw, 2: win}, "no"},
		{"unknown before, a draw now", map[int]TBResult{2: draw}, "yes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.addHuman("opponent")
			id := h.startGame("opponent", true, lichesstest.ChallengeParams{})
			s := Settings{Game: GameSettings{AcceptDraws: true, DrawWithinCP: 25, DrawTablebase: true}}
			_, stop := h.runBot(s, &playerPool{next: func(i int, p *testPlayer) { p.score, p.tbs = 400, tc.tbs }})
			h.waitPlies(id, 1)
			if err := h.srv.MoveOfferingDraw(id, "opponent", "e7e5"); err != nil {
				t.Fatal(err)
			}
			got, offers := h.drawAnswer(id)
			stop()
			if got != tc.want {
				t.Errorf("draw answer %s (our offers %s), want %s", got, offers, tc.want)
			}
		})
	}
}

// End to end: when the bot refuses the opponent's pending offer, its move
// offers no draw, though the offer rule would offer one (on Lichess the
// offer would accept theirs): refused at once by the score, or with the
// move by a tablebase win.
func TestNoOfferWithMoveAfterRefusing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		useTB bool
		score int
	}{
		{"refused by the score", false, 100},
		{"refused by a tablebase win", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.addHuman("opponent")
			id := h.startGame("opponent", true, lichesstest.ChallengeParams{})
			s := Settings{Game: GameSettings{AcceptDraws: true, DrawWithinCP: 25, DrawTablebase: tc.useTB,
				OfferDraws: true, OfferWithinCP: 200, OfferForMoves: 1, OfferAfterMove: 2}}
			_, stop := h.runBot(s, &playerPool{next: func(i int, p *testPlayer) {
				p.score, p.tb = tc.score, TBResult{Known: true, WDL: 2, Source: "test"}
			}})
			h.waitPlies(id, 1)
			if err := h.srv.MoveOfferingDraw(id, "opponent", "e7e5"); err != nil {
				t.Fatal(err)
			}
			got, offers := h.drawAnswer(id)
			stop()
			if got != "no" || offers != ".." {
				t.Errorf("draw answer %s, our moves' offers %s; want no and ..", got, offers)
			}
		})
	}
}

// The full move number counts from the initial FEN's, and from its side
// to move.
func TestFullMoveAt(t *testing.T) {
	for _, tc := range []struct {
		fen       string
		ply, want int
	}{
		{"", 0, 1}, {"", 1, 1}, {"", 2, 2}, {"", 5, 3},
		{StartFEN, 4, 3},
		{"8/8/4k3/8/8/4K3/8/8 w - - 0 30", 0, 30},
		{"8/8/4k3/8/8/4K3/8/8 w - - 0 30", 1, 30},
		{"8/8/4k3/8/8/4K3/8/8 w - - 0 30", 2, 31},
		{"8/8/4k3/8/8/4K3/8/8 b - - 0 30", 0, 30},
		{"8/8/4k3/8/8/4K3/8/8 b - - 0 30", 1, 31},
		{"8/8/4k3/8/8/4K3/8/8 b - - 0 30", 2, 31},
		{"8/8/4k3/8/8/4K3/8/8 b - - 0 30", 3, 32},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3+3 0 12", 2, 13}, // three-check
		{"8/8/4k3/8/8/4K3/8/8 b -", 1, 2},
	} {
		if got := fullMoveAt(tc.fen, tc.ply); got != tc.want {
			t.Errorf("fullMoveAt(%q, %d) = %d, want %d", tc.fen, tc.ply, got, tc.want)
		}
	}
}

// End to end, in a game from a position at move 30: the offer rule's
// offer_after_move and the accept rule's after_move count from the FEN's
// move number, not from 1.
func TestDrawRulesFromPosition(t *testing.T) {
	const fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 30"
	t.Run("offer", func(t *testing.T) {
		h := newHarness(t)
		h.addHouse("opponent", houseFirst(0))
		id := h.startGame("opponent", true, lichesstest.ChallengeParams{Variant: "fromPosition", FEN: fen})
		s := Settings{Game: GameSettings{OfferDraws: true, OfferWithinCP: 25, OfferForMoves: 1, OfferAfterMove: 30}}
		_, stop := h.runBot(s, &playerPool{next: func(i int, p *testPlayer) { p.score = 0 }})
		h.resignAfter(id, "opponent", 4)
		h.waitOver(id)
		stop()
		if got := h.ourOffers(id); !strings.HasPrefix(got, "O") {
			t.Errorf("our moves' offers %s from move 30, want an offer with the first", got)
		}
	})
	t.Run("accept", func(t *testing.T) {
		h := newHarness(t)
		h.addHuman("opponent")
		id := h.startGame("opponent", true, lichesstest.ChallengeParams{Variant: "fromPosition", FEN: fen})
		s := Settings{Game: GameSettings{AcceptDraws: true, DrawWithinCP: 25, DrawAfterMove: 31}}
		_, stop := h.runBot(s, &playerPool{next: func(i int, p *testPlayer) { p.score = 0 }})
		h.waitPlies(id, 1)
		if err := h.srv.MoveOfferingDraw(id, "opponent", "g8f6"); err != nil {
			t.Fatal(err)
		}
		got, _ := h.drawAnswer(id)
		stop()
		if got != "yes" {
			t.Errorf("draw answer %s at move 31, want yes", got)
		}
	})
}

// End to end: with ResignTablebase the bot resigns when the tablebase
// proves its position lost, whatever the score; not a blessed loss, and
// not with ResignTablebase off.
func TestResignByTablebase(t *testing.T) {
	for _, tc := range []struct {
		name   string
		on     bool
		wdl    int
		resign bool
	}{
		{"loss", true, -2, true},
		{"blessed loss", true, -1, false},
		{"off", false, -2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.addHouse("opponent", houseFirst(0))
			id := h.startGame("opponent", true, lichesstest.ChallengeParams{})
			s := Settings{Game: GameSettings{ResignTablebase: tc.on, Resign: true, ResignBelowCP: 500, ResignForMoves: 1}}
			_, stop := h.runBot(s, &playerPool{next: func(i int, p *testPlayer) {
				p.score, p.tb, p.tbAt = 50, TBResult{Known: true, WDL: tc.wdl, Source: "test"}, 2
			}})
			if !tc.resign {
				h.resignAfter(id, "opponent", 6)
			}
			g := h.waitOver(id)
			stop()
			resigned := g.Status == "resign" && g.Winner == "black"
			if resigned != tc.resign || (tc.resign && len(g.Moves) != 2) {
				t.Errorf("game %s/%s after %d plies, actions %v; want our resignation at ply 2: %v", g.Status, g.Winner, len(g.Moves), h.actions(id), tc.resign)
			}
		})
	}
}
