package search

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// epdCase is one EPD test position.
type epdCase struct {
	id   string
	fen  string
	bm   []board.Move // best moves (any of them solves)
	am   []board.Move // avoid moves
	mate int          // dm or ce +M: mate in this many moves
}

var lanRe = regexp.MustCompile(`^[KQRBN]?([a-h][1-8])[-x]([a-h][1-8])=?([QRBNqrbn])?[+#]?$`)

// parseEPDMove accepts SAN ("Nf3", "exd5", "O-O") and long algebraic
// ("Ng1-f3", "e7xf8N+") as found in the suites.
func parseEPDMove(p *board.Position, s string) (board.Move, error) {
	if m := lanRe.FindStringSubmatch(s); m != nil {
		from, _ := board.ParseSquare(m[1])
		to, _ := board.ParseSquare(m[2])
		var ml board.MoveList
		p.GenerateLegal(&ml)
		for _, mv := range ml.Slice() {
			if mv.From() != from || mv.IsCastling() {
				continue
			}
			if mv.To() != to {
				continue
			}
			if m[3] != "" {
				if mv.Promotion().String() != strings.ToLower(m[3]) {
					continue
				}
			} else if mv.IsPromotion() && mv.Promotion() != board.Queen {
				continue
			}
			return mv, nil
		}
		return board.NoMove, fmt.Errorf("no legal move %q", s)
	}
	return p.ParseSAN(s)
}

func loadEPD(path string) ([]epdCase, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open epd: %w", err)
	}
	defer f.Close()
	var cases []epdCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 5 {
			return nil, fmt.Errorf("%s: short line %q", path, line)
		}
		c := epdCase{fen: strings.Join(fields[:4], " ") + " 0 1"}
		pos, err := board.ParseFEN(c.fen)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		ops := strings.Join(fields[4:], " ")
		for _, op := range strings.Split(ops, ";") {
			op = strings.TrimSpace(op)
			name, arg, _ := strings.Cut(op, " ")
			arg = strings.Trim(strings.TrimSpace(arg), `"`)
			switch name {
			case "id":
				c.id = arg
			case "bm", "am":
				for _, s := range strings.Fields(arg) {
					m, err := parseEPDMove(pos, s)
					if err != nil {
						return nil, fmt.Errorf("%s %s: %w", path, c.fen, err)
					}
					if name == "bm" {
						c.bm = append(c.bm, m)
					} else {
						c.am = append(c.am, m)
					}
				}
			case "dm":
				c.mate, _ = strconv.Atoi(arg)
			case "ce":
				if strings.HasPrefix(arg, "+M") {
					c.mate, _ = strconv.Atoi(arg[2:])
				}
			}
		}
		if c.id == "" {
			c.id = c.fen
		}
		cases = append(cases, c)
	}
	return cases, sc.Err()
}

// solved reports whether m satisfies the case's bm/am.
func (c *epdCase) solved(m board.Move) bool {
	if len(c.bm) > 0 {
		return contains(c.bm, m)
	}
	return len(c.am) > 0 && !contains(c.am, m)
}
