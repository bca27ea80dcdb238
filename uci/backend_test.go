package uci

import (
	"bytes"
	"context"
	"errors"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/search"
	"github.com/ponderosa-chess/ponderosa/internal/testsupport"
	"github.com/ponderosa-chess/ponderosa/ponder"
)

// The engine backend tests run the Server with the real search over pipes,
// as a GUI would (startServer and uciConn are in server_test.go).

const kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

func startEngine(t *testing.T) (*uciConn, *EngineBackend) {
	t.Helper()
	b := NewEngineBackend()
	t.Cleanup(b.Close)
	b.SetOption(OptHash, "8") // small and quick to clear
	return startServer(t, b), b
}

// bestmove extracts the moves of a "bestmove" line.
func bestmove(t *testing.T, line string) (best, ponder string) {
	t.Helper()
	f := strings.Fields(line)
	switch {
	case len(f) == 2 && f[0] == "bestmove":
		return f[1], ""
	case len(f) == 4 && f[0] == "bestmove" && f[2] == "ponder":
		return f[1], f[3]
	}
	t.Fatalf("malformed bestmove line %q", line)
	return "", ""
}

// lastPVMove returns the first move of the last info line with a pv.
func lastPVMove(lines []string) string {
	pv := ""
	for _, l := range lines {
		if in, ok := ParseInfo(l); ok && len(in.PV) > 0 {
			pv = in.PV[0]
		}
	}
	return pv
}

// lastLine returns the last line of lines.
func lastLine(lines []string) string { return lines[len(lines)-1] }

// checkLegalLine fails unless moves can be played in order from pos (pos is
// left unchanged).
func checkLegalLine(t *testing.T, pos *board.Position, moves []string) {
	t.Helper()
	p := pos.Clone()
	for i, s := range moves {
		m, err := p.ParseUCIMove(s)
		if err != nil {
			t.Fatalf("move %d of %v: %v", i+1, moves, err)
		}
		p.MakeMove(m)
	}
}

// perftNodes reads the "Nodes searched: N" total from perft output.
func perftNodes(t *testing.T, lines []string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(strings.TrimPrefix(lastLine(lines), "Nodes searched: "), 10, 64)
	if err != nil {
		t.Fatalf("perft total %q: %v", lastLine(lines), err)
	}
	return n
}

func TestEngineHandshakeListsOptions(t *testing.T) {
	c, _ := startEngine(t)
	c.send("uci")
	lines := c.untilLine("uciok")
	if !strings.HasPrefix(lines[0], "id name ") || !strings.HasPrefix(lines[1], "id author ") {
		t.Errorf("handshake starts %q", lines[:2])
	}
	want := map[string]OptionType{
		OptHash: OptionSpin, OptThreads: OptionSpin, OptPonder: OptionCheck, OptMultiPV: OptionSpin,
		OptChess960: OptionCheck, OptMoveOverhead: OptionSpin, OptClearHash: OptionButton, OptBackgroundPonder: OptionCheck,
		OptUseNNUE: OptionCheck, OptEvalFile: OptionString, OptOwnBook: OptionCheck, OptBookFile: OptionString,
		OptBookSelection: OptionCombo, OptBookMinWeight: OptionSpin, OptBookDepth: OptionSpin,
		OptSyzygyPath: OptionString, OptSyzygy50MoveRule: OptionCheck, OptSyzygyProbeDepth: OptionSpin, OptSyzygyProbeLimit: OptionSpin,
		OptLearnFile: OptionString,
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "option ") {
			continue
		}
		o, err := ParseOption(l)
		if err != nil {
			t.Errorf("announced option: %v", err)
			continue
		}
		if typ, ok := want[o.Name]; !ok || typ != o.Type {
			t.Errorf("unexpected option %q", l)
		}
		delete(want, o.Name)
	}
	if len(want) > 0 {
		t.Errorf("options not announced: %v", want)
	}
	c.send("isready")
	c.untilLine("readyok")
}

