// Package ponder keeps one persistent search tree per game: it thinks on the
// opponent's time, re-roots the tree when a move is played, frees branches
// that can no longer happen, and decides the time budget of each move.
package ponder
