package book

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

const pgnGames = `[Event "one \"quoted\" event"]
[Site "?"]
[Result "1-0"]

1. e4 {a comment
spanning lines} e5 $1 2. Nf3 (2. f4 exf4 (2... d5) 3. Nf3) 2... Nc6 ; rest of line ignored
3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 1-0

[Event "two"]
[Result "0-1"]

1.e4 c5!? 2.Nf3 d6 0-1

% an escape line
[Event "three, no result token"]
[Result "1/2-1/2"]

1. d4 d5 2. c4 e6

[Event "four"]
[Result "1/2-1/2"]
1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. 0-0 1/2-1/2

[Event "five, unfinished"]
[Result "*"]
1. e4 e5 *

[Event "six, another variant"]
[Variant "Atomic"]
[Result "1-0"]
1. e4 e5 1-0
`

func readGames(t *testing.T, text string) []*Game {
	t.Helper()
	pr := NewPGNReader(strings.NewReader(text))
	var out []*Game
	for {
		g, err := pr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
}

func TestPGNReader(t *testing.T) {
	games := readGames(t, pgnGames)
	if len(games) != 6 {
		t.Fatalf("%d games, want 6", len(games))
	}
	want := []struct {
		event, result, moves string
		line                 int
	}{
		{`one "quoted" event`, "1-0", "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7", 1},
		{"two", "0-1", "e4 c5!? Nf3 d6", 9},
		{"three, no result token", "1/2-1/2", "d4 d5 c4 e6", 15},
		{"four", "1/2-1/2", "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 0-0", 20},
		{"five, unfinished", "*", "e4 e5", 24},
		{"six, another variant", "1-0", "e4 e5", 28},
	}
	for i, w := range want {
		g := games[i]
		if g.Tags["Event"] != w.event || g.Result != w.result || strings.Join(g.Moves, " ") != w.moves || g.Line != w.line {
			t.Errorf("game %d: event %q result %q moves %q line %d, want %q %q %q %d",
				i+1, g.Tags["Event"], g.Result, strings.Join(g.Moves, " "), g.Line, w.event, w.result, w.moves, w.line)
		}
	}
}

// Make a book from the games, then read it back: the weights are
// 2*wins + draws for the side that played the move, and the filters hold.
func TestMakeReadRoundTrip(t *testing.T) {
	games := readGames(t, pgnGames)
	build := func(opt MakeOptions) (*Book, *Maker) {
		mk := NewMaker(opt)
		counted := 0
		for _, g := range games {
			ok, err := mk.AddGame(g)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				counted++
			}
		}
		if counted != 4 || mk.Games() != 4 {
			t.Fatalf("%d games counted, want 4 (unfinished and atomic skipped)", counted)
		}
		var buf bytes.Buffer
		if err := Write(&buf, mk.Entries()); err != nil {
			t.Fatal(err)
		}
		b, err := Parse("made", buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		return b, mk
	}
	weights := func(b *Book, line string) map[string]int {
		p := play(t, line)
		out := map[string]int{}
		for _, m := range b.Moves(p) {
			out[p.MoveToUCI(m.Move)] = m.Weight
		}
		return out
	}
	same := func(what string, got, want map[string]int) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: %v, want %v", what, got, want)
			return
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %v, want %v", what, got, want)
				return
			}
		}
	}

	b, _ := build(MakeOptions{})
	// e4: won (game 1), lost (2), drawn (4) → 2+0+1; d4 drawn → 1.
	same("start", weights(b, ""), map[string]int{"e2e4": 3, "d2d4": 1})
	// After e4, Black: e5 lost (1) and drawn (4) → 1; c5 won (2) → 2.
	same("after e4", weights(b, "e2e4"), map[string]int{"e7e5": 1, "c7c5": 2})
	// Castling read from "O-O" and "0-0": won (1), drawn (4) → 3, as e1h1.
	same("before castling", weights(b, "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6"), map[string]int{"e1g1": 3})
	p := play(t, "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6")
	if ms := b.Moves(p); len(ms) != 1 || !ms[0].Move.IsCastling() {
		t.Errorf("castling came back as %v", ms)
	}
	// Black's only move after castling lost its game: weight 0, left out.
	same("after castling", weights(b, "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1h1"), map[string]int{})

	// max_ply 2: only the first two plies of each game.
	b2, mk2 := build(MakeOptions{MaxPly: 2})
	if mk2.Positions() != 3 { // start, after e4, after d4
		t.Errorf("max_ply 2: %d positions, want 3", mk2.Positions())
	}
	same("max_ply 2, after e4 e5", weights(b2, "e2e4 e7e5"), map[string]int{})
	same("max_ply 2, after e4", weights(b2, "e2e4"), map[string]int{"e7e5": 1, "c7c5": 2})

	// min_games 2 drops the moves of one game; min_score 0.5 then keeps e4
	// (1.5/3) and drops e5 (0.5/2).
	b3, _ := build(MakeOptions{MinGames: 2, MinScore: 0.5})
	same("filters, start", weights(b3, ""), map[string]int{"e2e4": 3})
	same("filters, after e4", weights(b3, "e2e4"), map[string]int{})
	same("filters, before castling", weights(b3, "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6"), map[string]int{"e1g1": 3})
}

