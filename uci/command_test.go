package uci

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseCommand(t *testing.T) {
	const kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
	tests := []struct {
		line string
		want Command
	}{
		{"", nil},
		{"   \t ", nil},
		{"uci", CmdUCI{}},
		{"  isready  ", CmdIsReady{}},
		{"ucinewgame", CmdNewGame{}},
		{"ponderhit", CmdPonderHit{}},
		{"stop", CmdStop{}},
		{"quit\r", CmdQuit{}},
		{"d", CmdDisplay{}},
		{"register later", CmdRegister{}},
		{"debug on", CmdDebug{On: true}},
		{"debug off", CmdDebug{}},
		{"joho debug on", CmdDebug{On: true}}, // unknown leading tokens are skipped
		{"setoption name Hash value 128", CmdSetOption{Name: "Hash", Value: "128"}},
		{"setoption name Clear Hash", CmdSetOption{Name: "Clear Hash"}},
		{"setoption  name  Move   Overhead value  30 ", CmdSetOption{Name: "Move Overhead", Value: "30"}},
		{"setoption name SyzygyPath value /a b/c  d", CmdSetOption{Name: "SyzygyPath", Value: "/a b/c  d"}},
		{"setoption name X value", CmdSetOption{Name: "X"}},
		{"position startpos", CmdPosition{FEN: StartFEN}},
		{"position startpos moves", CmdPosition{FEN: StartFEN}},
		{"position startpos moves e2e4 e7e5 e1g1 a7a8q", CmdPosition{FEN: StartFEN, Moves: []string{"e2e4", "e7e5", "e1g1", "a7a8q"}}},
		{"position fen " + kiwipete, CmdPosition{FEN: kiwipete}},
		{"position fen " + kiwipete + " moves e1g1", CmdPosition{FEN: kiwipete, Moves: []string{"e1g1"}}},
		{"position fen 8/8/8/8/8/8/8/K1k5 w - -", CmdPosition{FEN: "8/8/8/8/8/8/8/K1k5 w - - 0 1"}},
		{"position fen 8/8/8/8/8/8/8/K1k5 b - - 7 moves a1a2", CmdPosition{FEN: "8/8/8/8/8/8/8/K1k5 b - - 7 1", Moves: []string{"a1a2"}}},
		{"go", CmdGo{}},
		{"go infinite", CmdGo{GoLimits{Infinite: true}}},
		{"go ponder wtime 300000 btime 299000 winc 2000 binc 2000 movestogo 40",
			CmdGo{GoLimits{Ponder: true, WTime: 300 * time.Second, BTime: 299 * time.Second, WInc: 2 * time.Second, BInc: 2 * time.Second, MovesToGo: 40}}},
		{"go wtime -120 btime 5", CmdGo{GoLimits{BTime: 5 * time.Millisecond}}},
		{"go depth 12 nodes 1000000 movetime 500 mate 3",
			CmdGo{GoLimits{Depth: 12, Nodes: 1000000, MoveTime: 500 * time.Millisecond, Mate: 3}}},
		{"go searchmoves e2e4 d2d4 depth 5", CmdGo{GoLimits{SearchMoves: []string{"e2e4", "d2d4"}, Depth: 5}}},
		{"go perft 5", CmdPerft{Depth: 5}},
		{"perft 3", CmdPerft{Depth: 3}},
		{"bench", CmdBench{}},
		{"bench 16 1 12", CmdBench{Args: []string{"16", "1", "12"}}},
	}
	for _, tc := range tests {
		got, err := ParseCommand(tc.line)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseCommand(%q) = %#v, %v; want %#v", tc.line, got, err, tc.want)
			continue
		}
		if got == nil {
			continue
		}
		again, err := ParseCommand(got.String())
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("round trip of %q via %q: %#v, %v", tc.line, got.String(), again, err)
		}
	}
}

