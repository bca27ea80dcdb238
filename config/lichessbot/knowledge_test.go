package lichessbot

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/config"
)

// bookDir makes a lichess-bot directory holding engines/book.bin and
// engines/960.bin, copies of a small Polyglot book.
func bookDir(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "engine", "book", "testdata", "gnuchess-sample.bin"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "engines"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"book.bin", "960.bin"} {
		if err := os.WriteFile(filepath.Join(dir, "engines", name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const builtinEngine = "engine:\n  protocol: homemade\n  name: mine\n"
const plainChallenge = "challenge: {variants: [standard], time_controls: [blitz], modes: [rated]}\n"

func importText(t *testing.T, in string, opts Options) *Result {
	t.Helper()
	res, err := Import([]byte(in), "c.yml", opts)
	if err != nil {
		t.Fatalf("Import: %v\n%s", err, in)
	}
	return res
}

// TestImportPolyglotBuiltin: with the built-in engine playing, lichess-bot's
// books become engine.book: paths from lichess-bot's directory, per
// variant, the selection, min_weight and max_depth in plies.
func TestImportPolyglotBuiltin(t *testing.T) {
	dir := bookDir(t)
	in := builtinEngine + `  polyglot:
    enabled: true
    book:
      standard:
        - engines/book.bin
      chess960: engines/960.bin
      atomic: [engines/atomic.bin]
    selection: best_move
    min_weight: 3
    max_depth: 10
    normalization: none
` + plainChallenge
	res := importText(t, in, Options{Dir: dir})
	cfg := loadYAML(t, res)
	b := cfg.Engine.Book
	if !slices.Equal(b.Files["standard"], []string{filepath.Join(dir, "engines", "book.bin")}) ||
		!slices.Equal(b.Files["chess960"], []string{filepath.Join(dir, "engines", "960.bin")}) || len(b.Files) != 2 {
		t.Errorf("book files %v", b.Files)
	}
	if b.Selection != "best_move" || b.MinWeight != 3 || b.MaxDepth != 20 {
		t.Errorf("selection %q min_weight %d max_depth %d, want best_move 3 20", b.Selection, b.MinWeight, b.MaxDepth)
	}
	// lichess-bot asks its books while the game has at most max_depth*2-1
	// plies (engine_wrapper.get_book_move); engine/book asks while
	// ply+1 <= MaxDepth (book.Choose).
	for ply := 0; ply < 40; ply++ {
		if lb, here := ply <= 10*2-1, ply+1 <= b.MaxDepth; lb != here {
			t.Errorf("ply %d: lichess-bot asks the book %v, ponderosa %v", ply, lb, here)
		}
	}
	if n, ok := findNote(res, "engine.polyglot.book.atomic"); !ok || n.Kind != KindNoEquivalent {
		t.Errorf("the atomic book: %+v %v", n, ok)
	}
	if n, ok := findNote(res, "engine.polyglot"); ok {
		t.Errorf("engine.polyglot reported: %+v", n)
	}
}

func TestImportPolyglotMinWeight(t *testing.T) {
	dir := bookDir(t)
	book := func(sel, norm string, weight int) string {
		return builtinEngine + "  polyglot: {enabled: true, book: {standard: engines/book.bin}, selection: " + sel +
			", normalization: " + norm + ", min_weight: " + strconv.Itoa(weight) + "}\n" + plainChallenge
	}
	for _, tc := range []struct {
		name, sel, norm string
		weight, want    int
		kind            Kind
		noteKey         string
	}{
		{"uniform, none: exact", "uniform_random", "none", 7, 7, -1, ""},
		{"best, max: a percentage", "best_move", "max", 10, 0, KindChanged, "engine.polyglot.normalization"},
		{"uniform, sum: a percentage", "uniform_random", "sum", 10, 0, KindChanged, "engine.polyglot.normalization"},
		{"weighted: not used by lichess-bot", "weighted_random", "none", 50, 0, KindSame, "engine.polyglot.min_weight"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := importText(t, book(tc.sel, tc.norm, tc.weight), Options{Dir: dir})
			cfg := loadYAML(t, res)
			if cfg.Engine.Book.MinWeight != tc.want || cfg.Engine.Book.Selection != tc.sel {
				t.Errorf("min_weight %d selection %q, want %d %q", cfg.Engine.Book.MinWeight, cfg.Engine.Book.Selection, tc.want, tc.sel)
			}
			if tc.noteKey == "" {
				return
			}
			if n, ok := findNote(res, tc.noteKey); !ok || n.Kind != tc.kind {
				t.Errorf("note %s: %+v %v", tc.noteKey, n, ok)
			}
		})
	}
}

// TestImportPolyglotNotCarried: no book is written when lichess-bot used
// none (disabled, max_depth 0), and with an external engine the books are
// reported with where such an engine takes its book.
func TestImportPolyglotNotCarried(t *testing.T) {
	dir := bookDir(t)
	pg := "  polyglot: {enabled: %s, book: {standard: [engines/book.bin]}, max_depth: %s}\n"
	for _, tc := range []struct {
		name, engine, enabled, depth string
		kind                         Kind
		key, msg                     string
	}{
		{"disabled", builtinEngine, "false", "8", KindSame, "engine.polyglot", "enabled is false"},
		{"max_depth 0", builtinEngine, "true", "0", KindChanged, "engine.polyglot.max_depth", "never asks its books"},
		{"external engine", "engine:\n  dir: /\n  name: bin/sh\n", "true", "8", KindNoEquivalent, "engine.polyglot", "OwnBook"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.engine + strings.Replace(strings.Replace(pg, "%s", tc.enabled, 1), "%s", tc.depth, 1) + plainChallenge
			res := importText(t, in, Options{Dir: dir})
			cfg := loadYAML(t, res)
			if len(cfg.Engine.Book.Files) != 0 || strings.Contains(string(res.YAML), "book:") {
				t.Errorf("a book was written:\n%s", res.YAML)
			}
			if n, ok := findNote(res, tc.key); !ok || n.Kind != tc.kind || !strings.Contains(n.Msg, tc.msg) {
				t.Errorf("note %s: %+v %v", tc.key, n, ok)
			}
			if slices.Contains(notesOf(res, KindLater), "engine.polyglot") {
				t.Error("engine.polyglot still reported as not yet supported")
			}
		})
	}
}

// TestImportDrawOrResign: engine.draw_or_resign becomes game.draw and
// game.resign, with lichess-bot's defaults when absent (it accepts no draw
// unless offer_draw_enabled, where ponderosa's default accepts).
func TestImportDrawOrResign(t *testing.T) {
	t.Run("absent", func(t *testing.T) {
		cfg := loadYAML(t, importText(t, builtinEngine+plainChallenge, Options{}))
		g := cfg.Game
		if g.Draw.Accept || g.Draw.Offer || g.Resign.Enabled || g.Resign.Tablebase || g.Resign.BelowCP != 1000 || g.Resign.ForMoves != 3 {
			t.Errorf("draw %+v resign %+v, want accept and offer false, resign off at 1000 cp for 3 moves", g.Draw, g.Resign)
		}
		if !config.Default().Game.Draw.Accept {
			t.Log("ponderosa's default accepts no draw either now: this case proves less")
		}
	})
	t.Run("set", func(t *testing.T) {
		in := builtinEngine + `  draw_or_resign:
    resign_enabled: true
    resign_score: -450
    resign_moves: 4
    resign_for_egtb_minus_two: false
    offer_draw_enabled: true
    offer_draw_score: 20
    offer_draw_moves: 8
    offer_draw_pieces: 12
` + plainChallenge
		res := importText(t, in, Options{})
		g := loadYAML(t, res).Game
		if !g.Draw.Accept || g.Draw.WithinCP != 20 || g.Draw.AfterMove != 8 || !g.Draw.Tablebase {
			t.Errorf("draw %+v, want accept within 20 cp from move 8, and by tablebase", g.Draw)
		}
		// lichess-bot offers with every move whose last 8 scores were
		// within 20 cp, with at most 12 pieces: no move number, no pause,
		// no clock rule of its own.
		if !g.Draw.Offer || g.Draw.OfferWithinCP != 20 || g.Draw.OfferMoves != 8 || g.Draw.OfferPieces != 12 ||
			g.Draw.OfferAfterMove != 0 || g.Draw.OfferPauseMoves != 0 || g.Draw.OfferMinOpponentClock != 0 {
			t.Errorf("draw offers %+v, want after 8 moves within 20 cp with at most 12 pieces, nothing else", g.Draw)
		}
		if !g.Resign.Enabled || g.Resign.BelowCP != 450 || g.Resign.ForMoves != 4 || g.Resign.Tablebase {
			t.Errorf("resign %+v, want at -450 cp for 4 moves, not by tablebase", g.Resign)
		}
		for key, kind := range map[string]Kind{
			"engine.draw_or_resign.offer_draw_enabled":       KindChanged, // offers, and accepts by its own rule
			"engine.draw_or_resign.offer_draw_moves":         KindChanged,
			"engine.draw_or_resign.offer_draw_for_egtb_zero": KindChanged, // online tablebase only; blessed losses, losses
		} {
			if n, ok := findNote(res, key); !ok || n.Kind != kind {
				t.Errorf("%s: %+v %v, want kind %d", key, n, ok, kind)
			}
		}
		// Carried over as they are: named in the YAML's comments only.
		for _, key := range []string{"engine.draw_or_resign.offer_draw_pieces", "engine.draw_or_resign.resign_for_egtb_minus_two"} {
			if n, ok := findNote(res, key); ok {
				t.Errorf("%s: noted %+v, want it carried over as it is", key, n)
			}
			if !strings.Contains(string(res.YAML), key) {
				t.Errorf("%s is not named in the YAML", key)
			}
		}
	})
	t.Run("tablebase resign", func(t *testing.T) {
		in := builtinEngine + "  draw_or_resign: {resign_enabled: true, offer_draw_enabled: true, offer_draw_for_egtb_zero: false, offer_draw_pieces: 40}\n" + plainChallenge
		res := importText(t, in, Options{})
		g := loadYAML(t, res).Game
		// lichess-bot's defaults: resign_for_egtb_minus_two true.
		if !g.Resign.Tablebase || g.Draw.Tablebase || g.Draw.OfferPieces != 0 {
			t.Errorf("resign %+v draw %+v, want resigning by tablebase, no draws by tablebase, offers with any number of pieces", g.Resign, g.Draw)
		}
		if n, ok := findNote(res, "engine.draw_or_resign.resign_for_egtb_minus_two"); !ok || n.Kind != KindChanged || !strings.Contains(n.Msg, "online.tablebase") {
			t.Errorf("resign_for_egtb_minus_two: %+v %v", n, ok)
		}
		if n, ok := findNote(res, "engine.draw_or_resign.offer_draw_pieces"); !ok || n.Kind != KindSame {
			t.Errorf("offer_draw_pieces 40: %+v %v", n, ok)
		}
	})
	t.Run("too few pieces", func(t *testing.T) {
		in := builtinEngine + "  draw_or_resign: {offer_draw_enabled: true, offer_draw_pieces: 1}\n" + plainChallenge
		res := importText(t, in, Options{})
		g := loadYAML(t, res).Game
		if g.Draw.Accept || g.Draw.Offer {
			t.Errorf("draw %+v: lichess-bot never offers or accepts with at most 1 piece", g.Draw)
		}
		if n, ok := findNote(res, "engine.draw_or_resign.offer_draw_pieces"); !ok || n.Kind != KindChanged {
			t.Errorf("offer_draw_pieces 1: %+v %v", n, ok)
		}
		if slices.Contains(notesOf(res, KindLater), "engine.draw_or_resign") {
			t.Error("draw_or_resign still reported whole as not yet supported")
		}
	})
	t.Run("out of range", func(t *testing.T) {
		in := builtinEngine + "  draw_or_resign: {resign_enabled: true, resign_score: 50, resign_moves: 0, offer_draw_enabled: true, offer_draw_score: -5}\n" + plainChallenge
		res := importText(t, in, Options{})
		g := loadYAML(t, res).Game
		// A positive resign_score resigns at a score of +50 or less in
		// lichess-bot: the nearest here is the smallest margin.
		if g.Resign.BelowCP != 100 || g.Resign.ForMoves != 1 {
			t.Errorf("resign %+v, want below_cp 100 for 1 move", g.Resign)
		}
		if g.Draw.Accept || g.Draw.Offer {
			t.Error("a negative offer_draw_score never offers or accepts in lichess-bot, but accept or offer is true")
		}
		for _, k := range []string{"resign_score", "resign_moves", "offer_draw_score"} {
			if n, ok := findNote(res, "engine.draw_or_resign."+k); !ok || n.Kind != KindChanged {
				t.Errorf("%s: %+v %v", k, n, ok)
			}
		}
	})
}

// TestImportManagedUCIOptions: lichess-bot (python-chess) never sends
// MultiPV, Ponder, UCI_Chess960 or UCI_Variant from uci_options: none is
// carried over, each reported.
func TestImportManagedUCIOptions(t *testing.T) {
	in := "engine:\n  dir: /\n  name: bin/sh\n  uci_options:\n    MultiPV: 3\n    UCI_Variant: atomic\n    Threads: 2\n" + plainChallenge
	res := importText(t, in, Options{})
	cfg := loadYAML(t, res)
	if o := cfg.Engine.External.Options; len(o) != 1 || o["Threads"] != "2" {
		t.Errorf("options %v, want only Threads", o)
	}
	if n, ok := findNote(res, "engine.uci_options.MultiPV"); !ok || n.Msg != "lichess-bot never sent it: left out" {
		t.Errorf("MultiPV: %+v %v", n, ok)
	}
	if n, ok := findNote(res, "engine.uci_options.UCI_Variant"); !ok || !strings.Contains(n.Msg, "lichess-bot never sent it") {
		t.Errorf("UCI_Variant: %+v %v", n, ok)
	}
}

// TestImportYAML11Booleans: lichess-bot's PyYAML reads yes/no/on/off (and
// True/False) as booleans; python-chess sends them to the engine as true
// and false, and an engine_options value is written as Python prints it.
func TestImportYAML11Booleans(t *testing.T) {
	in := `engine:
  dir: /
  name: bin/sh
  engine_options:
    flag: yes
    other: False
    text: "no"
  uci_options:
    UCI_ShowWDL: yes
    OwnBook: Off
    Big: True
    Quoted: "on"
    Name: yess
` + plainChallenge
	res := importText(t, in, Options{})
	x := loadYAML(t, res).Engine.External
	want := map[string]string{"UCI_ShowWDL": "true", "OwnBook": "false", "Big": "true", "Quoted": "on", "Name": "yess"}
	for k, v := range want {
		if x.Options[k] != v {
			t.Errorf("option %s = %q, want %q", k, x.Options[k], v)
		}
	}
	if !slices.Equal(x.Args, []string{"--flag=True", "--other=False", "--text=no"}) {
		t.Errorf("args %q", x.Args)
	}
}

// TestImportAccountsForEveryKeyBuiltin: the file of every lichess-bot key
// with an XBoard engine, so that the built-in engine plays and the books
// and draw rules are translated: every key is still accounted for.
func TestImportAccountsForEveryKeyBuiltin(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "every-key.yml"))
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), `protocol: "uci"`, `protocol: "xboard"`, 1))
	dir := bookDir(t)
	if err := os.Rename(filepath.Join(dir, "engines", "book.bin"), filepath.Join(dir, "engines", "book1.bin")); err != nil {
		t.Fatal(err)
	}
	res := importText(t, string(data), Options{Dir: dir})
	checkAccounted(t, data, res)
	if b := loadYAML(t, res).Engine.Book; len(b.Files["standard"]) != 1 || b.MaxDepth != 20 || b.Selection != "uniform_random" {
		t.Errorf("book %+v", b)
	}
}

