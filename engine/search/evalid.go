package search

import (
	"github.com/ponderosa-chess/ponderosa/engine/eval"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
)

// EvalID names the evaluation a search with net uses (nil: the
// hand-crafted one): the network's ID, or that of the built-in weights.
// Scores found with one evaluation are not trusted by another: the
// learning memory keys its entries by it.
func EvalID(net *nnue.Net) string {
	if net != nil {
		return net.ID()
	}
	return eval.DefaultID()
}
