package nnue

import (
	"crypto/sha256"
	"encoding/hex"
)

// ID names the network: "nnue-" and the first 16 hex digits of the SHA-256
// of its file's bytes (MarshalBinary); "nnue-invalid" for a net that does
// not validate. Knowledge kept across games (the learning memory) carries
// it, so that what one network found is never trusted by another.
func (n *Net) ID() string {
	b, err := n.MarshalBinary()
	if err != nil {
		return "nnue-invalid"
	}
	sum := sha256.Sum256(b)
	return "nnue-" + hex.EncodeToString(sum[:8])
}
