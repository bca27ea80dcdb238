// Package engine is the root of ponderosa's chess engine: board and move
// generation (engine/board), evaluation (engine/eval), the evaluation
// network's file format and reference evaluation (engine/nnue), search
// (engine/search), Polyglot opening books (engine/book) and Syzygy
// endgame tablebases (engine/syzygy). It knows nothing of HTTP, YAML or
// UCI text.
package engine
