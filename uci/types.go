package uci

import (
	"strconv"
	"strings"
	"time"
)

// StartFEN is the standard initial position, used for "position startpos".
const StartFEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

// GoLimits are the parameters of a UCI "go" command: the search limits, and
// whether it is a ponder search. The same type is parsed by the front end
// (Server) and sent by the driver (ExternalEngine).
//
// A zero field is absent: it is neither sent nor was it present in the parsed
// command. Clock times are sent as a pair (wtime and btime) when either is set.
type GoLimits struct {
	WTime, BTime time.Duration
	WInc, BInc   time.Duration
	MovesToGo    int
	Depth        int
	Nodes        int64
	Mate         int
	MoveTime     time.Duration
	Infinite     bool
	Ponder       bool
	SearchMoves  []string

	// Deadline is used by the driver only; it is never sent or parsed. It is
	// a hard wall-clock limit on a search, measured from the moment the
	// search becomes active ("go", or "ponderhit" for a ponder search). When
	// it passes, the driver sends "stop"; an engine that does not answer with
	// "bestmove" within the stop grace period is killed. Zero means none.
	Deadline time.Duration
}

// Command returns the UCI "go" command line for l (without newline).
func (l GoLimits) Command() string {
	var b strings.Builder
	b.WriteString("go")
	if l.Ponder {
		b.WriteString(" ponder")
	}
	if l.WTime != 0 || l.BTime != 0 {
		writeKV(&b, "wtime", l.WTime.Milliseconds())
		writeKV(&b, "btime", l.BTime.Milliseconds())
	}
	if l.WInc != 0 {
		writeKV(&b, "winc", l.WInc.Milliseconds())
	}
	if l.BInc != 0 {
		writeKV(&b, "binc", l.BInc.Milliseconds())
	}
	if l.MovesToGo != 0 {
		writeKV(&b, "movestogo", int64(l.MovesToGo))
	}
	if l.Depth != 0 {
		writeKV(&b, "depth", int64(l.Depth))
	}
	if l.Nodes != 0 {
		writeKV(&b, "nodes", l.Nodes)
	}
	if l.Mate != 0 {
		writeKV(&b, "mate", int64(l.Mate))
	}
	if l.MoveTime != 0 {
		writeKV(&b, "movetime", l.MoveTime.Milliseconds())
	}
	if l.Infinite {
		b.WriteString(" infinite")
	}
	if len(l.SearchMoves) > 0 {
		b.WriteString(" searchmoves")
		for _, m := range l.SearchMoves {
			b.WriteByte(' ')
			b.WriteString(m)
		}
	}
	return b.String()
}

func writeKV(b *strings.Builder, k string, v int64) {
	b.WriteByte(' ')
	b.WriteString(k)
	b.WriteByte(' ')
	b.WriteString(strconv.FormatInt(v, 10))
}

// ScoreKind says what a Score measures.
type ScoreKind uint8

// Score kinds.
const (
	ScoreNone ScoreKind = iota // no score reported
	ScoreCP                    // centipawns from the side to move's view
	ScoreMate                  // mate in Value moves (negative: getting mated)
)

// Bound says whether a score is exact or only a bound.
type Bound uint8

// Bounds.
const (
	BoundExact Bound = iota
	BoundLower
	BoundUpper
)

// Score is a UCI score: "cp <x>" or "mate <y>", optionally a bound.
type Score struct {
	Kind  ScoreKind
	Value int
	Bound Bound
}

// CP returns an exact centipawn score.
func CP(v int) Score { return Score{Kind: ScoreCP, Value: v} }

// Mate returns an exact mate score: mate in n moves (negative: mated in -n).
func Mate(n int) Score { return Score{Kind: ScoreMate, Value: n} }

// String formats s as in an info line ("cp 35", "mate -2 upperbound"); ""
// for ScoreNone.
func (s Score) String() string {
	var out string
	switch s.Kind {
	case ScoreCP:
		out = "cp " + strconv.Itoa(s.Value)
	case ScoreMate:
		out = "mate " + strconv.Itoa(s.Value)
	default:
		return ""
	}
	switch s.Bound {
	case BoundLower:
		out += " lowerbound"
	case BoundUpper:
		out += " upperbound"
	}
	return out
}

// Info is one UCI "info" line. Zero fields are absent, except Time which is
// printed whenever Time or Nodes is set.
type Info struct {
	Depth, SelDepth int
	MultiPV         int
	Score           Score
	Nodes           int64
	NPS             int64
	TBHits          int64
	Time            time.Duration
	HashFull        int // permille
	CurrMove        string
	CurrMoveNumber  int
	PV              []string
	// Text is "info string <Text>": free text, always last on the line.
	Text string
}

// String formats i as a UCI info line (without newline).
func (i Info) String() string {
	var b strings.Builder
	b.WriteString("info")
	if i.Depth > 0 || (i.Depth == 0 && i.Score.String() != "") {
		// depth 0 with a score: a move chosen without a search (tablebase)
		writeKV(&b, "depth", int64(i.Depth))
	}
	if i.SelDepth > 0 {
		writeKV(&b, "seldepth", int64(i.SelDepth))
	}
	if i.MultiPV > 0 {
		writeKV(&b, "multipv", int64(i.MultiPV))
	}
	if s := i.Score.String(); s != "" {
		b.WriteString(" score ")
		b.WriteString(s)
	}
	if i.Nodes > 0 {
		writeKV(&b, "nodes", i.Nodes)
	}
	if i.NPS > 0 {
		writeKV(&b, "nps", i.NPS)
	}
	if i.HashFull > 0 {
		writeKV(&b, "hashfull", int64(i.HashFull))
	}
	if i.TBHits > 0 {
		writeKV(&b, "tbhits", i.TBHits)
	}
	if i.Time > 0 || i.Nodes > 0 {
		writeKV(&b, "time", i.Time.Milliseconds())
	}
	if i.CurrMove != "" {
		b.WriteString(" currmove ")
		b.WriteString(i.CurrMove)
	}
	if i.CurrMoveNumber > 0 {
		writeKV(&b, "currmovenumber", int64(i.CurrMoveNumber))
	}
	if len(i.PV) > 0 {
		b.WriteString(" pv")
		for _, m := range i.PV {
			b.WriteByte(' ')
			b.WriteString(m)
		}
	}
	if i.Text != "" {
		b.WriteString(" string ")
		b.WriteString(oneLine(i.Text))
	}
	return b.String()
}