// tbDir makes a lichess-bot directory holding engines/syzygy with the
// KQvK tables of engine/syzygy's tests.
func tbDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "engines", "syzygy"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"KQvK.rtbw", "KQvK.rtbz"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "engine", "syzygy", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "engines", "syzygy", name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestImportLichessBotTBs: with the built-in engine playing, lichess-bot's
// Syzygy tables become engine.syzygy (paths from lichess-bot's directory;
// max_pieces below 7 as the probe limit, noted as carried over as it is;
// suggest noted as played at once); Gaviota tables have no equivalent.
func TestImportLichessBotTBs(t *testing.T) {
	dir := tbDir(t)
	for _, tc := range []struct {
		name      string
		syzygy    string
		limit     int
		changed   []string // notes of kind KindChanged expected
		unchanged []string // keys with no note
		same      []string // notes of kind KindSame expected
	}{
		{"defaults", "{enabled: true, paths: [engines/syzygy]}", 7, nil,
			[]string{"engine.lichess_bot_tbs.syzygy", "engine.lichess_bot_tbs.syzygy.max_pieces", "engine.lichess_bot_tbs.syzygy.move_quality"}, nil},
		{"5 pieces, suggest", "{enabled: true, paths: engines/syzygy, max_pieces: 5, move_quality: suggest}", 5,
			[]string{"engine.lichess_bot_tbs.syzygy.move_quality"}, []string{"engine.lichess_bot_tbs.syzygy"},
			[]string{"engine.lichess_bot_tbs.syzygy.max_pieces"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := builtinEngine + "  lichess_bot_tbs:\n    syzygy: " + tc.syzygy + "\n    gaviota: {enabled: true, paths: [engines/gaviota], max_pieces: 5, min_dtm_to_consider_as_wdl_1: 120}\n" + plainChallenge
			res := importText(t, in, Options{Dir: dir})
			cfg := loadYAML(t, res)
			s := cfg.Engine.Syzygy
			if !slices.Equal(s.Paths, []string{filepath.Join(dir, "engines", "syzygy")}) || s.ProbeLimit != tc.limit {
				t.Errorf("engine.syzygy paths %v probe_limit %d, want [%s] %d:\n%s", s.Paths, s.ProbeLimit, filepath.Join(dir, "engines", "syzygy"), tc.limit, res.YAML)
			}
			if tb, err := s.Open(); err != nil || tb == nil || tb.MaxPieces() != 3 {
				t.Errorf("the imported tables do not open: %v", err)
			}
			for _, k := range tc.changed {
				if n, ok := findNote(res, k); !ok || n.Kind != KindChanged {
					t.Errorf("%s: %+v %v, want a changed note", k, n, ok)
				}
			}
			for _, k := range tc.unchanged {
				if n, ok := findNote(res, k); ok {
					t.Errorf("%s reported: %+v", k, n)
				}
			}
			for _, k := range tc.same {
				if n, ok := findNote(res, k); !ok || n.Kind != KindSame || !strings.Contains(n.Msg, "probe_limit: "+strconv.Itoa(tc.limit)) {
					t.Errorf("%s: %+v %v, want a same note naming probe_limit: %d", k, n, ok, tc.limit)
				}
			}
			if n, ok := findNote(res, "engine.lichess_bot_tbs.gaviota"); !ok || n.Kind != KindNoEquivalent || !strings.Contains(n.Msg, "no Gaviota") {
				t.Errorf("gaviota: %+v %v", n, ok)
			}
			if later := notesOf(res, KindLater); len(later) != 0 {
				t.Errorf("not-yet-supported notes %v", later)
			}
		})
	}
}

