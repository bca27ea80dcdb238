package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/book"
)

const bookUsage = `usage: ponderosa book make -o OUT.bin [-max-ply N] [-min-games N] [-min-score F] GAMES.pgn...
       ponderosa book show -book FILE [-book FILE...] [FEN [moves M...] | M...]`

// bookCmd is "ponderosa book": make a Polyglot book from PGN games, or show
// a book's entries for a position.
func bookCmd(e env, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(e.stderr, bookUsage)
		return exitUsage
	}
	switch args[0] {
	case "make":
		return bookMakeCmd(e, args[1:])
	case "show":
		return bookShowCmd(e, args[1:])
	case "help", "-h", "-help", "--help":
		fmt.Fprintln(e.stdout, bookUsage)
		return 0
	}
	fmt.Fprintf(e.stderr, "ponderosa book: unknown subcommand %q\n%s\n", args[0], bookUsage)
	return exitUsage
}

// bookMakeCmd builds a book from the games of PGN files (see engine/book's
// Maker for the counting and the weight formula).
func bookMakeCmd(e env, args []string) int {
	fs := newFlagSet(e, "book make",
		"usage: ponderosa book make -o OUT.bin [-max-ply N] [-min-games N] [-min-score F] GAMES.pgn...",
		"",
		"Builds a Polyglot book from the games of the PGN files. For every position up to",
		"-max-ply, each move's results are counted for the side that played it (once per",
		"game); its weight is 2*wins + draws (its score in half points). Weights are scaled",
		"per position: only a position whose largest weight is above 65535 has its weights",
		"scaled so that the largest is 65535, keeping their proportions (engine.book's",
		"min_weight is then relative there); other positions keep their raw weights. A move",
		"is left out when it was played in fewer than -min-games games, when its score",
		"(wins + draws/2) / games is below -min-score, or when it never scored. Games",
		"without a result (*), with an illegal move, or of another variant than standard",
		"chess or Chess960 are skipped. A { comment or ( variation left open ends at the",
		"next tag line that starts a line after a blank line, or at the end of the file:",
		"its game is reported and skipped.",
		"")
	out := fs.String("o", "", "the book file to write (required)")
	maxPly := fs.Int("max-ply", 30, "count the first N plies of each game (0: all)")
	minGames := fs.Int("min-games", 1, "leave out moves played in fewer games")
	minScore := fs.Float64("min-score", 0, "leave out moves scoring less, 0 to 1, for the side that played them")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	switch {
	case *out == "" || fs.NArg() == 0:
		fs.Usage()
		return exitUsage
	case *maxPly < 0 || *minGames < 0 || *minScore < 0 || *minScore > 1:
		fmt.Fprintln(e.stderr, "ponderosa book make: -max-ply and -min-games must be >= 0 and -min-score in [0, 1]")
		return exitUsage
	}
	mk := book.NewMaker(book.MakeOptions{MaxPly: *maxPly, MinGames: *minGames, MinScore: *minScore})
	read, skipped, bad := 0, 0, 0
	for _, path := range fs.Args() {
		r, s, b, err := addPGNFile(e, mk, path)
		read, skipped, bad = read+r, skipped+s, bad+b
		if err != nil {
			fmt.Fprintln(e.stderr, "ponderosa book make:", err)
			return exitFailure
		}
	}
	entries := mk.Entries()
	fmt.Fprintf(e.stdout, "%d games read, %d counted, %d without a result or of another variant, %d bad (an illegal move, or a comment or variation left open)\n",
		read, mk.Games(), skipped, bad)
	if len(entries) == 0 {
		fmt.Fprintln(e.stderr, "ponderosa book make: no move passed the filters: no book written")
		return exitFailure
	}
	var buf bytes.Buffer
	if err := book.Write(&buf, entries); err != nil {
		fmt.Fprintln(e.stderr, "ponderosa book make:", err)
		return exitFailure
	}
	if err := writeFileAtomic(*out, buf.Bytes()); err != nil {
		fmt.Fprintln(e.stderr, "ponderosa book make:", err)
		return exitFailure
	}
	fmt.Fprintf(e.stdout, "%s: %d entries for %d positions\n", *out, len(entries), countKeys(entries))
	return 0
}

// addPGNFile counts the games of one PGN file; a game with a bad move, or
// whose comment or variation is left open (book.Game.Broken), is reported on
// stderr and skipped.
func addPGNFile(e env, mk *book.Maker, path string) (read, skipped, bad int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("reading games: %w", err)
	}
	defer f.Close()
	pr := book.NewPGNReader(f)
	for {
		g, err := pr.Next()
		if errors.Is(err, io.EOF) {
			return read, skipped, bad, nil
		}
		if err != nil {
			return read, skipped, bad, fmt.Errorf("%s: %w", path, err)
		}
		read++
		counted, err := mk.AddGame(g)
		switch {
		case err != nil:
			bad++
			if bad <= 10 {
				fmt.Fprintf(e.stderr, "ponderosa book make: %s: skipped: %v\n", path, err)
			}
		case !counted:
			skipped++
		}
	}
}