func TestEngineSetOption(t *testing.T) {
	b := NewEngineBackend()
	tests := []struct {
		name, value string
		err         error
	}{
		{"Hash", "16", nil},
		{"hash", "1", nil}, // names are case-insensitive
		{"Threads", "2", nil},
		{"Threads", "0", ErrBadOptionValue},
		{"MultiPV", "3", nil},
		{"Ponder", "true", nil},
		{"Ponder", "maybe", ErrBadOptionValue},
		{"UCI_Chess960", "true", nil},
		{"Move Overhead", "100", nil},
		{"Move Overhead", "-1", ErrBadOptionValue},
		{"Clear Hash", "", nil},
		{"Contempt", "10", ErrUnknownOption},
	}
	for _, tc := range tests {
		err := b.SetOption(tc.name, tc.value)
		if (tc.err == nil) != (err == nil) || (tc.err != nil && !errors.Is(err, tc.err)) {
			t.Errorf("SetOption(%q, %q) = %v, want %v", tc.name, tc.value, err, tc.err)
		}
	}
	opts := b.Engine().Options()
	if opts.HashMB != 1 || opts.Threads != 2 || b.gopts.MoveOverhead != 100*time.Millisecond {
		t.Errorf("engine options %+v, game options %+v, want Hash 1, Threads 2, overhead 100ms", opts, b.gopts)
	}
	if !b.Position().Chess960() {
		t.Error("UCI_Chess960 true did not switch the castling form")
	}
}

func TestEngineUnknownOptionIsInfoString(t *testing.T) {
	c, _ := startEngine(t)
	c.send("setoption name Contempt value 10", "isready")
	lines := c.untilLine("readyok")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "info string error: setoption Contempt") {
		t.Errorf("unknown option gave %q", lines)
	}
}

func TestEngineGoDepth(t *testing.T) {
	c, _ := startEngine(t)
	c.send("position startpos moves e2e4 e7e5", "go depth 4")
	lines := c.untilPrefix("bestmove")
	pos := testsupport.MustFEN(t, board.StartFEN, "e2e4", "e7e5")
	best, ponder := bestmove(t, lastLine(lines))
	line := []string{best}
	if ponder != "" {
		line = append(line, ponder)
	}
	checkLegalLine(t, pos, line)
	depths := 0
	for _, l := range lines[:len(lines)-1] {
		in, ok := ParseInfo(l)
		if !ok {
			t.Fatalf("not an info line: %q", l)
		}
		if in.Text != "" {
			continue
		}
		if in.Depth < 1 || in.Depth > 4 || len(in.PV) == 0 || in.Score.Kind == ScoreNone || in.MultiPV != 1 {
			t.Errorf("info line lacks depth, score, multipv or pv: %q", l)
		}
		checkLegalLine(t, pos, in.PV)
		if in.Depth == 4 && in.Score.Bound == BoundExact {
			depths++
			if in.PV[0] != best {
				t.Errorf("depth 4 pv %v does not start with bestmove %s", in.PV, best)
			}
		}
	}
	if depths != 1 {
		t.Errorf("%d exact depth-4 info lines, want 1:\n%s", depths, strings.Join(lines, "\n"))
	}
}

func TestEngineGoMovetimeAndClock(t *testing.T) {
	c, _ := startEngine(t)
	for _, tc := range []struct {
		fen   string
		moves []string
		goCmd string
	}{
		{kiwipete, nil, "go movetime 50"},
		{board.StartFEN, []string{"d2d4"}, "go wtime 1000 btime 1000 winc 10 binc 10"},
		{board.StartFEN, []string{"d2d4", "d7d5"}, "go wtime 200 btime 200 movestogo 5"},
		{board.StartFEN, nil, "go nodes 3000"},
	} {
		cmd := "position fen " + tc.fen
		if len(tc.moves) > 0 {
			cmd += " moves " + strings.Join(tc.moves, " ")
		}
		c.send(cmd, tc.goCmd)
		lines := c.untilPrefix("bestmove")
		best, ponder := bestmove(t, lastLine(lines))
		if lastPV := lastPVMove(lines); lastPV != best {
			t.Errorf("%s: last pv starts with %q, bestmove %s", tc.goCmd, lastPV, best)
		}
		line := []string{best}
		if ponder != "" {
			line = append(line, ponder)
		}
		checkLegalLine(t, testsupport.MustFEN(t, tc.fen, tc.moves...), line)
	}
}

func TestEngineMultiPV(t *testing.T) {
	c, _ := startEngine(t)
	c.send("setoption name MultiPV value 3", "position startpos", "go depth 3")
	lines := c.untilPrefix("bestmove")
	first := map[string]int{} // first pv move -> multipv index, at depth 3
	for _, l := range lines[:len(lines)-1] {
		in, _ := ParseInfo(l)
		if in.Depth == 3 && in.Score.Bound == BoundExact {
			first[in.PV[0]] = in.MultiPV
		}
	}
	seen := map[int]bool{}
	for _, k := range first {
		seen[k] = true
	}
	if len(first) != 3 || !seen[1] || !seen[2] || !seen[3] {
		t.Errorf("depth 3 lines %v, want 3 distinct moves as multipv 1..3:\n%s", first, strings.Join(lines, "\n"))
	}
}

