package eval

import "fmt"

// Score packs a middlegame and an endgame value into one int32: the
// middlegame half in the low 16 bits, the endgame half above it. Sums and
// small integer multiples of packed scores stay exact as long as each half
// stays within ±32767.
type Score int32

// S packs a middlegame and an endgame value.
func S(mg, eg int) Score { return Score(int32(uint32(eg)<<16) + int32(mg)) }

// MG returns the middlegame half.
func (s Score) MG() int { return int(int16(uint16(uint32(s)))) }

// EG returns the endgame half.
func (s Score) EG() int { return int(int16(uint16(uint32(s+0x8000) >> 16))) }

// Parameter layout. Every tunable weight of the evaluation is one entry of
// Weights; the constants below name where each group starts. Piece-square
// tables are folded left/right (32 squares per piece: rank*4 + distance
// from the nearer edge file, files a-d), seen from the owner's side.
const (
	IdxMaterial = 0               // 5: pawn, knight, bishop, rook, queen
	IdxPST      = IdxMaterial + 5 // 6*32: per piece type (pawn..king), folded square
	IdxMobN     = IdxPST + 6*32   // 9: knight safe-square count 0..8
	IdxMobB     = IdxMobN + 9     // 14: bishop 0..13
	IdxMobR     = IdxMobB + 14    // 15: rook 0..14
	IdxMobQ     = IdxMobR + 15    // 28: queen 0..27
	IdxPassed   = IdxMobQ + 28    // 8: passed pawn by relative rank
	IdxPassFree = IdxPassed + 8   // 8: passed pawn with an empty path, by rank
	IdxPassSafe = IdxPassFree + 8 // 8: passed pawn whose path the enemy does not attack, by rank
	IdxPassOwnK = IdxPassSafe + 8 // 8: × own king distance to the stop square, by rank
	IdxPassOppK = IdxPassOwnK + 8 // 8: × enemy king distance to the stop square, by rank
	IdxIsolated = IdxPassOppK + 8 // 1
	IdxDoubled  = IdxIsolated + 1 // 1
	IdxBackward = IdxDoubled + 1  // 1
	IdxSupport  = IdxBackward + 1 // 8: pawn defended by a pawn, by rank
	IdxPhalanx  = IdxSupport + 8  // 8: pawn with a pawn beside it, by rank
	IdxKAttack  = IdxPhalanx + 8  // 4: × attacks on the enemy king zone by N, B, R, Q
	IdxKAttCnt  = IdxKAttack + 4  // 8: by number of pieces attacking the king zone (0..7+)
	IdxKAttX    = IdxKAttCnt + 8  // 4: × attacks on the king zone by N, B, R, Q times the number of attackers (2..5)
	IdxSafeChk  = IdxKAttX + 4    // 4: safe checking squares for N, B, R, Q
	IdxShield   = IdxSafeChk + 4  // 8: per king-side file: relative rank of own nearest pawn (0 none)
	IdxStorm    = IdxShield + 8   // 8: per king-side file: relative rank of the nearest enemy pawn (0 none)
	IdxKOpen    = IdxStorm + 8    // 1: open file (no pawns) next to or on the king's file
	IdxKWeak    = IdxKOpen + 1    // 1: enemy king-zone squares we attack that only the king defends
	IdxBPair    = IdxKWeak + 1    // 1
	IdxBPawns   = IdxBPair + 1    // 1: × own pawns on the bishop's square colour
	IdxNOutpost = IdxBPawns + 1   // 1
	IdxBOutpost = IdxNOutpost + 1 // 1
	IdxMinorBP  = IdxBOutpost + 1 // 1: knight or bishop directly behind an own pawn
	IdxROpen    = IdxMinorBP + 1  // 1
	IdxRSemi    = IdxROpen + 1    // 1
	IdxR7th     = IdxRSemi + 1    // 1
	IdxThrPawn  = IdxR7th + 1     // 1: enemy piece attacked by a pawn
	IdxThrMinor = IdxThrPawn + 1  // 5: enemy P..Q attacked by a knight or bishop
	IdxThrRook  = IdxThrMinor + 5 // 5: enemy P..Q attacked by a rook
	IdxHanging  = IdxThrRook + 5  // 1: enemy piece attacked and undefended
	IdxTempo    = IdxHanging + 1  // 1
	// King danger units (middlegame half used; the endgame half stays 0):
	// danger = Σ unit·feature, scored as S(danger²/256, danger/16) when
	// positive. See KD* for the features.
	IdxKDanger = IdxTempo + 1
	NumParams  = IdxKDanger + NumKD
)

