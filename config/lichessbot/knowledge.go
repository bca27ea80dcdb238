package lichessbot

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/config"
)

// bookSelections and bookNormalizations are the values lichess-bot takes
// for engine.polyglot.selection and normalization (it refuses to start with
// another).
var (
	bookSelections     = []string{"weighted_random", "uniform_random", "best_move"}
	bookNormalizations = []string{"none", "max", "sum"}
)

// polyglot translates engine.polyglot, lichess-bot's opening books, into
// engine.book. lichess-bot asks its books itself, whatever the engine;
// ponderosa's engine.book serves the built-in engine only, so with an
// external engine the books have no equivalent here.
func (t *translator) polyglot(e *section) {
	if !e.written("polyglot") {
		return
	}
	line := e.keyLine("polyglot")
	pg := e.sub("polyglot")
	enabled := pg.boolean("enabled", false)
	selection := pg.str("selection", "weighted_random")
	minWeight := pg.number("min_weight", 1)
	maxDepth := pg.number("max_depth", 8)
	normalization := pg.str("normalization", "none")
	books := pg.sub("book")
	type variantBooks struct {
		variant string
		line    int
		paths   []string
	}
	var all []variantBooks
	for _, k := range books.keys {
		paths, _ := books.strList(k.Value)
		all = append(all, variantBooks{k.Value, k.Line, paths})
	}
	books.rest()
	pg.rest()
	if !slices.Contains(bookSelections, selection) {
		t.r.problem(pg.keyLine("selection"), "engine.polyglot.selection", "%q is not one of %s", selection, strings.Join(bookSelections, ", "))
		return
	}
	if !slices.Contains(bookNormalizations, normalization) {
		t.r.problem(pg.keyLine("normalization"), "engine.polyglot.normalization", "%q is not one of %s", normalization, strings.Join(bookNormalizations, ", "))
		return
	}

	switch {
	case !enabled:
		t.r.note(KindSame, line, "engine.polyglot", "enabled is false: no book to carry over (ponderosa plays without a book unless engine.book names one)")
		return
	case t.external:
		t.r.note(KindNoEquivalent, line, "engine.polyglot",
			"lichess-bot asks its books itself, whatever the engine; ponderosa's engine.book serves its built-in engine only. "+
				"Give the external engine its book through its own UCI options in engine.external.options, if it has them "+
				"(often OwnBook: true and BookFile: PATH; Stockfish has none)")
		return
	case maxDepth <= 0:
		t.r.note(KindChanged, pg.keyLine("max_depth"), "engine.polyglot.max_depth",
			"%g: lichess-bot then never asks its books: no book is carried over", maxDepth)
		return
	}

	files := map[string][]string{}
	for _, vb := range all {
		switch vb.variant {
		case config.VariantStandard, config.VariantChess960:
		default:
			t.r.note(KindNoEquivalent, vb.line, "engine.polyglot.book."+vb.variant,
				"ponderosa's built-in engine plays standard and chess960 (whose books serve fromPosition too), not %s: left out", vb.variant)
			continue
		}
		for _, path := range vb.paths {
			if path == "" {
				continue
			}
			files[vb.variant] = append(files[vb.variant], t.absolute("engine.polyglot.book."+vb.variant, path, vb.line))
		}
	}
	if len(files) == 0 {
		t.r.note(KindChanged, line, "engine.polyglot", "enabled, but no book for standard or chess960: nothing to carry over")
		return
	}
	t.b.set(p("engine.book.files"), files, "")
	t.b.mapping(p("engine.book.files")).HeadComment = "engine.polyglot.book, with engine.polyglot.enabled: true"
	t.b.set(p("engine.book.selection"), selection, from(pg, "selection"))

	// min_weight: lichess-bot's weighted_random ignores it (it never picks
	// a move of weight 0, nor does ponderosa's); with a normalization it is
	// a percentage of the position's largest weight or of their sum.
	weight := 0
	weightFrom := from(pg, "min_weight", "normalization")
	switch {
	case selection == "weighted_random":
		weightFrom = "engine.polyglot.min_weight, engine.polyglot.normalization: not used by lichess-bot's weighted_random"
		if pg.has("min_weight") && minWeight > 1 {
			t.r.note(KindSame, pg.keyLine("min_weight"), "engine.polyglot.min_weight",
				"%g: lichess-bot does not apply min_weight to weighted_random (a move of weight 0 is never picked, here too): written as min_weight: 0", minWeight)
		}
	case normalization != "none":
		if minWeight > 0 {
			t.r.note(KindChanged, pg.keyLine("normalization"), "engine.polyglot.normalization",
				"%s: lichess-bot's min_weight (%g) is then a percentage of the %s of a position's weights; ponderosa's min_weight is a weight "+
					"(0 to 65535) for every position: written as min_weight: 0 (no move left out); set a weight by hand",
				normalization, minWeight, map[string]string{"max": "largest", "sum": "sum"}[normalization])
		}
	default:
		w := math.Ceil(minWeight) // weights are whole: w >= 1.5 keeps the same moves as w >= 2
		if w < 0 || w > 65535 {
			nw := min(max(w, 0), 65535)
			t.r.note(KindChanged, pg.keyLine("min_weight"), "engine.polyglot.min_weight",
				"%g is outside the weights a Polyglot book holds (0 to 65535): written as %g", minWeight, nw)
			w = nw
		}
		weight = int(w)
	}
	t.b.set(p("engine.book.min_weight"), weight, weightFrom)

	// lichess-bot asks its books while the game has at most max_depth*2-1
	// plies; ponderosa while the ply about to be played is at most
	// max_depth (plies).
	plies := 0 // no limit
	if f := math.Floor(2 * maxDepth); f <= 10000 {
		plies = int(f)
	}
	t.b.set(p("engine.book.max_depth"), plies, inUnit(from(pg, "max_depth"), "moves; here plies, twice as many"))
}

