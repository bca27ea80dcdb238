package syzygy

import "github.com/ponderosa-chess/ponderosa/engine/board"

// maxPieces is the most pieces (kings included) a Syzygy table can hold.
const maxPieces = 7

// indexTables holds the read-only tables of the Syzygy index scheme. They
// are facts of the format, computed once by newIndexTables and never
// written afterwards.
type indexTables struct {
	// binom[k][n] is n choose k.
	binom [maxPieces][64]uint64
	// triangle maps the squares of the a1-d1-d4 triangle to 0..9: the six
	// squares below the a1-h8 diagonal first (b1 c1 d1 c2 d2 d3), then the
	// diagonal (a1 b2 c3 d4).
	triangle [64]int
	// triangleSquare is the inverse of triangle.
	triangleSquare [10]board.Square
	// lower maps the 28 squares below the a1-h8 diagonal to 0..27.
	lower [64]int
	// kings[t][s] is the index (0..461) of two kings, the first on the
	// triangle square numbered t, the second on s; -1 for illegal pairs.
	kings [10][64]int
	// pawnRank orders the pawn squares a2..h7: 47 for a2, 46 for h2, 45
	// for a3, ... 0 for e7. The leading pawn of a group is the one with the
	// highest value: nearest the edge, then lowest rank.
	pawnRank [64]int
	// leadPawn[n][s] is the index of a group of n leading pawns whose
	// leader stands on s (files a-d); leadPawnCount[n][f] is the number of
	// such indices for file f.
	leadPawn      [maxPieces][64]uint64
	leadPawnCount [maxPieces][4]uint64
}

// tables is computed once at package start and only read afterwards.
var tables = newIndexTables()

// diagonal returns rank - file: 0 on the a1-h8 diagonal, negative below it.
func diagonal(s board.Square) int { return s.Rank() - s.File() }

func newIndexTables() *indexTables {
	t := &indexTables{}
	for n := 0; n < 64; n++ {
		t.binom[0][n] = 1
		for k := 1; k < maxPieces && k <= n; k++ {
			t.binom[k][n] = t.binom[k-1][n-1]
			if k < n {
				t.binom[k][n] += t.binom[k][n-1]
			}
		}
	}

	code := 0
	for s := board.A1; s <= board.H8; s++ {
		t.triangle[s] = -1
		t.lower[s] = -1
		if diagonal(s) < 0 {
			t.lower[s] = code
			code++
		}
	}
	code = 0
	for s := board.A1; s <= board.D4; s++ {
		if s.File() <= 3 && diagonal(s) < 0 {
			t.triangle[s] = code
			t.triangleSquare[code] = s
			code++
		}
	}
	for _, s := range []board.Square{board.A1, board.B2, board.C3, board.D4} {
		t.triangle[s] = code
		t.triangleSquare[code] = s
		code++
	}

	// Two kings: the first in the triangle; when it stands on the
	// diagonal the second is not above it. Pairs with both kings on the
	// diagonal come last.
	type pair struct {
		t int
		s board.Square
	}
	var both []pair
	code = 0
	for i := 0; i < 10; i++ {
		s1 := t.triangleSquare[i]
		for s2 := board.A1; s2 <= board.H8; s2++ {
			t.kings[i][s2] = -1
			df, dr := s1.File()-s2.File(), s1.Rank()-s2.Rank()
			if df >= -1 && df <= 1 && dr >= -1 && dr <= 1 {
				continue
			}
			switch {
			case diagonal(s1) == 0 && diagonal(s2) > 0:
			case diagonal(s1) == 0 && diagonal(s2) == 0:
				both = append(both, pair{i, s2})
			default:
				t.kings[i][s2] = code
				code++
			}
		}
	}
	for _, p := range both {
		t.kings[p.t][p.s] = code
		code++
	}

	avail := 47
	for f := 0; f < 4; f++ {
		for r := 1; r <= 6; r++ {
			s := board.MakeSquare(f, r)
			t.pawnRank[s] = avail
			t.pawnRank[s^7] = avail - 1
			avail -= 2
		}
	}
	for n := 1; n < maxPieces; n++ {
		for f := 0; f < 4; f++ {
			var idx uint64
			for r := 1; r <= 6; r++ {
				s := board.MakeSquare(f, r)
				t.leadPawn[n][s] = idx
				idx += t.binom[n-1][t.pawnRank[s]]
			}
			t.leadPawnCount[n][f] = idx
		}
	}
	return t
}
