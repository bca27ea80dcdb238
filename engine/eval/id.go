package eval

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
)

// ID names the evaluation w defines: "hce-" and the first 16 hex digits of
// the SHA-256 of its weights (little-endian int32s). Knowledge kept across
// games (the learning memory) carries it, so that what one evaluation
// found is never trusted by another.
func (w *Weights) ID() string {
	b := make([]byte, 4*len(w))
	for i, s := range w {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(s))
	}
	sum := sha256.Sum256(b)
	return "hce-" + hex.EncodeToString(sum[:8])
}

// DefaultID is the ID of the built-in weights.
func DefaultID() string { return defaultWeights.ID() }
