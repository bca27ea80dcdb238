package eval

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"sync"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// ID names the evaluation w defines: "hce-" and the first 16 hex digits of
// the SHA-256 of its weights (little-endian int32s) followed by its static
// evaluations of the idPositions, so that a change of the evaluation's
// code, not only of its weights, gives a new ID. Knowledge kept across
// games (the learning memory) carries it, so that what one evaluation
// found is never trusted by another. It evaluates a few positions: callers
// keep the result rather than calling it per search.
func (w *Weights) ID() string {
	return idOf(w, NewEvaluatorWith(w).Evaluate)
}

// DefaultID is the ID of the built-in weights, computed at the first call
// and kept: callers ask for it per game.
func DefaultID() string { return defaultID() }

// defaultID computes the built-in weights' ID once. It is set at package
// initialisation and never reassigned: the only state it holds is the
// sync.OnceValue's own, the ID of weights that are read-only.
var defaultID = sync.OnceValue(defaultWeights.ID)

// idOf is ID with the evaluation function given.
func idOf(w *Weights, evaluate func(*board.Position) int) string {
	b := make([]byte, 4*len(w), 4*(len(w)+len(idPositions)))
	for i, s := range w {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(s))
	}
	for _, fen := range idPositions {
		if p, err := board.ParseFEN(fen); err == nil { // they parse (TestIDPositionsParse)
			b = binary.LittleEndian.AppendUint32(b, uint32(int32(evaluate(p))))
		}
	}
	sum := sha256.Sum256(b)
	return "hce-" + hex.EncodeToString(sum[:8])
}

// idPositions are the positions whose static evaluations ID hashes: each
// phase of the game, both sides to move, the evaluation's terms (pawn
// structure, passed pawns, king safety, mobility, material imbalances,
// drawn material).
var idPositions = [...]string{
	board.StartFEN,
	"rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
	"r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
	"r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
	"r2q1rk1/1b2bppp/p2ppn2/1p6/3NP3/1BN1B3/PPP2PPP/R2Q1RK1 b - - 2 11",
	"2kr3r/ppp2ppp/2n1bn2/2b1p3/4P1q1/2NP1N2/PPP1BPPP/R1BQ1RK1 w - - 6 10",
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"6k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 40",
	"8/5pk1/6p1/3P4/8/6P1/5PK1/8 b - - 0 45",
	"8/8/4k3/8/2P5/8/4K3/8 w - - 0 60",
	"8/8/3k4/8/8/3K4/3B4/8 w - - 0 70",
	"8/8/3k4/3p4/3P4/3K4/8/8 w - - 0 55",
	"4r1k1/5ppp/8/8/8/8/5PPP/2R3K1 b - - 3 30",
	"3q2k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 35",
	"r4rk1/pp3ppp/2p5/8/2PP4/8/P4PPP/R4RK1 w - - 0 20",
	"2r2rk1/1p3ppp/p1n1p3/3pP3/3P4/P1N5/1P3PPP/2RR2K1 b - - 1 22",
	"r1b2rk1/ppq2ppp/2n1p3/3pP3/3P4/P1PB1N2/2Q2PPP/R4RK1 w - - 1 14",
	"6k1/pp4pp/8/3N4/8/8/PP4PP/6K1 b - - 0 33",
	"1k6/1pp5/p7/8/8/7P/5PP1/6K1 w - - 0 41",
	"rnb1kbnr/pppp1ppp/8/4p3/5PPq/8/PPPPP2P/RNBQKBNR w KQkq - 1 3",
}