func TestEngineBadPositionKeepsPrevious(t *testing.T) {
	c, b := startEngine(t)
	c.send("position fen "+kiwipete+" moves e1g1", "go perft 1")
	want := perftNodes(t, c.untilPrefix("Nodes searched"))
	wantFEN := b.Position().FEN()
	if want != 43 { // Kiwipete after O-O, black to move: 43 legal moves
		t.Fatalf("perft 1 after O-O = %d, want 43", want)
	}
	for _, bad := range []string{
		"position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves e2e4 e7e5 e1e2 e8e7 e2e4", // illegal last move
		"position startpos moves e2e5",                                      // illegal first move
		"position startpos moves e7e5",                                      // wrong side
		"position fen 8/8/8/8/8/8/8/8 w - - 0 1",                            // no kings
		"position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq -", // bad side
		"position fen 4k3/8/8/8/8/8/8/4K2R w Q - 0 1",                       // castling without its rook
		"position fen",
	} {
		c.send(bad, "isready")
		lines := c.untilLine("readyok")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "info string error: position") {
			t.Errorf("%q gave %q, want one info string error", bad, lines)
		}
		if got := b.Position().FEN(); got != wantFEN {
			t.Errorf("after %q the position is %s, want the previous %s", bad, got, wantFEN)
		}
	}
	c.send("go perft 1")
	if got := perftNodes(t, c.untilPrefix("Nodes searched")); got != want {
		t.Errorf("perft 1 after bad positions = %d, want %d (previous position)", got, want)
	}
}

func TestEnginePerft(t *testing.T) {
	c, _ := startEngine(t)
	c.send("position startpos", "go perft 3")
	lines := c.untilPrefix("Nodes searched")
	if got := perftNodes(t, lines); got != 8902 {
		t.Errorf("perft 3 = %d, want 8902", got)
	}
	moveLine := regexp.MustCompile(`^([a-h][1-8][a-h][1-8][qrbn]?): (\d+)$`)
	var sum uint64
	moves := 0
	for _, l := range lines[:len(lines)-2] {
		m := moveLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("divide line %q", l)
		}
		n, _ := strconv.ParseUint(m[2], 10, 64)
		sum += n
		moves++
	}
	if moves != 20 || sum != 8902 || lines[len(lines)-2] != "" {
		t.Errorf("divide: %d moves summing to %d (want 20, 8902), separator %q", moves, sum, lines[len(lines)-2])
	}
	c.send("go perft 13", "isready")
	if l := c.untilLine("readyok"); !strings.HasPrefix(l[0], "info string error: perft") {
		t.Errorf("perft 13 gave %q, want an error", l)
	}
}

func TestEnginePonder(t *testing.T) {
	c, _ := startEngine(t)
	// Ponder mode ignores the clock until ponderhit: the search runs on.
	c.send("position startpos moves e2e4", "go ponder wtime 2000 btime 2000")
	lines := c.untilPrefix("info depth 3 ")
	c.send("isready")
	lines = append(lines, c.untilLine("readyok")...)
	if hasPrefix(lines, "bestmove") {
		t.Fatalf("bestmove before ponderhit:\n%s", strings.Join(lines, "\n"))
	}
	// After ponderhit the search must end by itself under the clock.
	c.send("ponderhit")
	best, _ := bestmove(t, lastLine(c.untilPrefix("bestmove")))
	checkLegalLine(t, testsupport.MustFEN(t, board.StartFEN, "e2e4"), []string{best})

	// A ponder search that is not hit ends with stop (and a legal move).
	c.send("position startpos moves e2e4 c7c5", "go ponder movetime 100")
	lines = c.untilPrefix("info depth 2 ")
	c.send("isready")
	l := c.untilLine("readyok")
	if hasPrefix(l, "bestmove") {
		t.Fatalf("bestmove before stop: %q", l)
	}
	lines = append(lines, l...)
	c.send("stop")
	lines = append(lines, c.untilPrefix("bestmove")...)
	best, _ = bestmove(t, lastLine(lines))
	checkLegalLine(t, testsupport.MustFEN(t, board.StartFEN, "e2e4", "c7c5"), []string{best})
	if pv := lastPVMove(lines); pv != best {
		t.Errorf("stopped ponder search: bestmove %s, last pv starts with %q", best, pv)
	}

	// go infinite also waits for stop.
	c.send("go infinite")
	c.untilPrefix("info depth 2 ")
	c.send("isready")
	if l := c.untilLine("readyok"); hasPrefix(l, "bestmove") {
		t.Fatalf("bestmove before stop in infinite: %q", l)
	}
	c.send("stop")
	c.untilPrefix("bestmove")
}