// drawOrResign translates engine.draw_or_resign into game.draw and
// game.resign. lichess-bot both offers and accepts a draw (it accepts one
// by offering with its move) when its last offer_draw_moves scores were
// within offer_draw_score of 0 with at most offer_draw_pieces pieces on the
// board, or when a tablebase says wdl 0 (offer_draw_for_egtb_zero); it
// resigns a tablebase's wdl -2 (resign_for_egtb_minus_two) when resigning
// is on. ponderosa offers by the same run of scores (game.draw.offer…),
// accepts by its last score from a move number on, and uses tablebase
// results by game.draw.tablebase and game.resign.tablebase.
func (t *translator) drawOrResign(e *section) {
	d := e.sub("draw_or_resign")
	offer := d.boolean("offer_draw_enabled", false)
	drawScore := math.Floor(d.number("offer_draw_score", 0))
	drawMoves := math.Ceil(d.number("offer_draw_moves", 5))
	pieces := d.integer("offer_draw_pieces", 10)
	egtbDraw := d.boolean("offer_draw_for_egtb_zero", true)
	resign := d.boolean("resign_enabled", false)
	resignScore := math.Floor(d.number("resign_score", -1000))
	resignMoves := math.Ceil(d.number("resign_moves", 3))
	egtbResign := d.boolean("resign_for_egtb_minus_two", true)
	d.rest()
	ln := func(key string) int { return d.keyLine(key) }
	key := func(k string) string { return "engine.draw_or_resign." + k }

	// Draws: offered and accepted under the same switch, as in lichess-bot.
	accept := offer
	if offer && drawScore < 0 {
		t.r.note(KindChanged, ln("offer_draw_score"), key("offer_draw_score"),
			"%g: no score is that close to 0, so lichess-bot never offers or accepts a draw: written as game.draw.accept: false and offer: false", drawScore)
		accept = false
	}
	if offer && pieces < 2 {
		t.r.note(KindChanged, ln("offer_draw_pieces"), key("offer_draw_pieces"),
			"%d: no position has that few pieces, so lichess-bot never offers or accepts a draw: written as game.draw.accept: false and offer: false", pieces)
		accept = false
	}
	within := min(max(drawScore, 0), 1000)
	if drawScore > 1000 {
		t.r.note(KindChanged, ln("offer_draw_score"), key("offer_draw_score"), "%g cp is more than ponderosa takes: written as within_cp and offer_within_cp: 1000", drawScore)
	}
	afterMove := min(max(drawMoves, 0), 1000)
	offerMoves := min(max(drawMoves, 1), 100)
	offerPieces := 0 // any number
	if pieces >= 2 && pieces < 32 {
		offerPieces = pieces
	}
	notInLichessBot := "not in lichess-bot, which offers with every move that qualifies"
	t.b.set(p("game.draw.accept"), accept, from(d, "offer_draw_enabled"))
	t.b.set(p("game.draw.within_cp"), int(within), from(d, "offer_draw_score"))
	t.b.set(p("game.draw.after_move"), int(afterMove), from(d, "offer_draw_moves"))
	t.b.set(p("game.draw.tablebase"), egtbDraw, from(d, "offer_draw_for_egtb_zero"))
	t.b.set(p("game.draw.offer"), accept, from(d, "offer_draw_enabled"))
	t.b.set(p("game.draw.offer_within_cp"), int(within), from(d, "offer_draw_score"))
	t.b.set(p("game.draw.offer_moves"), int(offerMoves), from(d, "offer_draw_moves"))
	t.b.set(p("game.draw.offer_pieces"), offerPieces, from(d, "offer_draw_pieces"))
	t.b.set(p("game.draw.offer_after_move"), 0, notInLichessBot)
	t.b.set(p("game.draw.offer_pause_moves"), 0, notInLichessBot)
	t.b.set(p("game.draw.offer_min_opponent_clock"), time.Duration(0), notInLichessBot)
	if accept {
		t.r.note(KindChanged, ln("offer_draw_enabled"), key("offer_draw_enabled"),
			"true: written as game.draw.offer: true and accept: true. lichess-bot accepts an offer only by offering a draw with its move, "+
				"under the offer's conditions; ponderosa answers an offer by game.draw's accept rule (its last score from after_move on, "+
				"any number of pieces), and never offers while the opponent's clock is below a quarter of ours")
		t.r.note(KindChanged, ln("offer_draw_moves"), key("offer_draw_moves"),
			"%g: written as offer_moves: %d (the same run of level scores for an offer); an offer is accepted by the last score only, "+
				"from full move after_move: %d", drawMoves, int(offerMoves), int(afterMove))
		if d.has("offer_draw_pieces") && pieces >= 32 {
			t.r.note(KindSame, ln("offer_draw_pieces"), key("offer_draw_pieces"), "%d: no limit, written as offer_pieces: 0", pieces)
		}
		if egtbDraw {
			t.r.note(KindChanged, ln("offer_draw_for_egtb_zero"), key("offer_draw_for_egtb_zero"),
				"true: written as game.draw.tablebase: true, by the tablebase results of the built-in engine's local tables (engine.syzygy, from lichess_bot_tbs) or online.tablebase; "+
					"ponderosa also offers a draw in a blessed loss, and accepts one at once in a tablebase loss")
		}
	} else {
		for _, k := range []string{"offer_draw_moves", "offer_draw_pieces", "offer_draw_for_egtb_zero"} {
			if d.has(k) {
				t.r.note(KindSame, ln(k), key(k), "lichess-bot neither offers nor accepts draws here, and game.draw.accept: false and offer: false do the same")
			}
		}
	}

	// Resignation: lichess-bot resigns at a score at or below resign_score
	// (negative), ponderosa at or below -below_cp.
	below := -resignScore
	if below < 100 || below > 100000 {
		nb := min(max(below, 100), 100000)
		t.r.note(KindChanged, ln("resign_score"), key("resign_score"),
			"%g: ponderosa's game.resign.below_cp takes a losing margin of 100 to 100000 cp: written as below_cp: %g (resigns at %g)", resignScore, nb, -nb)
		below = nb
	}
	forMoves := resignMoves
	if forMoves < 1 || forMoves > 100 {
		nm := min(max(forMoves, 1), 100)
		t.r.note(KindChanged, ln("resign_moves"), key("resign_moves"), "%g is outside what ponderosa takes (1 to 100): written as for_moves: %g", resignMoves, nm)
		forMoves = nm
	}
	t.b.set(p("game.resign.enabled"), resign, from(d, "resign_enabled"))
	t.b.set(p("game.resign.below_cp"), int(below), inUnit(from(d, "resign_score"), "cp; here its negation"))
	t.b.set(p("game.resign.for_moves"), int(forMoves), from(d, "resign_moves"))
	t.b.set(p("game.resign.tablebase"), resign && egtbResign, from(d, "resign_enabled", "resign_for_egtb_minus_two"))
	if resign && egtbResign {
		t.r.note(KindChanged, ln("resign_for_egtb_minus_two"), key("resign_for_egtb_minus_two"),
			"true: written as game.resign.tablebase: true, by the tablebase results of the built-in engine's local tables (engine.syzygy, from lichess_bot_tbs) or online.tablebase")
	}
}

