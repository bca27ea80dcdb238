// Package nnuedata holds the binary format of the positions a network is
// trained on: a fixed-size packed Record per position (pieces, side to move,
// castling, en passant, clocks, the search score and the game result) and
// files of them behind a small header (magic, version, record count). It
// reads and writes them; docs/nnue-data.md gives the layout byte by byte.
//
// cmd/datagen generates such files by self-play (internal/tune), converts
// the tuner's text data to them and prints their statistics. The engine
// never imports this package.
package nnuedata