func TestEnginePonderHitBeforeFirstIteration(t *testing.T) {
	// A ponderhit that comes before the search has even started must not be
	// lost (the search would ponder until stopped).
	b := NewEngineBackend()
	for i := 0; i < 5; i++ {
		hit := make(chan struct{})
		close(hit)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		best, _ := b.Go(ctx, GoParams{GoLimits: GoLimits{Ponder: true, MoveTime: 20 * time.Millisecond}, PonderHit: hit}, nil)
		lost := ctx.Err() != nil
		cancel()
		if lost {
			t.Fatal("ponderhit lost: the search ran until cancelled")
		}
		checkLegalLine(t, testsupport.MustFEN(t, board.StartFEN), []string{best})
	}
	// The same through the server.
	c, _ := startEngine(t)
	c.send("position startpos", "go ponder movetime 30", "ponderhit")
	best, _ := bestmove(t, lastLine(c.untilPrefix("bestmove")))
	checkLegalLine(t, testsupport.MustFEN(t, board.StartFEN), []string{best})
}

func TestEngineChess960Castling(t *testing.T) {
	const std = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
	// King on f1, rooks on b1 and h1: only Chess960 castling rights.
	const fr = "4k3/8/8/8/8/8/8/1R3K1R w HB - 0 1"
	tests := []struct {
		name          string
		chess960      bool
		fen           string
		searchmove    string // given in either form
		wantBest      string
		wantCastleOut []string // castling moves in the perft divide
	}{
		{"standard/king-to-target", false, std, "e1h1", "e1g1", []string{"e1g1", "e1c1"}},
		{"standard/king-takes-rook", true, std, "e1g1", "e1h1", []string{"e1h1", "e1a1"}},
		{"960 queenside", true, std, "e1c1", "e1a1", []string{"e1h1", "e1a1"}},
		// A Chess960 FEN is always written king-takes-rook: f1g1 is also a
		// plain king move there.
		{"960 FEN without the option", false, fr, "f1h1", "f1h1", []string{"f1h1", "f1b1"}},
		{"960 FEN with the option", true, fr, "f1b1", "f1b1", []string{"f1h1", "f1b1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := startEngine(t)
			c.send("setoption name UCI_Chess960 value "+strconv.FormatBool(tc.chess960),
				"position fen "+tc.fen, "go perft 1")
			lines := c.untilPrefix("Nodes searched")
			for _, w := range tc.wantCastleOut {
				if !contains(lines, w+": 1") {
					t.Errorf("divide lacks %q:\n%s", w+": 1", strings.Join(lines, "\n"))
				}
			}
			c.send("go depth 2 searchmoves " + tc.searchmove)
			if best, _ := bestmove(t, lastLine(c.untilPrefix("bestmove"))); best != tc.wantBest {
				t.Errorf("bestmove %s, want %s", best, tc.wantBest)
			}
			// Both input forms are accepted in position moves.
			c.send("position fen "+tc.fen+" moves "+tc.searchmove, "go perft 1")
			n := perftNodes(t, c.untilPrefix("Nodes searched"))
			want := board.Perft(testsupport.MustFEN(t, tc.fen, tc.wantBest), 1)
			if n != want {
				t.Errorf("perft 1 after %s = %d, want %d", tc.searchmove, n, want)
			}
		})
	}
	// In the Chess960 position f1g1 is a king move, not castling.
	c, b := startEngine(t)
	c.send("position fen "+fr+" moves f1g1", "isready")
	c.untilLine("readyok")
	if p := b.Position(); p.PieceOn(board.MakeSquare(7, 0)) == board.NoPiece || p.PieceOn(board.MakeSquare(6, 0)) == board.NoPiece {
		t.Errorf("f1g1 in %s was not a plain king move: %s", fr, p.FEN())
	}
}

func contains(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}

