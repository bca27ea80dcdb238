package lichess

import "testing"

// A rated game's gameFinish, as Lichess writes it (lila's ownerPreview adds
// our rating and ratingDiff, and the opponent's, to the spec's fields).
func TestDecodeGameFinishRatingDiff(t *testing.T) {
	line := `{"type":"gameFinish","game":{"fullId":"9NaCTu2vz1c4","gameId":"9NaCTu2v","color":"black",` +
		`"status":{"id":31,"name":"resign"},"variant":{"key":"standard","name":"Standard"},"speed":"blitz","perf":"blitz",` +
		`"rated":true,"opponent":{"id":"mary","username":"Mary","rating":1993,"ratingDiff":-6},` +
		`"isMyTurn":false,"winner":"black","rating":2010,"ratingDiff":6}}`
	ev, err := DecodeEvent([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	g := ev.Game
	if g.Rating != 2010 || g.RatingDiff == nil || *g.RatingDiff != 6 || g.Opponent.RatingDiff == nil || *g.Opponent.RatingDiff != -6 {
		t.Errorf("decoded as %+v (opponent %+v)", g, g.Opponent)
	}
	// A casual game has none: nil, not a change of 0.
	ev, err = DecodeEvent([]byte(`{"type":"gameFinish","game":{"gameId":"x","status":{"id":34,"name":"draw"},"opponent":{"id":"mary"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if ev.Game.RatingDiff != nil || ev.Game.Opponent.RatingDiff != nil {
		t.Errorf("casual game decoded with rating changes: %+v", ev.Game)
	}
}
