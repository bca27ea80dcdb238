package nnue

import (
	"crypto/sha256"
	"encoding/hex"
)

// ID names the network: "nnue-" and the first 16 hex digits of the SHA-256
// of its file's bytes (MarshalBinary); "nnue-invalid" for a net that does
// not validate. Knowledge kept across games (the learning memory) carries
// it, so that what one network found is never trusted by another.
//
// A net from Read (Load, Embedded, Choose) had its ID computed once when
// read, and ID returns that: such a net is read-only, as a search uses it.
// Any other net (a literal, RandomNet, a trainer's) has it computed again
// at each call, so changing its fields changes its ID.
func (n *Net) ID() string {
	if n.id != "" {
		return n.id
	}
	return n.computeID()
}

// computeID is ID computed from the net's fields.
func (n *Net) computeID() string {
	b, err := n.MarshalBinary()
	if err != nil {
		return "nnue-invalid"
	}
	sum := sha256.Sum256(b)
	return "nnue-" + hex.EncodeToString(sum[:8])
}