func TestEngineNoLegalMove(t *testing.T) {
	c, _ := startEngine(t)
	// Fool's mate: white is checkmated.
	c.send("position startpos moves f2f3 e7e5 g2g4 d8h4", "go depth 3")
	if l := lastLine(c.untilPrefix("bestmove")); l != "bestmove (none)" {
		t.Errorf("mated side: %q, want bestmove (none)", l)
	}
	// Mate in one is reported as a mate score.
	c.send("position startpos moves f2f3 e7e5 g2g4", "go depth 3")
	lines := c.untilPrefix("bestmove")
	if best, _ := bestmove(t, lastLine(lines)); best != "d8h4" {
		t.Errorf("mate in one: bestmove %s, want d8h4", best)
	}
	if !hasPrefix(lines, "info depth 3 ") || !strings.Contains(strings.Join(lines, "\n"), "score mate 1 ") {
		t.Errorf("no mate 1 score:\n%s", strings.Join(lines, "\n"))
	}
	// go mate 1 finds it too (and stops there).
	c.send("go mate 1")
	lines = c.untilPrefix("bestmove")
	if best, _ := bestmove(t, lastLine(lines)); best != "d8h4" || !strings.Contains(strings.Join(lines, "\n"), "score mate 1 ") {
		t.Errorf("go mate 1:\n%s", strings.Join(lines, "\n"))
	}
}