// tbMoveQualities are the values lichess-bot takes for
// engine.lichess_bot_tbs.syzygy.move_quality and gaviota.move_quality (it
// refuses to start with another).
var tbMoveQualities = []string{"best", "suggest"}

// tablebases translates engine.lichess_bot_tbs, the endgame tables that
// lichess-bot reads itself, whatever the engine: its Syzygy tables become
// engine.syzygy, which serves the built-in engine only (an external engine
// is given its tables through its own SyzygyPath option); Gaviota tables
// ponderosa does not read.
func (t *translator) tablebases(e *section) {
	if !e.written("lichess_bot_tbs") {
		return
	}
	tbs := e.sub("lichess_bot_tbs")
	if tbs.written("syzygy") {
		t.syzygyTables(tbs.sub("syzygy"))
	}
	if tbs.written("gaviota") {
		g := tbs.sub("gaviota")
		enabled := g.boolean("enabled", false)
		quality := g.str("move_quality", "best")
		g.take("paths")
		g.take("max_pieces")
		g.take("min_dtm_to_consider_as_wdl_1")
		g.rest()
		switch {
		case !slices.Contains(tbMoveQualities, quality):
			t.r.problem(g.keyLine("move_quality"), g.path+".move_quality", "%q is not one of %s", quality, strings.Join(tbMoveQualities, ", "))
		case enabled:
			t.r.note(KindNoEquivalent, g.line, g.path, "ponderosa reads Syzygy tables only (engine.syzygy), no Gaviota tables: left out")
		default:
			t.r.note(KindSame, g.line, g.path, "enabled is false: nothing to carry over")
		}
	}
	tbs.rest()
}

