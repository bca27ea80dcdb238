package testsupport

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// legalGame is the state of a legal-mode engine: it plays the first legal
// move of its position (and expects the first legal reply), reports
// "score cp 17", depth 1 for a search that ran to its end or was stopped
// and depth 42 for a ponder search converted by ponderhit, so that a test
// can tell a ponder hit from a new search.
type legalGame struct {
	pos     *board.Position // nil: the last position command was bad
	dieIn   string          // "go" or "ponder": die in the first such search…
	dieMark string          // … unless this file exists (it is made on dying)
}

func newLegalGame(dieIn, dieMark string) *legalGame {
	return &legalGame{pos: board.NewPosition(), dieIn: dieIn, dieMark: dieMark}
}

// position handles "position startpos|fen <6 fields> [moves …]".
func (g *legalGame) position(args []string) {
	g.pos = nil
	fen := board.StartFEN
	switch {
	case len(args) >= 1 && args[0] == "startpos":
		args = args[1:]
	case len(args) >= 7 && args[0] == "fen":
		fen, args = strings.Join(args[1:7], " "), args[7:]
	default:
		return
	}
	p, err := board.ParseFEN(fen)
	if err != nil {
		return
	}
	if len(args) > 0 && args[0] == "moves" {
		for _, s := range args[1:] {
			m, err := p.ParseUCIMove(s)
			if err != nil || !p.IsLegal(m) {
				return
			}
			p.MakeMove(m)
		}
	}
	g.pos = p
}

// firstLegal returns the first legal move of p in UCI notation, or "".
func firstLegal(p *board.Position) string {
	var ml board.MoveList
	p.GenerateLegal(&ml)
	if ml.N == 0 {
		return ""
	}
	return p.MoveToUCI(ml.Moves[0])
}

// dieIfAsked exits in the first search of the kind DieOnce named.
func (g *legalGame) dieIfAsked(kind string) {
	if g.dieIn != kind {
		return
	}
	if _, err := os.Stat(g.dieMark); err == nil {
		return
	}
	_ = os.WriteFile(g.dieMark, nil, 0o600)
	os.Exit(exitCrashed)
}

// search runs one search: a ponder or infinite search until ponderhit
// (ponder) or stop, any other one for 5 ms or until stop; true means exit.
func (g *legalGame) search(f *fakeEngine, args []string, in <-chan string) bool {
	ponder, infinite := hasArg(args, "ponder"), hasArg(args, "infinite")
	kind := "go"
	if ponder {
		kind = "ponder"
	}
	g.dieIfAsked(kind)
	var timer <-chan time.Time
	if !ponder && !infinite {
		timer = time.After(5 * time.Millisecond)
	}
	depth := 1
	for done := false; !done; {
		select {
		case line, ok := <-in:
			if !ok {
				return true
			}
			f.record(line)
			switch strings.TrimSpace(line) {
			case "isready":
				f.say("readyok")
			case "quit":
				return true
			case "stop":
				done = true
			case "ponderhit":
				if ponder {
					depth, done = 42, true
				}
			}
		case <-timer:
			done = true
		}
	}
	best := ""
	if g.pos != nil {
		best = firstLegal(g.pos)
	}
	if best == "" {
		f.say("bestmove (none)")
		return false
	}
	after := g.pos.Clone()
	m, _ := after.ParseUCIMove(best)
	after.MakeMove(m)
	reply := firstLegal(after)
	f.say(strings.TrimSpace(fmt.Sprintf("info depth %d score cp 17 pv %s %s", depth, best, reply)))
	if reply == "" {
		f.say("bestmove " + best)
		return false
	}
	f.say("bestmove " + best + " ponder " + reply)
	return false
}