func TestParseCommandErrors(t *testing.T) {
	tests := []struct {
		line    string
		wantMsg string
	}{
		{"hello", "unknown command"},
		{"isreadyy", "unknown command"},
		{"debug", "debug on"},
		{"debug maybe", "debug on"},
		{"setoption", "setoption name"},
		{"setoption Hash value 3", "setoption name"},
		{"setoption name", "empty option name"},
		{"setoption name value 3", "empty option name"},
		{"position", "startpos|fen"},
		{"position kiwipete", "want startpos or fen"},
		{"position startpos e2e4", `unexpected "e2e4"`},
		{"position startpos moves e2e4 e2", `malformed move "e2"`},
		{"position startpos moves e2e4 Nf3", `malformed move "Nf3"`},
		{"position fen", "0 fields"},
		{"position fen 8/8/8/8/8/8/8/8 w", "2 fields"},
		{"position fen 8/8/8/8/8/8/8/8 w - - 0 1 2", "7 fields"},
		{"position fen 8/8/8/8/8/8/8 w - - 0 1", "7 ranks"},
		{"position fen 8/8/8/8/8/8/8/7 w - - 0 1", "7 squares"},
		{"position fen 8/8/8/8/8/8/8/54 w - - 0 1", "9 squares"},
		{"position fen 8/8/8/8/8/8/8/7x w - - 0 1", "bad character"},
		{"position fen 8/8/8/8/8/8/8/8 x - - 0 1", "side to move"},
		{"position fen 8/8/8/8/8/8/8/8 w - - a 1", "move counter"},
		{"go depth", "without a value"},
		{"go depth -1", "negative"},
		{"go depth ten", "not an integer"},
		{"go nodes 99999999999999999999", "not an integer"},
		{"go depth 9999999999", "too large"},
		{"go movetime 1.5", "not an integer"},
		{"go searchmoves", "without moves"},
		{"go searchmoves depth 3", "without moves"},
		{"go fast", `unknown parameter "fast"`},
		{"go perft", "without a value"},
		{"go perft 3 depth 2", "perft takes no other"},
		{"go depth 2 perft 3", "perft takes no other"},
		{"perft", "perft <depth>"},
		{"perft -1", "not a count"},
		{"perft 99999999999", "not a count"},
	}
	for _, tc := range tests {
		got, err := ParseCommand(tc.line)
		if err == nil || !strings.Contains(err.Error(), tc.wantMsg) {
			t.Errorf("ParseCommand(%q) = %#v, %v; want an error mentioning %q", tc.line, got, err, tc.wantMsg)
		}
	}
	if _, err := ParseCommand("xyzzy"); !errors.Is(err, ErrUnknownCommand) {
		t.Errorf("unknown command error %v does not wrap ErrUnknownCommand", err)
	}
}

// FuzzParseCommand checks that no input makes ParseCommand panic, and that
// whatever parses prints back to a line that parses to the same command.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{
		"uci", "isready", "ucinewgame", "quit", "stop", "ponderhit", "d", "bench 1 2",
		"setoption name Move Overhead value 30", "setoption name Clear Hash",
		"position startpos moves e2e4 e7e5", "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1 moves e1g1",
		"go ponder wtime 1000 btime 1000 winc 10 binc 10 movestogo 5", "go infinite searchmoves e2e4 d2d4",
		"go depth 3 nodes 5 mate 2 movetime 100", "go perft 4", "perft 2", "debug on", "go wtime -5 btime 99999999999999999",
		"joho debug off", "\x00\xff", "position fen 8/8/8/8/8/8/8/8 w - -",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		cmd, err := ParseCommand(line)
		if err != nil {
			if cmd != nil {
				t.Fatalf("ParseCommand(%q) returned both %#v and %v", line, cmd, err)
			}
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error for %q spans lines: %q", line, err)
			}
			return
		}
		if cmd == nil {
			return
		}
		text := cmd.String()
		again, err := ParseCommand(text)
		if err != nil || !reflect.DeepEqual(again, cmd) {
			t.Fatalf("ParseCommand(%q) = %#v prints as %q which parses to %#v, %v", line, cmd, text, again, err)
		}
	})
}

// FuzzParseInfo checks that ParseInfo never panics and that what it reads
// prints back to an equivalent line.
func FuzzParseInfo(f *testing.F) {
	for _, s := range []string{
		"info depth 20 seldepth 31 multipv 1 score cp 37 nodes 2150386 nps 1013374 hashfull 833 tbhits 0 time 2122 pv e2e4 e7e5 g1f3",
		"info depth 5 score mate -3 upperbound pv h7h8q", "info string hello", "info currmove e2e4 currmovenumber 3",
		"info score cp", "info depth -3 time -9",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		in, ok := ParseInfo(line)
		if !ok {
			return
		}
		text := in.String()
		if strings.ContainsAny(text, "\r\n") {
			t.Fatalf("info from %q prints over several lines: %q", line, text)
		}
		again, ok := ParseInfo(text)
		if !ok {
			t.Fatalf("%q does not parse as info", text)
		}
		// Negative and zero numbers are not printed; compare what is.
		if again.String() != text {
			t.Fatalf("ParseInfo(%q) prints as %q, which reprints as %q", line, text, again.String())
		}
	})
}