func TestMakeBadMove(t *testing.T) {
	mk := NewMaker(MakeOptions{})
	g := readGames(t, "[Result \"1-0\"]\n1. e4 e5 2. Ke3 1-0\n")[0]
	if ok, err := mk.AddGame(g); ok || err == nil || !strings.Contains(err.Error(), "ply 3") {
		t.Errorf("illegal move: %v, %v", ok, err)
	}
	if mk.Positions() != 0 {
		t.Error("a game with an illegal move was partly counted")
	}
	g = readGames(t, "[Result \"1-0\"]\n[FEN \"not a fen\"]\n1. e4 1-0\n")[0]
	if _, err := mk.AddGame(g); err == nil {
		t.Error("a bad FEN tag was accepted")
	}
	// A game from a FEN tag starts there.
	g = readGames(t, "[Result \"0-1\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 1\"]\n1... Kd7 2. e4 0-1\n")[0]
	if ok, err := mk.AddGame(g); !ok || err != nil {
		t.Fatalf("FEN game: %v, %v", ok, err)
	}
	p, _ := board.ParseFEN("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1")
	es := mk.Entries()
	if len(es) != 1 { // White's e4 lost: weight 0, left out
		t.Fatalf("entries %+v, want Kd7 only", es)
	}
	found := false
	for _, e := range es {
		if e.Key == Key(p) && e.Move == EncodeMove(board.NewMove(board.E8, board.D7)) && e.Weight == 2 {
			found = true
		}
	}
	if !found {
		t.Errorf("Kd7 with weight 2 not in %+v", es)
	}
}

// Weights above 65535 are scaled down per position, keeping the proportions
// within it: a position whose largest weight fits keeps its raw weights (it
// is not flattened by the book's most played position), and each position
// over the limit is scaled by its own largest weight.
func TestMakeScalesWeights(t *testing.T) {
	mk := NewMaker(MakeOptions{})
	mk.stats[1] = map[uint16]*counts{10: {wins: 100000}, 11: {draws: 100000}, 12: {draws: 1}}
	mk.stats[2] = map[uint16]*counts{10: {wins: 3, draws: 1}, 11: {wins: 1}}
	mk.stats[3] = map[uint16]*counts{10: {wins: 40000}, 11: {wins: 20000}}
	got := map[[2]uint64]uint16{}
	for _, e := range mk.Entries() {
		got[[2]uint64{e.Key, uint64(e.Move)}] = e.Weight
	}
	want := map[[2]uint64]uint16{
		{1, 10}: 65535, {1, 11}: 32768, {1, 12}: 1, // largest 200000: 100000 * 65535 / 200000 = 32767.5
		{2, 10}: 7, {2, 11}: 2, // raw: a global scale would make them 2 and 1
		{3, 10}: 65535, {3, 11}: 32768, // its own largest, 80000 (a global scale: 26214 and 13107)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%v: weight %d, want %d (all: %v)", k, got[k], w, got)
		}
	}
}

