package board

// Attack tables. Everything here is computed once by init and only read
// afterwards.

var (
	knightAttacks [64]Bitboard
	kingAttacks   [64]Bitboard
	pawnAttacks   [2][64]Bitboard
	betweenBB     [64][64]Bitboard // squares strictly between two aligned squares
	lineBB        [64][64]Bitboard // the whole line through two aligned squares
	rookMagics    [64]magic
	bishopMagics  [64]magic
	sliderTable   []Bitboard
)

// magic is one square's fancy-magic entry: attacks =
// sliderTable[offset + ((occ & mask) * mul) >> shift].
type magic struct {
	mask   Bitboard
	mul    uint64
	offset uint32
	shift  uint8
}

func (m *magic) index(occ Bitboard) uint32 {
	return m.offset + uint32((uint64(occ&m.mask)*m.mul)>>m.shift)
}

// KnightAttacks returns the squares a knight on s attacks.
func KnightAttacks(s Square) Bitboard { return knightAttacks[s&63] }

// KingAttacks returns the squares a king on s attacks.
func KingAttacks(s Square) Bitboard { return kingAttacks[s&63] }

// PawnAttacks returns the squares a pawn of colour c on s attacks.
func PawnAttacks(c Color, s Square) Bitboard { return pawnAttacks[c&1][s&63] }

// BishopAttacks returns the squares a bishop on s attacks given occupancy occ.
func BishopAttacks(s Square, occ Bitboard) Bitboard {
	m := &bishopMagics[s&63]
	return sliderTable[m.index(occ)]
}

// RookAttacks returns the squares a rook on s attacks given occupancy occ.
func RookAttacks(s Square, occ Bitboard) Bitboard {
	m := &rookMagics[s&63]
	return sliderTable[m.index(occ)]
}

// QueenAttacks returns the squares a queen on s attacks given occupancy occ.
func QueenAttacks(s Square, occ Bitboard) Bitboard {
	return BishopAttacks(s, occ) | RookAttacks(s, occ)
}

// Attacks returns the squares a piece of type t (not a pawn) on s attacks.
func Attacks(t PieceType, s Square, occ Bitboard) Bitboard {
	switch t {
	case Knight:
		return KnightAttacks(s)
	case Bishop:
		return BishopAttacks(s, occ)
	case Rook:
		return RookAttacks(s, occ)
	case Queen:
		return QueenAttacks(s, occ)
	case King:
		return KingAttacks(s)
	}
	return 0
}

// Between returns the squares strictly between a and b if they share a rank,
// file or diagonal, else the empty set.
func Between(a, b Square) Bitboard { return betweenBB[a&63][b&63] }

// Line returns the full line (edge to edge) through a and b if they are
// aligned, else the empty set.
func Line(a, b Square) Bitboard { return lineBB[a&63][b&63] }

// Aligned reports whether a, b and c lie on one line.
func Aligned(a, b, c Square) bool { return lineBB[a&63][b&63].Has(c) }

var (
	rookDirs   = [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}
	bishopDirs = [4][2]int{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}}
)

// slowSlider computes slider attacks by walking rays; used to build tables
// and in tests.
func slowSlider(s Square, occ Bitboard, dirs [4][2]int) Bitboard {
	var b Bitboard
	for _, d := range dirs {
		f, r := s.File()+d[0], s.Rank()+d[1]
		for f >= 0 && f < 8 && r >= 0 && r < 8 {
			t := MakeSquare(f, r)
			b |= t.Bitboard()
			if occ.Has(t) {
				break
			}
			f += d[0]
			r += d[1]
		}
	}
	return b
}

