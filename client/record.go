package client

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

// saveRecord writes the PGN of the finished game into Settings.PGNDir, with
// the bot's evaluations as comments, and returns the file's path. The file
// is readable by the bot's group (0640, directory 0750; the umask may take
// more away), so that an admin in the group reads the records of a bot
// running under its own system user (deploy/INSTALL.md).
func (g *gameWorker) saveRecord(st lichess.GameState) (string, error) {
	if err := os.MkdirAll(g.s.PGNDir, 0o750); err != nil {
		return "", fmt.Errorf("save record: %w", err)
	}
	text, err := g.pgn(st, time.Now())
	if err != nil {
		return "", fmt.Errorf("save record: %w", err)
	}
	path := filepath.Join(g.s.PGNDir, g.id+".pgn")
	if err := os.WriteFile(path, []byte(text), 0o640); err != nil {
		return "", fmt.Errorf("save record: %w", err)
	}
	return path, nil
}

// pgnResult maps a final state to the PGN result.
func pgnResult(st lichess.GameState) string {
	switch {
	case st.Winner == "white":
		return "1-0"
	case st.Winner == "black":
		return "0-1"
	case st.Status == "draw" || st.Status == "stalemate" || st.Status == "insufficientMaterialClaim":
		return "1/2-1/2"
	case st.Status == "outoftime" || st.Status == "timeout":
		return "1/2-1/2" // timeout without winner: drawn on insufficient material
	}
	return "*"
}

// pgn renders the game; SAN comes from the rules board, comments from our
// choices (Lichess-style [%eval] from White's point of view). A variant
// without rules here (KnowsRules) is written without replaying its moves:
// they stay in UCI as Lichess sent them (drops as P@e4), numbered by ply
// parity, and a comment before them says so.
func (g *gameWorker) pgn(st lichess.GameState, now time.Time) (string, error) {
	f := g.full
	var sb strings.Builder
	tag := func(k, v string) { fmt.Fprintf(&sb, "[%s %q]\n", k, v) }
	result := pgnResult(st)
	tag("Event", fmt.Sprintf("%s %s game", map[bool]string{true: "Rated", false: "Casual"}[f.Rated], f.Speed))
	tag("Site", strings.TrimRight(g.c.BaseURL(), "/")+"/"+g.id)
	tag("Date", now.UTC().Format("2006.01.02"))
	tag("White", f.White.Name)
	tag("Black", f.Black.Name)
	tag("Result", result)
	if f.White.Rating > 0 {
		tag("WhiteElo", fmt.Sprint(f.White.Rating))
	}
	if f.Black.Rating > 0 {
		tag("BlackElo", fmt.Sprint(f.Black.Rating))
	}
	if f.Clock != nil {
		tag("TimeControl", fmt.Sprintf("%d+%d", f.Clock.Initial/1000, f.Clock.Increment/1000))
	} else {
		tag("TimeControl", "-")
	}
	tag("Variant", variantName(f.Variant))
	fen := f.InitialFEN
	if fen != "" && fen != "startpos" && fen != StartFEN {
		tag("FEN", fen)
		tag("SetUp", "1")
	}
	tag("Termination", st.Status)
	sb.WriteString("\n")
	b, err := newBoard(f.Variant.Key, f.InitialFEN, nil)
	if err != nil {
		return "", err
	}
	blackFirst := !b.WhiteToMove()
	var line []string
	if !KnowsRules(f.Variant.Key) {
		line = append(line, "{ Moves in UCI, as Lichess sent them. }")
	}
	for i, m := range g.moves {
		white := b.WhiteToMove()
		num := (i+btoi(blackFirst))/2 + 1
		if white {
			line = append(line, fmt.Sprintf("%d.", num))
		} else if i == 0 {
			line = append(line, fmt.Sprintf("%d...", num))
		}
		line = append(line, b.SAN(m))
		if d, ok := g.choices[i]; ok && d.HasScore {
			line = append(line, "{ "+evalComment(d, white)+" }")
		}
		if err := b.Play(m); err != nil {
			return "", fmt.Errorf("replay move %d (%s): %w", i+1, m, err)
		}
	}
	line = append(line, result)
	// Wrap at 80 columns.
	w := 0
	for i, tok := range line {
		if i > 0 {
			if w+1+len(tok) > 80 {
				sb.WriteString("\n")
				w = 0
			} else {
				sb.WriteString(" ")
				w++
			}
		}
		sb.WriteString(tok)
		w += len(tok)
	}
	sb.WriteString("\n\n")
	return sb.String(), nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func variantName(v lichess.Variant) string {
	switch v.Key {
	case "", "standard":
		return "Standard"
	case "chess960":
		return "Chess960"
	case "fromPosition":
		return "From Position"
	}
	if v.Name != "" {
		return v.Name
	}
	// Lichess's PGN names of the other variants.
	switch v.Key {
	case "kingOfTheHill":
		return "King of the Hill"
	case "racingKings":
		return "Racing Kings"
	case "threeCheck":
		return "Three-check"
	case "crazyhouse", "antichess", "atomic", "horde":
		return strings.ToUpper(v.Key[:1]) + v.Key[1:]
	}
	return v.Key
}

// evalComment renders a choice made by the side to move (white or not)
// as "[%eval 0.35] depth 12".
func evalComment(d Choice, white bool) string {
	sign := 1
	if !white {
		sign = -1
	}
	var ev string
	if d.Mate != 0 {
		ev = fmt.Sprintf("#%d", sign*d.Mate)
	} else {
		ev = fmt.Sprintf("%.2f", float64(sign*d.ScoreCP)/100)
	}
	s := "[%eval " + ev + "]"
	if d.Depth > 0 {
		s += fmt.Sprintf(" depth %d", d.Depth)
	}
	return s
}