// A brace comment or a variation left open ends at the next game's tag
// section (a tag line at the first column after a blank line): the cut-off
// game is broken and refused by AddGame, and the games after it are read.
// A file that ends inside a comment or a variation gives a broken last game.
func TestPGNUnclosedCommentOrVariation(t *testing.T) {
	const text = `[Event "one, comment left open"]
[Result "1-0"]

1. e4 {a comment never closed e5 2. Nf3 1-0

[Event "two"]
[Result "0-1"]

1. d4 d5 0-1

[Event "three, variation left open"]
[Result "1/2-1/2"]

1. c4 (1. Nf3 d5 1/2-1/2
[Event "not a game: no blank line before it"]

[Event "four"]
[Result "1-0"]

1. e4 e5 1-0

[Event "five, comment open at the end"]
[Result "1-0"]

1. g3 { the file ends here
 [Event "not a game: not at the first column"]
`
	games := readGames(t, text)
	want := []struct {
		event, moves, broken string
		line                 int
	}{
		{"one, comment left open", "e4", "a { comment opened at line 4 is cut off by the tag section at line 6", 1},
		{"two", "d4 d5", "", 6},
		{"three, variation left open", "c4", "a ( variation opened at line 14 is cut off by the tag section at line 17", 11},
		{"four", "e4 e5", "", 17},
		{"five, comment open at the end", "g3", "the file ends inside a { comment opened at line 25", 22},
	}
	if len(games) != len(want) {
		for _, g := range games {
			t.Logf("%+v", g)
		}
		t.Fatalf("%d games, want %d", len(games), len(want))
	}
	mk := NewMaker(MakeOptions{})
	for i, w := range want {
		g := games[i]
		if g.Tags["Event"] != w.event || strings.Join(g.Moves, " ") != w.moves || g.Broken != w.broken || g.Line != w.line {
			t.Errorf("game %d: event %q moves %q broken %q line %d, want %q %q %q %d",
				i+1, g.Tags["Event"], strings.Join(g.Moves, " "), g.Broken, g.Line, w.event, w.moves, w.broken, w.line)
		}
		ok, err := mk.AddGame(g)
		if w.broken != "" && (ok || err == nil || !strings.Contains(err.Error(), w.broken)) {
			t.Errorf("game %d: broken game added: %v, %v", i+1, ok, err)
		}
		if w.broken == "" && (!ok || err != nil) {
			t.Errorf("game %d: %v, %v", i+1, ok, err)
		}
	}
	if mk.Games() != 2 {
		t.Errorf("%d games counted, want 2", mk.Games())
	}

	// A comment opened after a game's result and never closed: a broken
	// game with no moves, where the comment began.
	games = readGames(t, "[Result \"1-0\"]\n\n1. e4 1-0\n\n{ trailing\n")
	if len(games) != 2 || games[1].Broken != "the file ends inside a { comment opened at line 5" || games[1].Line != 5 ||
		len(games[1].Moves) != 0 {
		t.Errorf("trailing open comment: %+v", games)
	}
	// A variation with a comment inside, both open: the variation is named.
	games = readGames(t, "[Result \"1-0\"]\n\n1. e4 (1. d4 {x\n\n[Result \"0-1\"]\n\n1. d4 0-1\n")
	if len(games) != 2 || games[0].Broken != "a ( variation opened at line 3 is cut off by the tag section at line 5" ||
		games[1].Broken != "" || strings.Join(games[1].Moves, " ") != "d4" {
		t.Errorf("open variation with an open comment: %+v", games)
	}
}
