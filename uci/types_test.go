package uci

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseInfo(t *testing.T) {
	tests := []struct {
		line string
		want Info
		ok   bool
	}{
		{"bestmove e2e4", Info{}, false},
		{"", Info{}, false},
		{"info", Info{}, true},
		{
			"info depth 20 seldepth 31 multipv 1 score cp 37 nodes 2150386 nps 1013374 hashfull 833 tbhits 0 time 2122 pv e2e4 e7e5 g1f3",
			Info{Depth: 20, SelDepth: 31, MultiPV: 1, Score: CP(37), Nodes: 2150386, NPS: 1013374, HashFull: 833,
				Time: 2122 * time.Millisecond, PV: []string{"e2e4", "e7e5", "g1f3"}},
			true,
		},
		{"info depth 5 score mate -3 upperbound pv h7h8q", Info{Depth: 5, Score: Score{ScoreMate, -3, BoundUpper}, PV: []string{"h7h8q"}}, true},
		{"info score cp 15 lowerbound depth 7", Info{Depth: 7, Score: Score{ScoreCP, 15, BoundLower}}, true},
		{"info depth 3 currmove e2e4 currmovenumber 1", Info{Depth: 3, CurrMove: "e2e4", CurrMoveNumber: 1}, true},
		// pv stops at the first token that is not a move
		{"info pv e2e4 e7e5 wdl 10 980 10", Info{PV: []string{"e2e4", "e7e5"}}, true},
		// string takes the rest of the line, spacing kept, even keywords
		{"info depth 2 string  hello   depth 9 pv a2a3", Info{Depth: 2, Text: "hello   depth 9 pv a2a3"}, true},
		// malformed values are skipped, the rest is kept
		{"info depth x seldepth 4 score cp nodes 10 score mate", Info{SelDepth: 4, Nodes: 10}, true},
		{"info depth 99999999999999999999 nodes 7", Info{Nodes: 7}, true},
		{"info refutation d1h5 g6h5 depth 4", Info{Depth: 4}, true},
	}
	for _, tc := range tests {
		got, ok := ParseInfo(tc.line)
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseInfo(%q) = %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

func TestInfoStringRoundTrip(t *testing.T) {
	infos := []Info{
		{Depth: 12, SelDepth: 18, MultiPV: 1, Score: CP(-35), Nodes: 123456, NPS: 654321, HashFull: 12,
			Time: 189 * time.Millisecond, PV: []string{"e2e4", "c7c5"}},
		{Depth: 30, Score: Score{ScoreMate, 4, BoundLower}, Nodes: 1, Time: 0, TBHits: 3},
		{Depth: 1, CurrMove: "a7a8n", CurrMoveNumber: 17},
		{Text: "hello world"},
		{Depth: 3, Score: Score{ScoreCP, 0, BoundUpper}, Nodes: 10, Time: 5 * time.Millisecond, Text: "x"},
	}
	for _, in := range infos {
		line := in.String()
		got, ok := ParseInfo(line)
		if !ok || !reflect.DeepEqual(got, in) {
			t.Errorf("round trip of %+v via %q gave %+v", in, line, got)
		}
	}
	if got := (Info{Text: "a\nbestmove e2e4"}).String(); strings.Contains(got, "\n") {
		t.Errorf("info string kept a newline: %q", got)
	}
	want := "info depth 12 seldepth 18 multipv 1 score cp -35 nodes 123456 nps 654321 hashfull 12 time 189 pv e2e4 c7c5"
	if got := infos[0].String(); got != want {
		t.Errorf("String() = %q\nwant %q", got, want)
	}
}

func TestScoreString(t *testing.T) {
	for _, tc := range []struct {
		s    Score
		want string
	}{
		{Score{}, ""},
		{CP(0), "cp 0"},
		{CP(-120), "cp -120"},
		{Mate(3), "mate 3"},
		{Mate(-1), "mate -1"},
		{Score{ScoreCP, 40, BoundLower}, "cp 40 lowerbound"},
		{Score{ScoreMate, -2, BoundUpper}, "mate -2 upperbound"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.s, got, tc.want)
		}
	}
}

func TestLimitsCommand(t *testing.T) {
	for _, tc := range []struct {
		l    GoLimits
		want string
	}{
		{GoLimits{}, "go"},
		{GoLimits{Infinite: true}, "go infinite"},
		{GoLimits{Ponder: true, WTime: 60 * time.Second, BTime: 50500 * time.Millisecond, WInc: time.Second, BInc: 2 * time.Second, MovesToGo: 20},
			"go ponder wtime 60000 btime 50500 winc 1000 binc 2000 movestogo 20"},
		{GoLimits{BTime: time.Second}, "go wtime 0 btime 1000"},
		{GoLimits{Depth: 7, Nodes: 100000, Mate: 3, MoveTime: 250 * time.Millisecond, Deadline: time.Hour},
			"go depth 7 nodes 100000 mate 3 movetime 250"},
		{GoLimits{SearchMoves: []string{"e2e4", "d2d4"}, Depth: 1}, "go depth 1 searchmoves e2e4 d2d4"},
	} {
		if got := tc.l.Command(); got != tc.want {
			t.Errorf("%+v.Command() = %q, want %q", tc.l, got, tc.want)
		}
	}
}

// Variant engines write drops and king promotions; the driver of external
// engines reads them, in bestmove and in a principal variation.
func TestIsVariantMove(t *testing.T) {
	good := []string{"e2e4", "a7a8q", "0000", "e7e8k", "P@e4", "N@f3", "K@a1", "Q@h8"}
	bad := []string{"", "p@e4", "P@e9", "P@i4", "X@e4", "P@e4q", "@e4", "Pe4", "e7e8x", "e2e4kk", "(none)"}
	for _, m := range good {
		if !IsVariantMove(m) {
			t.Errorf("IsVariantMove(%q) = false", m)
		}
	}
	for _, m := range bad {
		if IsVariantMove(m) {
			t.Errorf("IsVariantMove(%q) = true", m)
		}
	}
	info, ok := ParseInfo("info depth 3 currmove N@f3 pv N@f3 e7e6 P@e4 e6e5")
	if !ok || info.CurrMove != "N@f3" || strings.Join(info.PV, " ") != "N@f3 e7e6 P@e4 e6e5" {
		t.Errorf("ParseInfo with drops: %+v", info)
	}
	var r ExternalResult
	if err := r.setBest("bestmove P@e4 ponder N@c6"); err != nil || r.BestMove != "P@e4" || r.PonderMove != "N@c6" {
		t.Errorf("setBest with drops: %+v, %v", r, err)
	}
}

func TestIsMove(t *testing.T) {
	good := []string{"e2e4", "a7a8q", "h2h1n", "e1g1", "e1h1", "0000"}
	bad := []string{"", "e2", "e2e9", "i2e4", "e2e4k", "e2e4Q", "e2-e4", "0-0", "(none)", "e2e4q1"}
	for _, m := range good {
		if !IsMove(m) {
			t.Errorf("IsMove(%q) = false", m)
		}
	}
	for _, m := range bad {
		if IsMove(m) {
			t.Errorf("IsMove(%q) = true", m)
		}
	}
}

func TestParseOption(t *testing.T) {
	tests := []struct {
		line    string
		want    OptionSpec
		wantErr bool
	}{
		{"option name Hash type spin default 16 min 1 max 33554432",
			OptionSpec{Name: "Hash", Type: OptionSpin, Default: "16", Min: 1, Max: 33554432}, false},
		{"option name Clear Hash type button", OptionSpec{Name: "Clear Hash", Type: OptionButton}, false},
		{"option name UCI_Chess960 type check default false", OptionSpec{Name: "UCI_Chess960", Type: OptionCheck, Default: "false"}, false},
		{"option name SyzygyPath type string default <empty>", OptionSpec{Name: "SyzygyPath", Type: OptionString}, false},
		{"option name Debug Log File type string default", OptionSpec{Name: "Debug Log File", Type: OptionString}, false},
		{"option name Book File type string default my book.bin", OptionSpec{Name: "Book File", Type: OptionString, Default: "my book.bin"}, false},
		{"option name Style type combo default Normal var Solid var Normal var Very Risky",
			OptionSpec{Name: "Style", Type: OptionCombo, Default: "Normal", Vars: []string{"Solid", "Normal", "Very Risky"}}, false},
		{"option name X type spin default 1", OptionSpec{}, true},
		{"option name X type spin default 1 min a max 3", OptionSpec{}, true},
		{"option name X type slider", OptionSpec{}, true},
		{"option name type check", OptionSpec{}, true},
		{"option name X", OptionSpec{}, true},
		{"option", OptionSpec{}, true},
	}
	for _, tc := range tests {
		got, err := ParseOption(tc.line)
		if (err != nil) != tc.wantErr || !tc.wantErr && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseOption(%q) = %+v, %v; want %+v (error %v)", tc.line, got, err, tc.want, tc.wantErr)
		}
		if err == nil {
			// The spec prints back to a line that parses to the same spec.
			again, err := ParseOption(got.String())
			if err != nil || !reflect.DeepEqual(again, got) {
				t.Errorf("round trip of %q via %q: %+v, %v", tc.line, got.String(), again, err)
			}
		}
	}
}

