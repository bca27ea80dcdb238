package uci

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Command is one parsed GUI-to-engine UCI command. String gives its
// canonical text, which parses back to the same command.
type Command interface {
	String() string
	command()
}

// The commands a GUI sends to an engine.
type (
	CmdUCI       struct{} // "uci"
	CmdIsReady   struct{} // "isready"
	CmdNewGame   struct{} // "ucinewgame"
	CmdPonderHit struct{} // "ponderhit"
	CmdStop      struct{} // "stop"
	CmdQuit      struct{} // "quit"
	CmdDisplay   struct{} // "d": print the board (non-standard)
	CmdRegister  struct{} // "register ...": accepted and ignored
	// CmdDebug is "debug on|off".
	CmdDebug struct{ On bool }
	// CmdSetOption is "setoption name <Name> [value <Value>]". Name tokens
	// are joined by single spaces; Value is the rest of the line, trimmed.
	CmdSetOption struct{ Name, Value string }
	// CmdPosition is "position startpos|fen <fen> [moves ...]". FEN is
	// StartFEN for startpos; a FEN given without its move counters gets
	// "0 1".
	CmdPosition struct {
		FEN   string
		Moves []string
	}
	// CmdGo is "go ..." (other than perft).
	CmdGo struct{ Limits GoLimits }
	// CmdPerft is "go perft <Depth>" or "perft <Depth>" (non-standard).
	CmdPerft struct{ Depth int }
	// CmdBench is "bench [args]" (non-standard).
	CmdBench struct{ Args []string }
)

func (CmdUCI) command()       {}
func (CmdIsReady) command()   {}
func (CmdNewGame) command()   {}
func (CmdPonderHit) command() {}
func (CmdStop) command()      {}
func (CmdQuit) command()      {}
func (CmdDisplay) command()   {}
func (CmdRegister) command()  {}
func (CmdDebug) command()     {}
func (CmdSetOption) command() {}
func (CmdPosition) command()  {}
func (CmdGo) command()        {}
func (CmdPerft) command()     {}
func (CmdBench) command()     {}

func (CmdUCI) String() string       { return "uci" }
func (CmdIsReady) String() string   { return "isready" }
func (CmdNewGame) String() string   { return "ucinewgame" }
func (CmdPonderHit) String() string { return "ponderhit" }
func (CmdStop) String() string      { return "stop" }
func (CmdQuit) String() string      { return "quit" }
func (CmdDisplay) String() string   { return "d" }
func (CmdRegister) String() string  { return "register later" }

func (c CmdDebug) String() string {
	if c.On {
		return "debug on"
	}
	return "debug off"
}

func (c CmdSetOption) String() string {
	if c.Value == "" {
		return "setoption name " + c.Name
	}
	return "setoption name " + c.Name + " value " + c.Value
}

func (c CmdPosition) String() string {
	fen := c.FEN
	if fen == StartFEN {
		fen = ""
	}
	return positionCommand(fen, c.Moves)
}

func (c CmdGo) String() string    { return c.Limits.Command() }
func (c CmdPerft) String() string { return "go perft " + strconv.Itoa(c.Depth) }

func (c CmdBench) String() string {
	return strings.TrimSpace("bench " + strings.Join(c.Args, " "))
}

// ErrUnknownCommand is returned by ParseCommand for a line without any
// known command.
var ErrUnknownCommand = errors.New("unknown command")

// token is a word of a line with its byte offsets.
type token struct {
	s          string
	start, end int
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n'
}

func tokenize(line string) []token {
	var toks []token
	for i := 0; i < len(line); {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i == len(line) {
			break
		}
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		toks = append(toks, token{line[i:j], i, j})
		i = j
	}
	return toks
}

func trimSpace(s string) string {
	i, j := 0, len(s)
	for i < j && isSpace(s[i]) {
		i++
	}
	for j > i && isSpace(s[j-1]) {
		j--
	}
	return s[i:j]
}

// ParseCommand parses one line sent by a GUI. An empty line gives (nil,
// nil). As the UCI protocol asks, unknown tokens before the command are
// skipped ("joho debug on" is "debug on"); a line without a known command
// is ErrUnknownCommand. Malformed arguments are an error naming what is
// wrong; ParseCommand never panics.
func ParseCommand(line string) (Command, error) {
	toks := tokenize(line)
	if len(toks) == 0 {
		return nil, nil
	}
	for i, t := range toks {
		args := toks[i+1:]
		switch t.s {
		case "uci":
			return CmdUCI{}, nil
		case "isready":
			return CmdIsReady{}, nil
		case "ucinewgame":
			return CmdNewGame{}, nil
		case "ponderhit":
			return CmdPonderHit{}, nil
		case "stop":
			return CmdStop{}, nil
		case "quit":
			return CmdQuit{}, nil
		case "d":
			return CmdDisplay{}, nil
		case "register":
			return CmdRegister{}, nil
		case "debug":
			if len(args) == 1 && (args[0].s == "on" || args[0].s == "off") {
				return CmdDebug{On: args[0].s == "on"}, nil
			}
			return nil, errors.New("debug: want \"debug on\" or \"debug off\"")
		case "setoption":
			return parseSetOption(line, args)
		case "position":
			return parsePosition(args)
		case "go":
			return parseGo(args)
		case "perft":
			if len(args) != 1 {
				return nil, errors.New("perft: want \"perft <depth>\"")
			}
			d, err := parseCount("perft", args[0].s)
			if err != nil {
				return nil, err
			}
			return CmdPerft{Depth: d}, nil
		case "bench":
			var a []string
			for _, t := range args {
				a = append(a, t.s)
			}
			return CmdBench{Args: a}, nil
		}
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownCommand, shorten(toks[0].s))
}

