package lichessbot

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The fixture's online_moves (the online tablebase on, the books off)
// becomes the online section: lichess-bot's order, min_time in seconds,
// max_out_of_book_moves as the books' max_misses (not the tablebase's),
// and notes for what has no equivalent.
func TestImportOnlineMoves(t *testing.T) {
	res, _ := importFixture(t)
	cfg := loadYAML(t, res)
	o := cfg.Online
	if !slices.Equal(o.Order, []string{"tablebase", "chessdb", "cloud_eval", "explorer"}) {
		t.Errorf("order %v", o.Order)
	}
	if got := o.Enabled(); !slices.Equal(got, []string{"tablebase"}) {
		t.Errorf("enabled %v, want the tablebase only", got)
	}
	if tb := o.Tablebase; tb.MinTime != 20*time.Second || tb.MaxMisses != 0 || tb.MaxPieces != 7 {
		t.Errorf("tablebase %+v", tb)
	}
	if o.ChessDB.MaxMisses != 10 || o.CloudEval.MaxMisses != 10 || o.Explorer.MaxMisses != 10 {
		t.Errorf("max_misses of the books %d %d %d, want 10 (max_out_of_book_moves)", o.ChessDB.MaxMisses, o.CloudEval.MaxMisses, o.Explorer.MaxMisses)
	}
	if o.Explorer.Sort != "score" || o.Explorer.Database != "masters" || o.CloudEval.MinDepth != 20 {
		t.Errorf("lichess-bot's defaults: explorer %+v, cloud %+v", o.Explorer, o.CloudEval)
	}
	for key, kind := range map[string]Kind{
		"engine.online_moves.max_retries":           KindNoEquivalent,
		"engine.online_moves.max_out_of_book_moves": KindChanged,
		"engine.online_moves.online_egtb.max_time":  KindNoEquivalent,
	} {
		if n, ok := findNote(res, key); !ok || n.Kind != kind {
			t.Errorf("%s: note %+v, want kind %v", key, n, kind)
		}
	}
	if !strings.Contains(string(res.YAML), "min_time: 20s # engine.online_moves.online_egtb.min_time, in seconds") {
		t.Errorf("the tablebase's min_time is not written with its origin:\n%s", res.YAML)
	}
}

// Every choice of lichess-bot's online books finds its nearest setting
// here, and what has none is left off with a note.
func TestImportOnlineMovesChoices(t *testing.T) {
	in := `engine:
  protocol: homemade
  online_moves:
    max_out_of_book_moves: 4
    max_depth: 8
    chessdb_book: {enabled: true, min_time: 5, move_quality: good, min_depth: 30}
    lichess_cloud_analysis: {enabled: true, min_time: 60, move_quality: good, max_score_difference: 30, min_depth: 25, min_knodes: 1000}
    lichess_opening_explorer: {enabled: true, source: player, player_name: someone, sort: games_played, min_games: 3}
    online_egtb: {enabled: true, source: chessdb, max_pieces: 9, move_quality: suggest}
`
	res, err := Import([]byte(in), "c.yml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := loadYAML(t, res)
	o := cfg.Online
	if got := o.Enabled(); !slices.Equal(got, []string{"chessdb", "cloud_eval"}) {
		t.Errorf("enabled %v, want chessdb and cloud_eval (the player explorer and chessdb's tablebase are left off)", got)
	}
	if d := o.ChessDB; d.Action != "queryall" || d.MinRank != 1 || d.MinTime != 5*time.Second || d.MaxMisses != 4 {
		t.Errorf("chessdb %+v", d)
	}
	if c := o.CloudEval; c.MultiPV != 5 || c.MaxCPLoss != 30 || c.MinDepth != 25 || c.MinTime != time.Minute {
		t.Errorf("cloud %+v", c)
	}
	if e := o.Explorer; e.Sort != "games" || e.MinGames != 3 || e.MaxPly != 16 {
		t.Errorf("explorer %+v", e)
	}
	if o.Tablebase.MaxPieces != 7 {
		t.Errorf("tablebase max_pieces %d, want 7", o.Tablebase.MaxPieces)
	}
	for _, key := range []string{
		"engine.online_moves.max_depth",
		"engine.online_moves.chessdb_book.min_depth",
		"engine.online_moves.lichess_cloud_analysis.min_knodes",
		"engine.online_moves.lichess_opening_explorer.source",
		"engine.online_moves.online_egtb.source",
		"engine.online_moves.online_egtb.max_pieces",
		"engine.online_moves.online_egtb.move_quality",
	} {
		if _, ok := findNote(res, key); !ok {
			t.Errorf("no note for %s", key)
		}
	}
	if u := notesOf(res, KindUnknown); len(u) > 0 {
		t.Errorf("unknown keys %v", u)
	}
}