// oneLine replaces line breaks so that s cannot inject extra protocol lines.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// IsMove reports whether s has the syntax of a UCI move in long algebraic
// notation: e2e4, e7e8q, or the null move 0000.
func IsMove(s string) bool {
	if s == "0000" {
		return true
	}
	if len(s) != 4 && len(s) != 5 {
		return false
	}
	if s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8' ||
		s[2] < 'a' || s[2] > 'h' || s[3] < '1' || s[3] > '8' {
		return false
	}
	if len(s) == 5 {
		switch s[4] {
		case 'q', 'r', 'b', 'n':
		default:
			return false
		}
	}
	return true
}

// IsVariantMove reports whether s has the syntax of a move in UCI as
// engines of chess variants write it (Fairy-Stockfish, and Lichess in its
// API): a move of IsMove; a promotion to a king (antichess), e7e8k; or a
// drop (crazyhouse), the piece's upper-case letter, "@" and the square, as
// in P@e4 or N@f3. The driver of external engines (ExternalEngine) accepts
// these; the built-in engine's server (Serve) takes IsMove only.
func IsVariantMove(s string) bool {
	switch {
	case IsMove(s):
		return true
	case len(s) == 5 && s[4] == 'k':
		return IsMove(s[:4])
	case len(s) == 4 && s[1] == '@':
		return strings.IndexByte("PNBRQK", s[0]) >= 0 && s[2] >= 'a' && s[2] <= 'h' && s[3] >= '1' && s[3] <= '8'
	}
	return false
}

// ParseInfo parses a UCI "info" line. It is lenient: unknown tokens and
// malformed values are skipped, so that a partly broken line still yields
// what can be read. ok is false when line is not an info line at all.
func ParseInfo(line string) (info Info, ok bool) {
	f := strings.Fields(line)
	if len(f) == 0 || f[0] != "info" {
		return Info{}, false
	}
	num := func(i int) (int64, bool) {
		if i >= len(f) {
			return 0, false
		}
		v, err := strconv.ParseInt(f[i], 10, 64)
		return v, err == nil
	}
	for i := 1; i < len(f); i++ {
		switch f[i] {
		case "depth", "seldepth", "multipv", "nodes", "nps", "tbhits", "time", "hashfull", "currmovenumber":
			v, good := num(i + 1)
			if !good {
				continue
			}
			i++
			switch f[i-1] {
			case "depth":
				info.Depth = clampInt(v)
			case "seldepth":
				info.SelDepth = clampInt(v)
			case "multipv":
				info.MultiPV = clampInt(v)
			case "nodes":
				info.Nodes = v
			case "nps":
				info.NPS = v
			case "tbhits":
				info.TBHits = v
			case "time":
				info.Time = msDuration(v)
			case "hashfull":
				info.HashFull = clampInt(v)
			case "currmovenumber":
				info.CurrMoveNumber = clampInt(v)
			}
		case "score":
			// score cp <x> | mate <y> [lowerbound|upperbound]
			for i+1 < len(f) {
				switch f[i+1] {
				case "cp", "mate":
					if v, good := num(i + 2); good {
						info.Score.Kind = ScoreCP
						if f[i+1] == "mate" {
							info.Score.Kind = ScoreMate
						}
						info.Score.Value = clampInt(v)
						i += 2
						continue
					}
				case "lowerbound":
					info.Score.Bound = BoundLower
					i++
					continue
				case "upperbound":
					info.Score.Bound = BoundUpper
					i++
					continue
				}
				break
			}
		case "currmove":
			if i+1 < len(f) && IsVariantMove(f[i+1]) {
				i++
				info.CurrMove = f[i]
			}
		case "pv":
			var pv []string
			for i+1 < len(f) && IsVariantMove(f[i+1]) {
				i++
				pv = append(pv, f[i])
			}
			info.PV = pv
		case "string":
			// The rest of the line, spacing preserved.
			info.Text = restAfterToken(line, i)
			return info, true
		}
	}
	return info, true
}

// restAfterToken returns the text of line after its n-th (0-based)
// whitespace-separated token, with leading spaces removed.
func restAfterToken(line string, n int) string {
	s := line
	for k := 0; k <= n; k++ {
		s = strings.TrimLeft(s, " \t")
		j := strings.IndexAny(s, " \t")
		if j < 0 {
			return ""
		}
		s = s[j:]
	}
	return strings.TrimSpace(s)
}

func clampInt(v int64) int {
	const maxInt = int64(^uint(0) >> 1)
	if v > maxInt {
		return int(maxInt)
	}
	if v < -maxInt {
		return int(-maxInt)
	}
	return int(v)
}

func msDuration(ms int64) time.Duration {
	const maxMS = int64(1<<63-1) / int64(time.Millisecond)
	if ms > maxMS {
		ms = maxMS
	}
	if ms < -maxMS {
		ms = -maxMS
	}
	return time.Duration(ms) * time.Millisecond
}