func init() {
	for s := Square(0); s < 64; s++ {
		f, r := s.File(), s.Rank()
		for _, d := range [8][2]int{{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}} {
			if ff, rr := f+d[0], r+d[1]; ff >= 0 && ff < 8 && rr >= 0 && rr < 8 {
				knightAttacks[s] |= MakeSquare(ff, rr).Bitboard()
			}
		}
		for df := -1; df <= 1; df++ {
			for dr := -1; dr <= 1; dr++ {
				if ff, rr := f+df, r+dr; (df != 0 || dr != 0) && ff >= 0 && ff < 8 && rr >= 0 && rr < 8 {
					kingAttacks[s] |= MakeSquare(ff, rr).Bitboard()
				}
			}
		}
		b := s.Bitboard()
		pawnAttacks[White][s] = b.North().East() | b.North().West()
		pawnAttacks[Black][s] = b.South().East() | b.South().West()
	}
	initMagics()
	for a := Square(0); a < 64; a++ {
		for b := Square(0); b < 64; b++ {
			if a == b {
				continue
			}
			df, dr := b.File()-a.File(), b.Rank()-a.Rank()
			if df != 0 && dr != 0 && df != dr && df != -dr {
				continue // not aligned
			}
			df, dr = sign(df), sign(dr)
			line := a.Bitboard()
			for _, k := range [2]int{1, -1} {
				for f, r := a.File()+k*df, a.Rank()+k*dr; f >= 0 && f < 8 && r >= 0 && r < 8; f, r = f+k*df, r+k*dr {
					line |= MakeSquare(f, r).Bitboard()
				}
			}
			lineBB[a][b] = line
			for f, r := a.File()+df, a.Rank()+dr; MakeSquare(f, r) != b; f, r = f+df, r+dr {
				betweenBB[a][b] |= MakeSquare(f, r).Bitboard()
			}
		}
	}
}

func sign(x int) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// relevantMask returns the occupancy squares that matter for a slider on s
// (its rays without the board edge).
func relevantMask(s Square, dirs [4][2]int) Bitboard {
	var b Bitboard
	for _, d := range dirs {
		f, r := s.File()+d[0], s.Rank()+d[1]
		for f+d[0] >= 0 && f+d[0] < 8 && r+d[1] >= 0 && r+d[1] < 8 {
			b |= MakeSquare(f, r).Bitboard()
			f += d[0]
			r += d[1]
		}
	}
	return b
}

// prng is a small deterministic xorshift64* generator used only at init.
type prng struct{ s uint64 }

func (p *prng) next() uint64 {
	p.s ^= p.s >> 12
	p.s ^= p.s << 25
	p.s ^= p.s >> 27
	return p.s * 2685821657736338717
}

func (p *prng) sparse() uint64 { return p.next() & p.next() & p.next() }

func initMagics() {
	sliderTable = make([]Bitboard, 0, 102400+5248)
	var occs, atts [4096]Bitboard
	var epoch [4096]int
	cur := 0
	rng := prng{s: 0x9E3779B97F4A7C15}
	for _, kind := range []struct {
		dirs   [4][2]int
		table  *[64]magic
		hinted *[64]uint64
	}{{rookDirs, &rookMagics, &rookMagicNumbers}, {bishopDirs, &bishopMagics, &bishopMagicNumbers}} {
		for s := Square(0); s < 64; s++ {
			m := &kind.table[s]
			m.mask = relevantMask(s, kind.dirs)
			n := m.mask.Count()
			m.shift = uint8(64 - n)
			m.offset = uint32(len(sliderTable))
			size := 1 << n
			// Enumerate all subsets of the mask (Carry-Rippler).
			var sub Bitboard
			for i := 0; i < size; i++ {
				occs[i] = sub
				atts[i] = slowSlider(s, sub, kind.dirs)
				sub = (sub - m.mask) & m.mask
			}
			sliderTable = sliderTable[:len(sliderTable)+size]
			table := sliderTable[m.offset:]
			try := kind.hinted[s]
			for {
				if try == 0 {
					try = rng.sparse()
				}
				if (Bitboard((uint64(m.mask) * try) >> 56)).Count() >= 6 {
					cur++
					ok := true
					for i := 0; i < size; i++ {
						idx := (uint64(occs[i]) * try) >> m.shift
						if epoch[idx] != cur {
							epoch[idx] = cur
							table[idx] = atts[i]
						} else if table[idx] != atts[i] {
							ok = false
							break
						}
					}
					if ok {
						m.mul = try
						break
					}
				}
				try = 0
			}
		}
	}
}

// PawnAttacksSet returns every square attacked by colour c's pawns on the
// squares of b.
func PawnAttacksSet(c Color, b Bitboard) Bitboard {
	if c == White {
		return (b&^FileA)<<7 | (b&^FileH)<<9
	}
	return (b&^FileA)>>9 | (b&^FileH)>>7
}
