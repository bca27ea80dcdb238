package book

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Game is one game of a PGN file as far as book making needs it: the tags,
// the moves of the main line in SAN, and the result.
type Game struct {
	Tags   map[string]string
	Moves  []string // SAN of the main line; move numbers, comments, variations and NAGs removed
	Result string   // "1-0", "0-1", "1/2-1/2" or "*": the Result tag, else the movetext's last token
	Line   int      // line of the file where the game begins (1-based)
}

// PGNReader reads the games of a PGN file one by one. It knows tag pairs,
// movetext, brace and semicolon comments, nested variations, NAGs ($n),
// move numbers and escape lines (%), and skips what it does not need; it does
// not check that the moves are legal (the caller replays them).
type PGNReader struct {
	sc      *bufio.Scanner
	line    int
	pending string // a tag line read past the end of the previous game
	havePen bool
	err     error
}

// NewPGNReader returns a reader of the games in r.
func NewPGNReader(r io.Reader) *PGNReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	return &PGNReader{sc: sc}
}

func (pr *PGNReader) nextLine() (string, bool) {
	if pr.havePen {
		pr.havePen = false
		return pr.pending, true
	}
	if !pr.sc.Scan() {
		pr.err = pr.sc.Err()
		return "", false
	}
	pr.line++
	return strings.TrimRight(pr.sc.Text(), "\r"), true
}

// Next returns the next game, or io.EOF after the last one. A game whose
// movetext has no result token ends where the next tag section begins, or at
// the end of the file.
func (pr *PGNReader) Next() (*Game, error) {
	g := &Game{Tags: map[string]string{}}
	started, inMoves := false, false
	inComment := false // inside { }, which may span lines
	depth := 0         // variation nesting
	for {
		line, ok := pr.nextLine()
		if !ok {
			if pr.err != nil {
				return nil, fmt.Errorf("reading PGN line %d: %w", pr.line+1, pr.err)
			}
			if started {
				return pr.finish(g, ""), nil
			}
			return nil, io.EOF
		}
		trimmed := strings.TrimSpace(line)
		if !inComment && depth == 0 && strings.HasPrefix(trimmed, "[") {
			if inMoves { // a new game begins: the previous one had no result token
				pr.pending, pr.havePen = line, true
				return pr.finish(g, ""), nil
			}
			if !started {
				g.Line = pr.line
			}
			started = true
			if name, value, ok := parseTag(trimmed); ok {
				g.Tags[name] = value
			}
			continue
		}
		if !inComment && strings.HasPrefix(line, "%") {
			continue
		}
		// Movetext.
		i := 0
		for i < len(line) {
			c := line[i]
			switch {
			case inComment:
				if c == '}' {
					inComment = false
				}
				i++
			case c == '{':
				inComment = true
				i++
			case c == ';':
				i = len(line)
			case c == '(':
				depth++
				i++
			case c == ')':
				if depth > 0 {
					depth--
				}
				i++
			case c == ' ' || c == '\t':
				i++
			default:
				j := i
				for j < len(line) && !strings.ContainsRune(" \t{};()", rune(line[j])) {
					j++
				}
				tok := line[i:j]
				i = j
				if depth > 0 || tok[0] == '$' {
					continue
				}
				if !started {
					g.Line = pr.line
				}
				started, inMoves = true, true
				switch tok {
				case "1-0", "0-1", "1/2-1/2", "*":
					return pr.finish(g, tok), nil
				}
				if d := strings.TrimLeft(tok, "0123456789"); d != tok && strings.HasPrefix(d, ".") {
					tok = strings.TrimLeft(d, ".") // "12." or "12...", perhaps glued to the move
				}
				if tok == "" {
					continue
				}
				g.Moves = append(g.Moves, tok)
			}
		}
	}
}

func (pr *PGNReader) finish(g *Game, term string) *Game {
	g.Result = g.Tags["Result"]
	if g.Result == "" || g.Result == "*" && term != "" {
		g.Result = term
	}
	if g.Result == "" {
		g.Result = "*"
	}
	return g
}

// parseTag reads `[Name "value"]` with the \" and \\ escapes.
func parseTag(s string) (name, value string, ok bool) {
	s = strings.TrimPrefix(s, "[")
	sp := strings.IndexAny(s, " \t")
	if sp <= 0 {
		return "", "", false
	}
	name = s[:sp]
	rest := strings.TrimSpace(s[sp:])
	if !strings.HasPrefix(rest, `"`) {
		return "", "", false
	}
	var b strings.Builder
	for i := 1; i < len(rest); i++ {
		switch c := rest[i]; c {
		case '\\':
			if i+1 < len(rest) {
				i++
				b.WriteByte(rest[i])
			}
		case '"':
			return name, b.String(), true
		default:
			b.WriteByte(c)
		}
	}
	return "", "", false
}
