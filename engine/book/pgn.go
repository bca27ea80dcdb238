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
	// Broken, when not empty, says why the movetext cannot be trusted: a
	// brace comment or a variation left open, cut off by the next game's
	// tag section or by the end of the file. Maker.AddGame refuses such a
	// game with an error.
	Broken string
}

// PGNReader reads the games of a PGN file one by one. It knows tag pairs,
// movetext, brace and semicolon comments, nested variations, NAGs ($n),
// move numbers and escape lines (%), and skips what it does not need; it does
// not check that the moves are legal (the caller replays them).
//
// A brace comment or a variation that is never closed would swallow every
// later game. So inside one, a line that begins at its first column with a
// tag pair (`[Name "value"]`) right after a blank line ends the game: the
// game is returned with Game.Broken set, and the tag line begins the next
// game. A file that ends inside a comment or a variation gives a last game
// with Broken set too (with no moves when the comment came after a game's
// result).
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
	openedAt := 0      // line of the open comment or outermost open variation
	afterBlank := false
	for {
		line, ok := pr.nextLine()
		if !ok {
			if pr.err != nil {
				return nil, fmt.Errorf("reading PGN line %d: %w", pr.line+1, pr.err)
			}
			if inComment || depth > 0 {
				if !started {
					g.Line = openedAt
				}
				g.Broken = fmt.Sprintf("the file ends inside %s", openWhat(inComment && depth == 0, openedAt))
				return pr.finish(g, ""), nil
			}
			if started {
				return pr.finish(g, ""), nil
			}
			return nil, io.EOF
		}
		trimmed := strings.TrimSpace(line)
		blank := trimmed == ""
		if (inComment || depth > 0) && afterBlank && startsGame(line) {
			// A comment or variation left open: the next game's tags.
			pr.pending, pr.havePen = line, true
			if !started {
				g.Line = openedAt
			}
			g.Broken = fmt.Sprintf("%s is cut off by the tag section at line %d", openWhat(inComment && depth == 0, openedAt), pr.line)
			return pr.finish(g, ""), nil
		}
		afterBlank = blank
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
				if depth == 0 {
					openedAt = pr.line
				}
				i++
			case c == ';':
				i = len(line)
			case c == '(':
				if depth == 0 {
					openedAt = pr.line
				}
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

// startsGame reports whether line, met inside a comment or a variation,
// begins a game: a tag pair from its first column.
func startsGame(line string) bool {
	t := strings.TrimRight(line, " \t")
	if !strings.HasPrefix(t, "[") || !strings.HasSuffix(t, "]") {
		return false
	}
	name, _, ok := parseTag(t)
	if !ok {
		return false
	}
	for _, c := range name {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// openWhat names what is left open, a comment or (comment is false) a
// variation, and the line where it began.
func openWhat(comment bool, line int) string {
	if comment {
		return fmt.Sprintf("a { comment opened at line %d", line)
	}
	return fmt.Sprintf("a ( variation opened at line %d", line)
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
