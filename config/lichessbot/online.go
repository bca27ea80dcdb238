package lichessbot

import (
	"fmt"
	"time"
)

// online translates lichess-bot's engine.online_moves into ponderosa's
// online section. lichess-bot asks the online tablebase first, then
// chessdb, the cloud and the explorer; so does the translation
// (online.order). lichess-bot's min_time is seconds; it has no timeout
// setting, so ponderosa's default stays.
func (t *translator) online(om *section) {
	t.b.set(p("online.order"), []string{"tablebase", "chessdb", "cloud_eval", "explorer"},
		"lichess-bot's order: the online tablebase, then chessdb, the cloud, the explorer")
	maxOut := om.integer("max_out_of_book_moves", 10)
	if maxOut < 0 {
		maxOut = 0
	}
	if om.has("max_out_of_book_moves") {
		t.r.note(KindChanged, om.keyLine("max_out_of_book_moves"), join(om.path, "max_out_of_book_moves"),
			"lichess-bot counts the positions none of its online books knew; here each book counts its own misses in a row: written as max_misses of chessdb, cloud_eval and explorer")
	}
	om.drop(KindNoEquivalent, "max_retries", "ponderosa asks each source once per move, within its timeout (online.<source>.timeout)")
	maxDepth := om.integer("max_depth", 0)
	if om.has("max_depth") {
		t.r.note(KindChanged, om.keyLine("max_depth"), join(om.path, "max_depth"),
			"lichess-bot stops all its online books after so many moves; here only the explorer has a limit: written as online.explorer.max_ply, in plies")
	}
	misses := from(om, "max_out_of_book_moves")

	// minTime writes the source's enabled and min_time keys.
	common := func(s *section, key string, miss int, missFrom string) bool {
		on := s.boolean("enabled", false)
		t.b.set(p("online."+key+".enabled"), on, from(s, "enabled"))
		minTime := secs(s.number("min_time", 20))
		if minTime < 0 || minTime > 24*time.Hour {
			nd := min(max(minTime, 0), 24*time.Hour)
			t.r.note(KindChanged, s.keyLine("min_time"), join(s.path, "min_time"), "%v is outside what ponderosa takes (0s to 24h): written as %v", minTime, nd)
			minTime = nd
		}
		t.b.set(p("online."+key+".min_time"), minTime, inUnit(from(s, "min_time"), "seconds"))
		t.b.set(p("online."+key+".max_misses"), miss, missFrom)
		s.dropUnless("max_time", "", "not set: nothing to carry over",
			"ponderosa asks a source with any time left above min_time: there is no upper bound")
		return on
	}

	// online_egtb: the Lichess tablebase (max_out_of_book_moves does not
	// apply to it in lichess-bot either).
	eg := om.sub("online_egtb")
	srcWritten, qualityWritten := eg.written("source"), eg.written("move_quality")
	if on := common(eg, "tablebase", 0, "lichess-bot's max_out_of_book_moves does not apply to the online tablebase: no cap"); on {
		if src := eg.str("source", "lichess"); src != "lichess" {
			t.r.note(KindNoEquivalent, eg.keyLine("source"), join(eg.path, "source"),
				"%q: ponderosa asks the Lichess tablebase only: online.tablebase is left off", src)
			t.b.set(p("online.tablebase.enabled"), false, join(eg.path, "source")+" (not lichess)")
		} else if srcWritten {
			t.r.note(KindSame, eg.keyLine("source"), join(eg.path, "source"), "lichess: the tablebase ponderosa asks")
		}
	} else if src := eg.str("source", "lichess"); src != "lichess" && srcWritten {
		t.r.note(KindNoEquivalent, eg.keyLine("source"), join(eg.path, "source"),
			"%q: ponderosa asks the Lichess tablebase only", src)
	} else if srcWritten {
		t.r.note(KindSame, eg.keyLine("source"), join(eg.path, "source"), "lichess: the tablebase ponderosa asks")
	}
	pieces := eg.integer("max_pieces", 7)
	if pieces < 3 || pieces > 7 {
		np := min(max(pieces, 3), 7)
		t.r.note(KindChanged, eg.keyLine("max_pieces"), join(eg.path, "max_pieces"), "%d is outside 3 to 7: written as %d", pieces, np)
		pieces = np
	}
	t.b.set(p("online.tablebase.max_pieces"), pieces, from(eg, "max_pieces"))
	if q := eg.str("move_quality", "best"); q != "best" {
		t.r.note(KindChanged, eg.keyLine("move_quality"), join(eg.path, "move_quality"),
			"%q: ponderosa plays the tablebase's best move (best result, then mate, a zeroing move, the least DTZ)", q)
	} else if qualityWritten {
		t.r.note(KindSame, eg.keyLine("move_quality"), join(eg.path, "move_quality"), "best: ponderosa too plays the tablebase's best move")
	}
	eg.rest()

	// chessdb_book.
	cd := om.sub("chessdb_book")
	common(cd, "chessdb", maxOut, misses)
	switch q := cd.str("move_quality", "good"); q {
	case "best":
		t.b.set(p("online.chessdb.action"), "querybest", from(cd, "move_quality")+": best")
		if cd.has("min_depth") {
			t.r.note(KindNoEquivalent, cd.keyLine("min_depth"), join(cd.path, "min_depth"),
				"ponderosa takes chessdb's best move (querybest) without asking its depth")
		}
		cd.take("min_depth")
	case "good", "all":
		rank := map[string]int{"good": 1, "all": 0}[q]
		t.b.set(p("online.chessdb.action"), "queryall", from(cd, "move_quality")+": "+q)
		t.b.set(p("online.chessdb.min_rank"), rank, from(cd, "move_quality")+fmt.Sprintf(": %s, chessdb rank %d or better", q, rank))
		t.b.set(p("online.chessdb.min_score"), -30000, from(cd, "move_quality")+": no score limit")
		cd.drop(KindNoEquivalent, "min_depth", "used with move_quality best only")
	default:
		t.r.problem(cd.keyLine("move_quality"), join(cd.path, "move_quality"), "%q is not one of all, good, best", q)
	}
	cd.rest()

	// lichess_cloud_analysis.
	ca := om.sub("lichess_cloud_analysis")
	common(ca, "cloud_eval", maxOut, misses)
	switch q := ca.str("move_quality", "best"); q {
	case "best":
		t.b.set(p("online.cloud_eval.multi_pv"), 1, from(ca, "move_quality")+": best")
		t.b.set(p("online.cloud_eval.max_cp_loss"), 0, from(ca, "move_quality")+": best")
		ca.drop(KindNoEquivalent, "max_score_difference", "used with move_quality good only")
	case "good":
		diff := ca.integer("max_score_difference", 50)
		diff = min(max(diff, 0), 1000)
		t.b.set(p("online.cloud_eval.multi_pv"), 5, from(ca, "move_quality")+": good, among the cloud's variations")
		t.b.set(p("online.cloud_eval.max_cp_loss"), diff, from(ca, "max_score_difference"))
	default:
		t.r.problem(ca.keyLine("move_quality"), join(ca.path, "move_quality"), "%q is not one of good, best", q)
	}
	depth := min(max(ca.integer("min_depth", 20), 0), 100)
	t.b.set(p("online.cloud_eval.min_depth"), depth, from(ca, "min_depth"))
	ca.dropUnless("min_knodes", "0", "0: nothing to carry over", "ponderosa asks only the cloud's depth (min_depth), not its nodes")
	ca.rest()

	// lichess_opening_explorer.
	ex := om.sub("lichess_opening_explorer")
	on := common(ex, "explorer", maxOut, misses)
	switch src := ex.str("source", "masters"); src {
	case "masters", "lichess":
		t.b.set(p("online.explorer.database"), src, from(ex, "source"))
		ex.dropUnless("player_name", "", "empty: nothing to carry over", "used with source player only")
	case "player":
		t.b.set(p("online.explorer.database"), "masters", from(ex, "source")+": player has no equivalent")
		t.r.note(KindNoEquivalent, ex.keyLine("source"), join(ex.path, "source"),
			"\"player\": ponderosa asks the masters or lichess database only: online.explorer is left off")
		if on {
			t.b.set(p("online.explorer.enabled"), false, join(ex.path, "source")+" (player)")
		}
		ex.take("player_name")
	default:
		t.r.problem(ex.keyLine("source"), join(ex.path, "source"), "%q is not one of lichess, masters, player", src)
	}
	switch s := ex.str("sort", "winrate"); s {
	case "winrate":
		t.b.set(p("online.explorer.sort"), "score", from(ex, "sort")+": winrate")
	case "games_played":
		t.b.set(p("online.explorer.sort"), "games", from(ex, "sort")+": games_played")
	default:
		t.r.problem(ex.keyLine("sort"), join(ex.path, "sort"), "%q is not one of winrate, games_played", s)
	}
	t.b.set(p("online.explorer.min_games"), max(ex.integer("min_games", 10), 0), from(ex, "min_games"))
	if maxDepth > 0 {
		t.b.set(p("online.explorer.max_ply"), min(2*maxDepth, 1000), inUnit(from(om, "max_depth"), "moves"))
	}
	ex.rest()
	om.rest()
}