// Weights holds every tunable weight as a packed (mg, eg) pair.
type Weights [NumParams]Score

type paramGroup struct {
	name  string
	start int
	n     int
}

// groups lists the parameter groups in layout order; the tuner uses it to
// write weights.go and the tests use it to check the layout has no gaps.
var groups = [...]paramGroup{
	{"Material", IdxMaterial, 5},
	{"PST", IdxPST, 6 * 32},
	{"MobilityKnight", IdxMobN, 9},
	{"MobilityBishop", IdxMobB, 14},
	{"MobilityRook", IdxMobR, 15},
	{"MobilityQueen", IdxMobQ, 28},
	{"PassedRank", IdxPassed, 8},
	{"PassedFreePath", IdxPassFree, 8},
	{"PassedSafePath", IdxPassSafe, 8},
	{"PassedOwnKingDist", IdxPassOwnK, 8},
	{"PassedEnemyKingDist", IdxPassOppK, 8},
	{"Isolated", IdxIsolated, 1},
	{"Doubled", IdxDoubled, 1},
	{"Backward", IdxBackward, 1},
	{"Supported", IdxSupport, 8},
	{"Phalanx", IdxPhalanx, 8},
	{"KingAttack", IdxKAttack, 4},
	{"KingAttackers", IdxKAttCnt, 8},
	{"KingAttackByAttackers", IdxKAttX, 4},
	{"SafeCheck", IdxSafeChk, 4},
	{"KingShield", IdxShield, 8},
	{"KingStorm", IdxStorm, 8},
	{"KingOpenFile", IdxKOpen, 1},
	{"KingWeakSquares", IdxKWeak, 1},
	{"BishopPair", IdxBPair, 1},
	{"BishopSameColourPawns", IdxBPawns, 1},
	{"KnightOutpost", IdxNOutpost, 1},
	{"BishopOutpost", IdxBOutpost, 1},
	{"MinorBehindPawn", IdxMinorBP, 1},
	{"RookOpenFile", IdxROpen, 1},
	{"RookSemiOpenFile", IdxRSemi, 1},
	{"RookOn7th", IdxR7th, 1},
	{"ThreatByPawn", IdxThrPawn, 1},
	{"ThreatByMinor", IdxThrMinor, 5},
	{"ThreatByRook", IdxThrRook, 5},
	{"Hanging", IdxHanging, 1},
	{"Tempo", IdxTempo, 1},
	{"KingDanger", IdxKDanger, NumKD},
}

// ParamName returns a readable name for parameter i, e.g. "MobilityRook[3]".
func ParamName(i int) string {
	for _, g := range groups {
		if i >= g.start && i < g.start+g.n {
			if g.n == 1 {
				return g.name
			}
			return fmt.Sprintf("%s[%d]", g.name, i-g.start)
		}
	}
	return fmt.Sprintf("param[%d]", i)
}

// King-danger features, the inputs of the non-linear king attack term, for
// an attacking side against the enemy king.
const (
	KDBias      = iota // always 1
	KDAttN             // attacks on the king zone by knights
	KDAttB             // … by bishops
	KDAttR             // … by rooks
	KDAttQ             // … by queens
	KDAttackers        // pieces attacking the zone
	KDChkN             // safe knight checks
	KDChkB             // safe bishop checks
	KDChkR             // safe rook checks
	KDChkQ             // safe queen checks
	KDWeak             // zone squares attacked and defended by the king alone
	KDNoQueen          // 1 when the attacker has no queen
	KDShelter          // files next to the king without a shield pawn
	NumKD
)

// KingDangerMG and KingDangerEG turn a danger total into a score.
const (
	KingDangerMG = 256 // mg = danger² / KingDangerMG
	KingDangerEG = 16  // eg = danger / KingDangerEG
)

// GroupRange returns the first index and size of the parameter group with
// the given name (as in ParamName and weights.go), e.g. "PST".
func GroupRange(name string) (start, n int, ok bool) {
	for _, g := range groups {
		if g.name == name {
			return g.start, g.n, true
		}
	}
	return 0, 0, false
}
