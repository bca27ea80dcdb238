package board

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

type perftCase struct {
	name  string
	fen   string
	nodes map[int]uint64 // depth -> count
}

var depthRe = regexp.MustCompile(`;?\s*D(\d+)\s+(\d+)\s*;?`)

// loadEPDPerft reads "FEN ;D1 n ;D2 n" (Ethereal style) and
// "FEN D1 n; D2 n;" (FrankyGo style) lines; '#' lines are comments.
func loadEPDPerft(t testing.TB, path string) []perftCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []perftCase
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		loc := depthRe.FindStringIndex(text)
		if loc == nil {
			t.Fatalf("%s:%d: no depth counts", path, line)
		}
		c := perftCase{name: filepath.Base(path) + ":" + strconv.Itoa(line), fen: strings.TrimSpace(text[:loc[0]]), nodes: map[int]uint64{}}
		for _, m := range depthRe.FindAllStringSubmatch(text[loc[0]:], -1) {
			d, _ := strconv.Atoi(m[1])
			n, _ := strconv.ParseUint(m[2], 10, 64)
			c.nodes[d] = n
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// loadTrickyPerft reads python-chess's "id / epd / perft d n" format.
func loadTrickyPerft(t testing.TB, path string) []perftCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []perftCase
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "id "):
			out = append(out, perftCase{name: l[3:], nodes: map[int]uint64{}})
		case strings.HasPrefix(l, "epd "):
			out[len(out)-1].fen = l[4:]
		case strings.HasPrefix(l, "perft "):
			fs := strings.Fields(l)
			d, _ := strconv.Atoi(fs[1])
			n, _ := strconv.ParseUint(fs[2], 10, 64)
			out[len(out)-1].nodes[d] = n
		}
	}
	return out
}

// runPerftCases checks every case at every depth up to maxDepth whose
// expected count is at most maxNodes.
func runPerftCases(t *testing.T, cases []perftCase, maxDepth int, maxNodes uint64) {
	t.Helper()
	checked := 0
	for _, c := range cases {
		p, err := ParseFEN(c.fen)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		before := p.FEN()
		for d := 1; d <= maxDepth; d++ {
			want, ok := c.nodes[d]
			if !ok || want > maxNodes {
				continue
			}
			if got := Perft(p, d); got != want {
				t.Errorf("%s: %s perft(%d) = %d, want %d", c.name, c.fen, d, got, want)
			}
			checked++
		}
		if after := p.FEN(); after != before {
			t.Errorf("%s: position changed by perft: %s -> %s", c.name, before, after)
		}
	}
	if checked == 0 {
		t.Fatal("no perft entries checked")
	}
	t.Logf("%d perft entries checked", checked)
}

func TestPerftCPW(t *testing.T) {
	runPerftCases(t, loadEPDPerft(t, "testdata/cpw_standard6.epd"), 6, 5_000_000)
}

func TestPerftFrankyGo(t *testing.T) {
	runPerftCases(t, loadEPDPerft(t, "testdata/FrankyGo_perftsuite.epd"), 4, 200_000)
}

func TestPerftFischerSample(t *testing.T) {
	cases := loadEPDPerft(t, "testdata/fischer_sample.epd")
	if len(cases) != 40 {
		t.Fatalf("%d Chess960 cases, want 40", len(cases))
	}
	runPerftCases(t, cases, 4, 2_000_000)
}

func TestPerftTricky(t *testing.T) {
	runPerftCases(t, loadTrickyPerft(t, "testdata/tricky.perft"), 6, 1_000_000)
}

// TestPerftFullSuite runs every FrankyGo position to depth 6 and every
// Chess960 start of Ethereal's fischer.epd to depth 5. It takes long, so it
// only runs when PONDEROSA_PERFT_SUITE_DIR names a directory holding
// FrankyGo_perftsuite.epd and Ethereal_fischer.epd.
func TestPerftFullSuite(t *testing.T) {
	dir := os.Getenv("PONDEROSA_PERFT_SUITE_DIR")
	if dir == "" {
		t.Skip("set PONDEROSA_PERFT_SUITE_DIR to run the full perft suites")
	}
	t.Run("FrankyGo", func(t *testing.T) {
		runPerftCases(t, loadEPDPerft(t, filepath.Join(dir, "FrankyGo_perftsuite.epd")), 6, 1<<62)
	})
	t.Run("Fischer", func(t *testing.T) {
		runPerftCases(t, loadEPDPerft(t, filepath.Join(dir, "Ethereal_fischer.epd")), 5, 1<<62)
	})
}

func TestPerftDivide(t *testing.T) {
	p, _ := ParseFEN(kiwipeteFEN)
	var sum uint64
	seen := map[string]bool{}
	for _, e := range Divide(p, 3) {
		sum += e.Nodes
		seen[e.UCI] = true
	}
	if sum != 97862 || len(seen) != 48 || !seen["e1g1"] || !seen["e1c1"] {
		t.Fatalf("Divide(kiwipete, 3): sum %d over %d moves", sum, len(seen))
	}
}
