package syzygy

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// findFathom returns the path of Debian's fathom command, or "".
func findFathom() string {
	if p, err := exec.LookPath("fathom"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/games/fathom"); err == nil {
		return "/usr/games/fathom"
	}
	return ""
}

var fathomTag = regexp.MustCompile(`\[(WDL|DTZ) "([^"]*)"\]`)

// TestFathomAgreement compares WDL and DTZ with Debian's fathom command
// (apt-get install fathom) over random legal positions of every 3-4-piece
// table in the shared set until PONDEROSA_FATHOM_N positions (default 500)
// have been compared; mates and stalemates come on top.
// Skipped without fathom or the tables, and with -short.
//
//	PONDEROSA_FATHOM_N=10000 go test -run FathomAgreement -v ./engine/syzygy/
func TestFathomAgreement(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	fathom := findFathom()
	if fathom == "" {
		t.Skip("no fathom command (apt-get install fathom)")
	}
	dir := sharedTables(t)
	n := 500
	if s := os.Getenv("PONDEROSA_FATHOM_N"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("PONDEROSA_FATHOM_N=%q", s)
		}
		n = v
	}
	tb, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	files, err := filepath.Glob(filepath.Join(dir, "*.rtbw"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no tables in %s (%v)", dir, err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".rtbw"))
	}
	rng := rand.New(rand.NewPCG(2026, 12))
	compared, terminal, withEP, cursed := 0, 0, 0, 0
	for i := 0; compared < n; i++ {
		name := names[rng.IntN(len(names))]
		if i%8 == 0 {
			name = "KPvKP" // the only 3-4-piece material with en passant
		}
		p := randomPosition(rng, name)
		if rng.IntN(2) == 0 {
			p = mirrorColours(t, p)
		}
		w, err := tb.ProbeWDL(p)
		if err != nil {
			t.Fatalf("%s: %v", p.FEN(), err)
		}
		d, err := tb.ProbeDTZ(p)
		if err != nil {
			t.Fatalf("%s: %v", p.FEN(), err)
		}
		if !p.HasLegalMoves() {
			// fathom reports mate oddly ("Win", 0); check ours by the rules.
			terminal++
			if (p.InCheck() && (w != Loss || d != -1)) || (!p.InCheck() && (w != Draw || d != 0)) {
				t.Errorf("%s: terminal position gives %v %d", p.FEN(), w, d)
			}
			continue
		}
		out, err := exec.Command(fathom, "--path="+dir, p.FEN()).Output()
		if err != nil {
			t.Fatalf("fathom %s: %v", p.FEN(), err)
		}
		tags := map[string]string{}
		for _, m := range fathomTag.FindAllStringSubmatch(string(out), -1) {
			tags[m[1]] = m[2]
		}
		fd, err := strconv.Atoi(tags["DTZ"])
		if err != nil || tags["WDL"] == "" {
			t.Fatalf("%s: fathom said %q", p.FEN(), out)
		}
		abs := d
		if abs < 0 {
			abs = -abs
		}
		if tags["WDL"] != w.String() || fd != abs {
			t.Errorf("%s: ours %v dtz %d, fathom %s dtz %d", p.FEN(), w, d, tags["WDL"], fd)
		}
		compared++
		if p.EPSquare() != board.NoSquare {
			withEP++
		}
		if w == CursedWin || w == BlessedLoss {
			cursed++
		}
	}
	t.Logf("%d positions compared with fathom (%d with en passant, %d cursed or blessed), %d mates/stalemates checked by the rules",
		compared, withEP, cursed, terminal)
}