// syzygyTables translates engine.lichess_bot_tbs.syzygy into
// engine.syzygy: the directories (made absolute from the import
// directory) and, below 7 pieces, max_pieces as the search's probe limit.
func (t *translator) syzygyTables(s *section) {
	enabled := s.boolean("enabled", false)
	paths, _ := s.strList("paths")
	maxPieces := s.number("max_pieces", 7)
	quality := s.str("move_quality", "best")
	s.rest()
	if !slices.Contains(tbMoveQualities, quality) {
		t.r.problem(s.keyLine("move_quality"), s.path+".move_quality", "%q is not one of %s", quality, strings.Join(tbMoveQualities, ", "))
		return
	}
	switch {
	case !enabled:
		t.r.note(KindSame, s.line, s.path, "enabled is false: no tables to carry over (ponderosa reads none unless engine.syzygy.paths names them)")
		return
	case t.external:
		t.r.note(KindNoEquivalent, s.line, s.path,
			"lichess-bot reads its tables itself, whatever the engine; ponderosa's engine.syzygy serves its built-in engine only. "+
				"Give the external engine the tables through its own UCI option in engine.external.options "+
				"(SyzygyPath: the directories joined by ':', by ';' on Windows)")
		return
	case maxPieces < 3:
		t.r.note(KindChanged, s.keyLine("max_pieces"), s.path+".max_pieces",
			"%g: lichess-bot then never reads its tables (they hold 3 pieces or more): nothing carried over", maxPieces)
		return
	}
	var dirs []string
	for _, d := range paths {
		if d != "" {
			dirs = append(dirs, t.absolute(s.path+".paths", d, s.keyLine("paths")))
		}
	}
	if len(dirs) == 0 {
		t.r.note(KindChanged, s.line, s.path, "enabled, but no paths: nothing to carry over")
		return
	}
	t.b.set(p("engine.syzygy.paths"), dirs, "")
	t.b.mapping(p("engine.syzygy")).HeadComment = s.path + ".paths, with enabled: true"
	limit := 7
	if maxPieces < 7 {
		limit = int(math.Floor(maxPieces))
		t.r.note(KindSame, s.keyLine("max_pieces"), s.path+".max_pieces",
			"%g: written as engine.syzygy.probe_limit: %d (the built-in engine uses no table of more pieces, at the root nor in its search)", maxPieces, limit)
	}
	t.b.set(p("engine.syzygy.probe_limit"), limit, from(s, "max_pieces"))
	if quality == "suggest" {
		t.r.note(KindChanged, s.keyLine("move_quality"), s.path+".move_quality",
			"suggest: lichess-bot let the engine choose among the moves that keep the result; "+
				"ponderosa plays a win at once (the shortest) and searches briefly among the moves that keep a draw or a loss")
	}
}
