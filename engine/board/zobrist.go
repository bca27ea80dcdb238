package board

// Zobrist keys, generated once at init from a fixed seed so keys are the
// same in every run (transposition tables may rely on that for debugging).
var (
	zPiece  [16][64]uint64
	zSide   uint64
	zCastle [16]uint64
	zEP     [8]uint64
)

func splitmix64(s *uint64) uint64 {
	*s += 0x9E3779B97F4A7C15
	z := *s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

func init() {
	seed := uint64(0x5eed_0f_b0a2d)
	for pc := range zPiece {
		if Piece(pc).Type() == NoPieceType || Piece(pc).Type() > King {
			continue
		}
		for s := range zPiece[pc] {
			zPiece[pc][s] = splitmix64(&seed)
		}
	}
	zSide = splitmix64(&seed)
	// Castling keys: one random key per right, XOR-combined so that the key of
	// a set of rights is the XOR of the single-right keys.
	var single [4]uint64
	for i := range single {
		single[i] = splitmix64(&seed)
	}
	for r := range zCastle {
		for i := 0; i < 4; i++ {
			if r&(1<<i) != 0 {
				zCastle[r] ^= single[i]
			}
		}
	}
	for f := range zEP {
		zEP[f] = splitmix64(&seed)
	}
}