func countKeys(entries []book.Entry) int {
	n := 0
	for i, en := range entries {
		if i == 0 || en.Key != entries[i-1].Key {
			n++
		}
	}
	return n
}

// writeFileAtomic writes data to a temporary file next to path and renames
// it, so that a reader never sees half a book.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".book-*.tmp")
	if err != nil {
		return fmt.Errorf("writing book: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing book %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing book %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("writing book %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing book %s: %w", path, err)
	}
	return nil
}

// multiFlag is a flag that may be given several times.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// bookShowCmd lists the entries of a position in each book: move, weight
// and share of the position's total weight.
func bookShowCmd(e env, args []string) int {
	fs := newFlagSet(e, "book show",
		"usage: ponderosa book show -book FILE [-book FILE...] [FEN [moves M...] | M...]",
		"",
		"Lists each book's moves for a position with their weights and shares. The position",
		"is a FEN (with moves after the word \"moves\"), or moves from the start position, in",
		"UCI (e2e4) or SAN (e4); no argument is the start position. Entries whose move is not",
		"legal in the position (another position with the same key) are counted, not listed.",
		"")
	var books multiFlag
	fs.Var(&books, "book", "a Polyglot book file (may be given more than once)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if len(books) == 0 {
		fs.Usage()
		return exitUsage
	}
	p, err := showPosition(fs.Args())
	if err != nil {
		fmt.Fprintln(e.stderr, "ponderosa book show:", err)
		return exitUsage
	}
	key := book.Key(p)
	fmt.Fprintf(e.stdout, "position %s\nkey      %016x\n", p.FEN(), key)
	for _, path := range books {
		b, err := book.Open(path)
		if err != nil {
			fmt.Fprintln(e.stderr, "ponderosa book show:", err)
			return exitFailure
		}
		entries := b.Entries(key)
		moves := b.Moves(p)
		fmt.Fprintf(e.stdout, "\n%s (%d entries): %d moves", path, b.Len(), len(moves))
		var ml board.MoveList
		p.GenerateLegal(&ml)
		legal := 0
		for _, en := range entries {
			if _, ok := book.DecodeMove(en.Move, &ml); ok {
				legal++
			}
		}
		if n := len(entries) - legal; n > 0 {
			fmt.Fprintf(e.stdout, ", %d entries skipped (move not legal here)", n)
		}
		fmt.Fprintln(e.stdout)
		if len(moves) == 0 {
			continue
		}
		total := 0
		for _, m := range moves {
			total += m.Weight
		}
		slices.SortStableFunc(moves, func(a, b book.Move) int { return b.Weight - a.Weight })
		fmt.Fprintf(e.stdout, "  %-8s %-6s %7s %7s\n", "move", "uci", "weight", "share")
		for _, m := range moves {
			share := 0.0
			if total > 0 {
				share = 100 * float64(m.Weight) / float64(total)
			}
			fmt.Fprintf(e.stdout, "  %-8s %-6s %7d %6.1f%%\n", p.MoveToSAN(m.Move), p.MoveToUCI(m.Move), m.Weight, share)
		}
	}
	return 0
}

// showPosition reads "FEN [moves M...]" or "[startpos] M..." (UCI or SAN).
func showPosition(args []string) (*board.Position, error) {
	fields := strings.Fields(strings.Join(args, " "))
	p := board.NewPosition()
	var moves []string
	switch {
	case len(fields) > 0 && strings.Contains(fields[0], "/"):
		i := slices.Index(fields, "moves")
		if i < 0 {
			i = len(fields)
		} else {
			moves = fields[i+1:]
		}
		fen := strings.Join(fields[:i], " ")
		if err := p.SetFEN(fen); err != nil {
			return nil, fmt.Errorf("reading the position: %w", err)
		}
	default:
		moves = fields
		if len(moves) > 0 && moves[0] == "startpos" {
			moves = moves[1:]
		}
		if len(moves) > 0 && moves[0] == "moves" {
			moves = moves[1:]
		}
	}
	for _, s := range moves {
		m, err := p.ParseUCIMove(s)
		if err != nil {
			if m, err = p.ParseSAN(s); err != nil {
				return nil, fmt.Errorf("move %q in %s: %w", s, p.FEN(), err)
			}
		}
		p.MakeMove(m)
	}
	return p, nil
}
