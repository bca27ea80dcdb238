package search

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// TestFeatureEffects prints, for the full search and with each technique
// switched off, the bench node count at a fixed depth and the ECM-40 solve
// count at a fixed node budget per position:
//
//	PONDEROSA_FEATURES=depth,nodes [PONDEROSA_FEATURES_EPD=file.epd PONDEROSA_FEATURES_MAX=n] \
//	go test ./engine/search -run TestFeatureEffects -v -timeout 30m
func TestFeatureEffects(t *testing.T) {
	v, ok := os.LookupEnv("PONDEROSA_FEATURES")
	if !ok {
		t.Skip("set PONDEROSA_FEATURES=benchDepth,nodesPerPosition")
	}
	depth, nodes := 8, uint64(50000)
	if a, b, ok := cut(v); ok {
		depth, _ = strconv.Atoi(a)
		n, _ := strconv.Atoi(b)
		nodes = uint64(n)
	}
	path := "testdata/ecm40.epd"
	if p := os.Getenv("PONDEROSA_FEATURES_EPD"); p != "" {
		path = p // e.g. a whole suite; PONDEROSA_FEATURES_MAX limits it
	}
	cases, err := loadEPD(path)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := strconv.Atoi(os.Getenv("PONDEROSA_FEATURES_MAX")); n > 0 && n < len(cases) {
		cases = cases[:n]
	}
	variants := []struct {
		name string
		f    features
	}{
		{"all on", features{}},
		{"no RFP", features{noRFP: true}},
		{"no razoring", features{noRazor: true}},
		{"no null move", features{noNull: true}},
		{"no IIR", features{noIIR: true}},
		{"no singular ext", features{noSingular: true}},
		{"no LMP", features{noLMP: true}},
		{"no futility", features{noFutility: true}},
		{"no SEE pruning", features{noSEEPrune: true}},
		{"no LMR", features{noLMR: true}},
		{"no check ext", features{noCheckExt: true}},
		{"no delta pruning", features{noDelta: true}},
		{"no aspiration", features{noAspiration: true}},
		{"no qsearch checks", features{noQChecks: true}},
	}
	e := New(Options{HashMB: 16})
	for _, vr := range variants {
		e.feat = vr.f
		var benchNodes uint64
		for _, fen := range benchFENs {
			e.NewGame()
			p, _ := board.ParseFEN(fen)
			benchNodes += e.Search(context.Background(), p, Limits{Depth: depth}, nil, nil).Nodes
		}
		solved := 0
		for _, c := range cases {
			e.NewGame()
			res := e.Search(context.Background(), mustFEN(t, c.fen), Limits{Nodes: nodes}, nil, nil)
			if c.solved(res.BestMove) {
				solved++
			}
		}
		t.Logf("%-18s bench(d%d) %9d nodes   %d/%d solved at %d nodes", vr.name, depth, benchNodes, solved, len(cases), nodes)
	}
}

func cut(s string) (string, string, bool) {
	for i := range s {
		if s[i] == ',' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
