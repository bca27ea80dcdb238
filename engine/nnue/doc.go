// Package nnue holds ponderosa's evaluation network as the engine sees it:
// the quantised net file format (docs/nnue-net.md), its reader and writer,
// the input features, and a plain reference evaluation of a board.Position
// in centipawns.
//
// The network is a perspective network 768 → H → 1 (×2 perspectives):
//
//   - Each side has 768 inputs, one per (piece colour relative to the side,
//     piece type, square seen from the side): Feature gives the index. Black's
//     squares are mirrored vertically, so both sides see their own pieces
//     coming up the board from rank 1.
//   - Both perspectives share one input layer (InputWeights, InputBiases):
//     the accumulator of a side is the bias plus the weight rows of its
//     active features.
//   - The activation (clipped ReLU or squared clipped ReLU) of the side to
//     move's accumulator and of the other side's, concatenated in that
//     order, feed one output (OutputWeights, OutputBias).
//   - The output, times Scale, is the evaluation in centipawns from the side
//     to move's point of view; the trainer fits sigmoid(output) to a blend of
//     sigmoid(search score / Scale) and the game result, so the evaluation
//     keeps the search score's centipawn meaning.
//
// Evaluate is the reference: it recomputes everything from the position in
// exact integer arithmetic and is meant for tests and as the definition the
// engine's incremental accumulator must reproduce. Stack is that
// accumulator: one per search thread, pushed and popped with the moves, it
// returns exactly Evaluate's centipawns without recomputing the input layer.
//
// A net file placed at engine/nnue/embedded/default.nnue is built into the
// binary (Embedded); none is shipped yet. Choose picks the net the engine
// options UseNNUE and EvalFile ask for. The package imports only
// engine/board. The trainer is internal/train (cmd/train).
package nnue