// shorten keeps error messages about hostile input short.
func shorten(s string) string {
	const max = 40
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}

func parseSetOption(line string, args []token) (Command, error) {
	if len(args) == 0 || args[0].s != "name" {
		return nil, errors.New("setoption: want \"setoption name <id> [value <x>]\"")
	}
	var name []string
	i := 1
	for i < len(args) && args[i].s != "value" {
		name = append(name, args[i].s)
		i++
	}
	if len(name) == 0 {
		return nil, errors.New("setoption: empty option name")
	}
	c := CmdSetOption{Name: strings.Join(name, " ")}
	if i < len(args) { // args[i] is "value"
		c.Value = trimSpace(line[args[i].end:])
	}
	return c, nil
}

func parsePosition(args []token) (Command, error) {
	if len(args) == 0 {
		return nil, errors.New("position: want \"position startpos|fen <fen> [moves ...]\"")
	}
	var c CmdPosition
	i := 1
	switch args[0].s {
	case "startpos":
		c.FEN = StartFEN
	case "fen":
		var fields []string
		for i < len(args) && args[i].s != "moves" {
			fields = append(fields, args[i].s)
			i++
		}
		fen, err := normalizeFEN(fields)
		if err != nil {
			return nil, fmt.Errorf("position: %w", err)
		}
		c.FEN = fen
	default:
		return nil, fmt.Errorf("position: want startpos or fen, got %q", shorten(args[0].s))
	}
	if i == len(args) {
		return c, nil
	}
	if args[i].s != "moves" {
		return nil, fmt.Errorf("position: unexpected %q (want \"moves\")", shorten(args[i].s))
	}
	for _, t := range args[i+1:] {
		if !IsMove(t.s) {
			return nil, fmt.Errorf("position: malformed move %q", shorten(t.s))
		}
		c.Moves = append(c.Moves, t.s)
	}
	return c, nil
}

// normalizeFEN checks the shape of a FEN (the backend checks the position
// itself) and adds missing move counters.
func normalizeFEN(f []string) (string, error) {
	if len(f) < 4 || len(f) > 6 {
		return "", fmt.Errorf("FEN has %d fields, want 4 to 6", len(f))
	}
	ranks := strings.Split(f[0], "/")
	if len(ranks) != 8 {
		return "", fmt.Errorf("FEN board %q has %d ranks, want 8", shorten(f[0]), len(ranks))
	}
	for _, r := range ranks {
		n := 0
		for i := 0; i < len(r); i++ {
			switch c := r[i]; {
			case c >= '1' && c <= '8':
				n += int(c - '0')
			case strings.IndexByte("pnbrqkPNBRQK", c) >= 0:
				n++
			default:
				return "", fmt.Errorf("FEN board %q: bad character %q", shorten(f[0]), c)
			}
		}
		if n != 8 {
			return "", fmt.Errorf("FEN board %q: rank %q has %d squares, want 8", shorten(f[0]), r, n)
		}
	}
	if f[1] != "w" && f[1] != "b" {
		return "", fmt.Errorf("FEN side to move %q, want w or b", shorten(f[1]))
	}
	for _, k := range f[4:] {
		if n, err := strconv.Atoi(k); err != nil || n < 0 {
			return "", fmt.Errorf("FEN move counter %q is not a number", shorten(k))
		}
	}
	switch len(f) {
	case 4:
		f = append(f, "0", "1")
	case 5:
		f = append(f, "1")
	}
	return strings.Join(f, " "), nil
}

func parseCount(key, s string) (int, error) {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s: %q is not a count", key, shorten(s))
	}
	return int(n), nil
}

func parseGo(args []token) (Command, error) {
	var l GoLimits
	for i := 0; i < len(args); i++ {
		key := args[i].s
		switch key {
		case "infinite":
			l.Infinite = true
			continue
		case "ponder":
			l.Ponder = true
			continue
		case "searchmoves":
			for i+1 < len(args) && IsMove(args[i+1].s) {
				i++
				l.SearchMoves = append(l.SearchMoves, args[i].s)
			}
			if len(l.SearchMoves) == 0 {
				return nil, errors.New("go: searchmoves without moves")
			}
			continue
		case "wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "movetime", "mate", "perft":
		default:
			return nil, fmt.Errorf("go: unknown parameter %q", shorten(key))
		}
		if i+1 >= len(args) {
			return nil, fmt.Errorf("go: %s without a value", key)
		}
		i++
		v, err := strconv.ParseInt(args[i].s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("go: %s %q is not an integer", key, shorten(args[i].s))
		}
		switch key {
		case "wtime", "btime", "winc", "binc":
			// Some GUIs send a negative clock after a time overrun.
			d := msDuration(max(v, 0))
			switch key {
			case "wtime":
				l.WTime = d
			case "btime":
				l.BTime = d
			case "winc":
				l.WInc = d
			case "binc":
				l.BInc = d
			}
			continue
		}
		if v < 0 {
			return nil, fmt.Errorf("go: %s %d is negative", key, v)
		}
		switch key {
		case "movetime":
			l.MoveTime = msDuration(v)
		case "nodes":
			l.Nodes = v
		default:
			if v > 1<<31-1 {
				return nil, fmt.Errorf("go: %s %d is too large", key, v)
			}
			switch key {
			case "movestogo":
				l.MovesToGo = int(v)
			case "depth":
				l.Depth = int(v)
			case "mate":
				l.Mate = int(v)
			case "perft":
				if len(args) != 2 {
					return nil, errors.New("go: perft takes no other parameters")
				}
				return CmdPerft{Depth: int(v)}, nil
			}
		}
	}
	return CmdGo{Limits: l}, nil
}