func benchNodes(t *testing.T, out string) uint64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^(\d+) nodes (\d+) nps`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no total in bench output:\n%s", out)
	}
	n, _ := strconv.ParseUint(m[1], 10, 64)
	return n
}

func TestEngineBenchDeterministic(t *testing.T) {
	b := NewEngineBackend()
	b.BenchDepth = 5
	var out1, out2 bytes.Buffer
	if err := b.Bench(&out1); err != nil {
		t.Fatal(err)
	}
	c := startServer(t, b)
	c.send("bench")
	out2.WriteString(strings.Join(c.until("bench total", func(l string) bool { return strings.Contains(l, " nps (") }), "\n"))
	n1, n2 := benchNodes(t, out1.String()), benchNodes(t, out2.String())
	if n1 == 0 || n1 != n2 {
		t.Errorf("bench nodes %d then %d over UCI, want equal and nonzero", n1, n2)
	}
	res, err := search.Bench(io.Discard, 5)
	if err != nil || res.Nodes != n1 {
		t.Errorf("search.Bench at depth 5 = %d nodes (%v), backend %d", res.Nodes, err, n1)
	}
}

func TestGameLimits(t *testing.T) {
	white := testsupport.MustFEN(t, board.StartFEN)
	black := testsupport.MustFEN(t, board.StartFEN, "e2e4")
	castle := testsupport.MustFEN(t, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
	ms := time.Millisecond
	tests := []struct {
		name    string
		pos     *board.Position
		l       GoLimits
		elapsed time.Duration
		want    ponder.ThinkLimits
	}{
		{"depth nodes mate", white, GoLimits{Depth: 7, Nodes: 1000, Mate: 3}, 0,
			ponder.ThinkLimits{Depth: 7, Nodes: 1000, Mate: 3, MultiPV: 2}},
		{"white clock loses elapsed", white, GoLimits{WTime: 1000 * ms, BTime: 900 * ms, WInc: 10 * ms, BInc: 20 * ms, MovesToGo: 5}, 40 * ms,
			ponder.ThinkLimits{WTime: 960 * ms, BTime: 900 * ms, WInc: 10 * ms, BInc: 20 * ms, MovesToGo: 5, MultiPV: 2}},
		{"black clock loses elapsed", black, GoLimits{WTime: 1000 * ms, BTime: 900 * ms}, 40 * ms,
			ponder.ThinkLimits{WTime: 1000 * ms, BTime: 860 * ms, MultiPV: 2}},
		{"clock never below 1ms", white, GoLimits{WTime: 10 * ms, MoveTime: 5 * ms}, 40 * ms,
			ponder.ThinkLimits{WTime: ms, MoveTime: ms, MultiPV: 2}},
		{"ponder clock starts at ponderhit", white, GoLimits{Ponder: true, WTime: 1000 * ms, MoveTime: 100 * ms}, 40 * ms,
			ponder.ThinkLimits{Ponder: true, WTime: 1000 * ms, MoveTime: 100 * ms, MultiPV: 2}},
		{"infinite", white, GoLimits{Infinite: true}, 0, ponder.ThinkLimits{Infinite: true, MultiPV: 2}},
		{"searchmoves: illegal dropped", white, GoLimits{SearchMoves: []string{"e2e4", "e2e5", "e7e5"}}, 0,
			ponder.ThinkLimits{SearchMoves: []string{"e2e4"}, MultiPV: 2}},
		{"searchmoves: none legal means all", white, GoLimits{SearchMoves: []string{"e2e5"}}, 0,
			ponder.ThinkLimits{MultiPV: 2}},
		{"searchmoves: castling normalized", castle, GoLimits{SearchMoves: []string{"e1h1", "e1c1"}}, 0,
			ponder.ThinkLimits{SearchMoves: []string{"e1g1", "e1c1"}, MultiPV: 2}},
	}
	for _, tc := range tests {
		got := gameLimits(tc.pos, tc.l, 2, tc.elapsed)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestDecisionInfo(t *testing.T) {
	tests := []struct {
		d    ponder.Decision
		want string
	}{
		{ponder.Decision{UCI: "e2e4", PonderUCI: "e7e5", PV: []string{"e2e4", "e7e5", "g1f3"}, Score: 31, Depth: 9, Nodes: 5000, Time: 20 * time.Millisecond},
			"info depth 9 multipv 1 score cp 31 nodes 5000 time 20 pv e2e4 e7e5 g1f3"},
		{ponder.Decision{UCI: "d2d4", PonderUCI: "d7d5", PV: []string{"e2e4", "e7e5"}, Score: -5, Depth: 3},
			"info depth 3 multipv 1 score cp -5 pv d2d4 d7d5"},
		{ponder.Decision{UCI: "d8h4", PV: []string{"d8h4"}, Score: search.MateScore - 1, Mate: 1, Depth: 4},
			"info depth 4 multipv 1 score mate 1 pv d8h4"},
	}
	for _, tc := range tests {
		if got := decisionInfo(tc.d).String(); got != tc.want {
			t.Errorf("decisionInfo(%+v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestEngineGoCancelledBeforeStart(t *testing.T) {
	// The protocol wants a legal bestmove even for a search stopped at once.
	b := NewEngineBackend()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	best, _ := b.Go(ctx, GoParams{GoLimits: GoLimits{Infinite: true}}, nil)
	checkLegalLine(t, testsupport.MustFEN(t, board.StartFEN), []string{best})
}

// FuzzEngineServer feeds arbitrary lines to a Server with the real engine:
// it must neither panic nor hang, end at the end of input, and every
// bestmove must be a move or (none).
func FuzzEngineServer(f *testing.F) {
	for _, s := range []string{
		"uci\nisready\nposition startpos moves e2e4\ngo depth 3\n",
		"position fen " + kiwipete + " moves e1g1 e8c8\ngo nodes 500\nstop\n",
		"go ponder movetime 10\nponderhit\n",
		"go infinite\nstop\ngo perft 2\nd\n",
		"setoption name MultiPV value 4\ngo depth 2 searchmoves e2e4 d2d4\n",
		"setoption name UCI_Chess960 value true\nposition fen 4k3/8/8/8/8/8/8/1R3K1R w HB - 0 1\ngo depth 2\n",
		"position startpos moves e2e4 e7e5 e1e2 zz\ngo wtime 100 btime 100\nquit\n",
		"position fen 8/8/8/8/8/8/8/8 w - - 0 1\ngo\nstop\n",
		"setoption name BackgroundPonder value true\nposition startpos\ngo depth 2\nposition startpos moves e2e4 e7e5\ngo depth 2\ngo depth 1\nsetoption name MultiPV value 2\n",
	} {
		f.Add(s)
	}
	bestRe := regexp.MustCompile(`^bestmove (\(none\)|[a-h][1-8][a-h][1-8][qrbn]?)( ponder [a-h][1-8][a-h][1-8][qrbn]?)?$`)
	f.Fuzz(func(t *testing.T, input string) {
		if len(input) > 2000 {
			return
		}
		// Keep each run short and small: no deep perft, no bench, no huge
		// tables or many threads.
		var kept []string
		for _, line := range strings.Split(input, "\n") {
			cmd, _ := ParseCommand(line)
			switch c := cmd.(type) {
			case CmdPerft:
				if c.Depth > 3 {
					continue
				}
			case CmdBench:
				continue
			case CmdSetOption:
				if o, ok := FindOption(engineOptions(), c.Name); ok && (o.Name == OptHash || o.Name == OptThreads) {
					continue
				}
			case CmdGo:
				if c.Limits.Depth == 0 || c.Limits.Depth > 4 {
					// Bound the work of searches that end on their own.
					line += " depth 4"
				}
			}
			kept = append(kept, line)
		}
		b := NewEngineBackend()
		defer b.Close()
		b.SetOption(OptHash, "1")
		var out testsupport.SyncBuffer
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := NewServer("fuzz", "fuzz", b).Run(ctx, strings.NewReader(strings.Join(kept, "\n")), &out); err != nil {
			t.Fatalf("Run: %v\ninput:\n%s", err, strings.Join(kept, "\n"))
		}
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(l, "bestmove") && !bestRe.MatchString(l) {
				t.Errorf("bad bestmove line %q", l)
			}
		}
	})
}

// A GUI game: our search, then "position … moves <ours> <predicted>" + "go
// ponder", "ponderhit": the ponder search runs on the game's tree, the hit
// is counted, and the next position (extending the previous) keeps the
// subtree instead of starting over.
func TestEnginePonderHitOnTree(t *testing.T) {
	c, b := startEngine(t)
	moves := []string{"e2e4", "e7e5"}
	c.send("ucinewgame", "position startpos moves "+strings.Join(moves, " "), "go depth 6")
	best, pm := bestmove(t, lastLine(c.untilPrefix("bestmove")))
	if pm == "" {
		t.Fatal("no ponder move after a depth 6 search")
	}
	moves = append(moves, best, pm)
	c.send("position startpos moves "+strings.Join(moves, " "), "go ponder wtime 5000 btime 5000 winc 50 binc 50")
	c.untilPrefix("info depth 4 ")
	c.send("ponderhit")
	best2, ponder2 := bestmove(t, lastLine(c.untilPrefix("bestmove")))
	checkLegalLine(t, testsupport.MustFEN(t, board.StartFEN, moves...), []string{best2})
	st := b.Game().Stats()
	if st.Moves != 2 || st.PonderHits != 1 {
		t.Fatalf("after a ponder hit: %d moves, %d ponder hits; want 2 and 1", st.Moves, st.PonderHits)
	}
	if last := st.PerMove[1]; (last.Source != ponder.FromPonder && last.Source != ponder.FromPonderAtOnce) || last.KeptNodes <= 1 {
		t.Errorf("ponder hit move: source %v, kept %d nodes; want from the ponder search with its subtree kept", last.Source, last.KeptNodes)
	}
	// The opponent plays something else than ponder2: the GUI stops the
	// ponder search and sends the real position; the game goes on.
	moves = append(moves, best2)
	pos := testsupport.MustFEN(t, board.StartFEN, moves...)
	var ml board.MoveList
	pos.GenerateLegal(&ml)
	other := ""
	for _, m := range ml.Slice() {
		if s := pos.MoveToUCI(m); s != ponder2 {
			other = s
			break
		}
	}
	if ponder2 != "" {
		c.send("position startpos moves "+strings.Join(append(moves, ponder2), " "), "go ponder wtime 5000 btime 5000")
		c.untilPrefix("info depth 3 ")
		c.send("stop")
		c.untilPrefix("bestmove")
	}
	moves = append(moves, other)
	c.send("position startpos moves "+strings.Join(moves, " "), "go depth 5")
	best3, _ := bestmove(t, lastLine(c.untilPrefix("bestmove")))
	checkLegalLine(t, testsupport.MustFEN(t, board.StartFEN, moves...), []string{best3})
	if st := b.Game().Stats(); st.Moves != 3 || st.PonderHits != 1 {
		t.Errorf("after a ponder miss: %d moves, %d ponder hits; want 3 and 1", st.Moves, st.PonderHits)
	}
}

// A position that extends the previous one keeps the searched subtree.
func TestEnginePositionExtendsKeepsTree(t *testing.T) {
	c, b := startEngine(t)
	c.send("position startpos moves d2d4", "go depth 7")
	best, pm := bestmove(t, lastLine(c.untilPrefix("bestmove")))
	if pm == "" {
		t.Fatal("no ponder move after a depth 7 search")
	}
	c.send("position startpos moves d2d4 "+best+" "+pm, "go depth 3")
	c.untilPrefix("bestmove")
	st := b.Game().Stats()
	if len(st.PerMove) != 2 || st.PerMove[1].KeptNodes <= 1 {
		t.Fatalf("extending position: stats %+v, want the second move to keep nodes", st.PerMove)
	}
	// A position that does not extend it starts over.
	c.send("position fen "+kiwipete, "go depth 3")
	c.untilPrefix("bestmove")
	st = b.Game().Stats()
	if n := len(st.PerMove); n != 3 || st.PerMove[2].KeptNodes > 1 {
		t.Errorf("new position: stats %+v, want a fresh tree", st.PerMove[n-1])
	}
}

// With BackgroundPonder the engine thinks on the opponent's time after its
// bestmove (fastchess sends no "go ponder"); the next position that plays
// the expected reply is a ponder hit on the same tree.
func TestEngineBackgroundPonder(t *testing.T) {
	c, b := startEngine(t)
	c.send("setoption name BackgroundPonder value true", "ucinewgame", "position startpos moves e2e4", "go depth 6")
	best, pm := bestmove(t, lastLine(c.untilPrefix("bestmove")))
	if pm == "" {
		t.Fatal("no ponder move after a depth 6 search")
	}
	if !b.Game().Pondering() {
		t.Fatal("no background ponder search after bestmove")
	}
	// Options, perft and isready work while it runs (setoption stops it).
	c.send("go perft 2", "isready")
	c.untilLine("readyok")
	if !b.Game().Pondering() {
		t.Error("perft stopped the background ponder search")
	}
	moves := []string{"e2e4", best, pm}
	c.send("position startpos moves "+strings.Join(moves, " "), "go wtime 3000 btime 3000 winc 30 binc 30")
	lines := c.untilPrefix("bestmove")
	best2, _ := bestmove(t, lastLine(lines))
	// The decision's tree numbers come as one info string before bestmove.
	var stats string
	for _, l := range lines {
		if strings.HasPrefix(l, "info string treestats ") {
			stats = l
		}
	}
	for _, want := range []string{" predicted=true ", " hit=true ", " top3=true ", " ply=3 "} {
		if !strings.Contains(stats, want) {
			t.Errorf("treestats line %q lacks %q", stats, want)
		}
	}
	checkLegalLine(t, testsupport.MustFEN(t, board.StartFEN, moves...), []string{best2})
	st := b.Game().Stats()
	if st.Moves != 2 || st.Predicted != 1 || st.PonderHits != 1 {
		t.Errorf("stats after the expected reply: %d moves, %d predicted, %d hits; want 2, 1, 1", st.Moves, st.Predicted, st.PonderHits)
	}
	// go again on the same position (no new position): the game goes back
	// to it, so the move is legal there.
	c.send("go depth 3")
	best3, _ := bestmove(t, lastLine(c.untilPrefix("bestmove")))
	checkLegalLine(t, testsupport.MustFEN(t, board.StartFEN, moves...), []string{best3})

	c.send("setoption name Hash value 2", "isready")
	if l := c.untilLine("readyok"); len(l) != 1 {
		t.Errorf("setoption while pondering in the background: %q", l)
	}
	if b.Game().Pondering() {
		t.Error("setoption did not stop the background ponder search")
	}
	c.send("position startpos moves d2d4", "go depth 2")
	c.untilPrefix("bestmove")
	c.send("ucinewgame", "isready")
	c.untilLine("readyok")
	if b.Game().Pondering() {
		t.Error("ucinewgame did not stop the background ponder search")
	}
	// Off by default: no thinking after bestmove.
	c2, b2 := startEngine(t)
	c2.send("position startpos", "go depth 3")
	c2.untilPrefix("bestmove")
	if b2.Game().Pondering() {
		t.Error("background ponder search without BackgroundPonder")
	}
}

// Closing right after a background ponder search started must not hang
// (ponder.Game.Close alone could wait for it forever).
func TestEngineCloseRightAfterBackgroundPonder(t *testing.T) {
	for i := 0; i < 20; i++ {
		b := NewEngineBackend()
		if err := b.SetOption(OptBackgroundPonder, "true"); err != nil {
			t.Fatal(err)
		}
		b.SetOption(OptHash, "1")
		b.Go(context.Background(), GoParams{GoLimits: GoLimits{Depth: 1}}, nil)
		closed := make(chan struct{})
		go func() {
			b.Close()
			close(closed)
		}()
		select {
		case <-closed:
		case <-time.After(20 * time.Second):
			t.Fatalf("run %d: Close hangs after a background ponder search started", i)
		}
	}
}