// TestImportLichessBotTBsNotCarried: no engine.syzygy when the tables are
// off, read for an external engine (which gets them through its own
// SyzygyPath option), never read (max_pieces below 3) or have no paths; a
// move_quality lichess-bot refuses is a problem.
func TestImportLichessBotTBsNotCarried(t *testing.T) {
	dir := tbDir(t)
	const external = "engine:\n  dir: /\n  name: bin/sh\n"
	for _, tc := range []struct {
		name, engine, syzygy string
		kind                 Kind
		key, msg             string
	}{
		{"disabled", builtinEngine, "{enabled: false, paths: [engines/syzygy]}", KindSame, "engine.lichess_bot_tbs.syzygy", "enabled is false"},
		{"external engine", external, "{enabled: true, paths: [engines/syzygy]}", KindNoEquivalent, "engine.lichess_bot_tbs.syzygy", "SyzygyPath"},
		{"max_pieces 2", builtinEngine, "{enabled: true, paths: [engines/syzygy], max_pieces: 2}", KindChanged, "engine.lichess_bot_tbs.syzygy.max_pieces", "never reads"},
		{"no paths", builtinEngine, "{enabled: true, paths: []}", KindChanged, "engine.lichess_bot_tbs.syzygy", "no paths"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.engine + "  lichess_bot_tbs:\n    syzygy: " + tc.syzygy + "\n" + plainChallenge
			res := importText(t, in, Options{Dir: dir})
			cfg := loadYAML(t, res)
			if len(cfg.Engine.Syzygy.Paths) != 0 || strings.Contains(string(res.YAML), "syzygy:") {
				t.Errorf("tables were written:\n%s", res.YAML)
			}
			if n, ok := findNote(res, tc.key); !ok || n.Kind != tc.kind || !strings.Contains(n.Msg, tc.msg) {
				t.Errorf("note %s: %+v %v", tc.key, n, ok)
			}
		})
	}
	in := builtinEngine + "  lichess_bot_tbs:\n    syzygy: {enabled: true, paths: [engines/syzygy], move_quality: good}\n" + plainChallenge
	_, err := Import([]byte(in), "c.yml", Options{Dir: dir})
	var probs config.Errors
	if !errors.As(err, &probs) || len(probs) != 1 || probs[0].Key != "engine.lichess_bot_tbs.syzygy.move_quality" {
		t.Errorf("move_quality good: %v, want one problem, engine.lichess_bot_tbs.syzygy.move_quality", err)
	}
}
