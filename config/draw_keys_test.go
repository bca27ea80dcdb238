package config

import (
	"strings"
	"testing"
	"time"
)

// The draw-offer and tablebase keys: read from YAML, off by default, and
// the summary says what they do.
func TestDrawOfferKeys(t *testing.T) {
	d := Default().Game
	if d.Draw.Offer || !d.Draw.Tablebase || d.Resign.Tablebase || d.Draw.OfferMoves != 10 || d.Draw.OfferAfterMove != 40 ||
		d.Draw.OfferPauseMoves != 10 || d.Draw.OfferMinOpponentClock != 10*time.Second || d.Draw.OfferPieces != 0 {
		t.Errorf("defaults: draw %+v resign %+v", d.Draw, d.Resign)
	}
	if s := Default().Summary(); !strings.Contains(s, "accepts draws within 25 cp from move 30 or by tablebase, offers none, never resigns") {
		t.Errorf("default summary:\n%s", s)
	}
	c, err := Parse([]byte("game:\n  draw:\n    tablebase: false\n    offer: true\n    offer_within_cp: 15\n    offer_moves: 6\n    offer_pieces: 12\n"+
		"    offer_after_move: 35\n    offer_pause_moves: 4\n    offer_min_opponent_clock: 20s\n  resign:\n    tablebase: true\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	g := c.Game
	if g.Draw.Tablebase || !g.Draw.Offer || g.Draw.OfferWithinCP != 15 || g.Draw.OfferMoves != 6 || g.Draw.OfferPieces != 12 ||
		g.Draw.OfferAfterMove != 35 || g.Draw.OfferPauseMoves != 4 || g.Draw.OfferMinOpponentClock != 20*time.Second || !g.Resign.Tablebase {
		t.Errorf("read: draw %+v resign %+v", g.Draw, g.Resign)
	}
	want := "accepts draws within 25 cp from move 30, offers draws after 6 moves within 15 cp from move 35, with at most 12 pieces, " +
		"not for 4 moves after a refusal, not to an opponent with less than 20s or a quarter of our clock, resigns tablebase losses only"
	if s := c.Summary(); !strings.Contains(s, want) {
		t.Errorf("summary:\n%s\nwant %q", s, want)
	}
}