func TestOptionValidate(t *testing.T) {
	spin := OptionSpec{Name: "Hash", Type: OptionSpin, Min: 1, Max: 1024}
	check := OptionSpec{Name: "Ponder", Type: OptionCheck}
	combo := OptionSpec{Name: "Style", Type: OptionCombo, Vars: []string{"Solid", "Risky"}}
	str := OptionSpec{Name: "Path", Type: OptionString}
	button := OptionSpec{Name: "Clear", Type: OptionButton}
	for _, tc := range []struct {
		o       OptionSpec
		in      string
		want    string
		wantErr bool
	}{
		{spin, "64", "64", false},
		{spin, " 1 ", "1", false},
		{spin, "0", "", true},
		{spin, "1025", "", true},
		{spin, "1e3", "", true},
		{check, "True", "true", false},
		{check, "false", "false", false},
		{check, "1", "", true},
		{combo, "risky", "Risky", false},
		{combo, "Wild", "", true},
		{str, "a b  c", "a b  c", false},
		{str, "a\rb", "", true},
		{button, "anything", "", false},
	} {
		got, err := tc.o.Validate(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("%s.Validate(%q) = %q, %v; want %q (error %v)", tc.o.Name, tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func BenchmarkParseInfo(b *testing.B) {
	line := "info depth 24 seldepth 33 multipv 1 score cp 31 nodes 4512385 nps 1201275 hashfull 912 tbhits 0 time 3756 pv e2e4 e7e5 g1f3 b8c6 f1b5 g8f6 e1g1 f6e4 f1e1 e4d6"
	for b.Loop() {
		ParseInfo(line)
	}
}

func BenchmarkInfoString(b *testing.B) {
	in := Info{Depth: 24, SelDepth: 33, MultiPV: 1, Score: CP(31), Nodes: 4512385, NPS: 1201275, HashFull: 912,
		Time: 3756 * time.Millisecond, PV: strings.Fields("e2e4 e7e5 g1f3 b8c6 f1b5 g8f6 e1g1 f6e4 f1e1 e4d6")}
	for b.Loop() {
		_ = in.String()
	}
}
