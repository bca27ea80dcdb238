package main

import (
	"context"
	"testing"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/ponder"
	"github.com/ponderosa-chess/ponderosa/store"
)

// engine.builtin.learn opens the learning memory in the state database
// (off by default: nothing is opened), and its games record into it.
func TestLearningMemoryFromConfig(t *testing.T) {
	dir := t.TempDir()
	if m := openLearning(parseConfig(t, "engine:\n  builtin: {hash_mb: 8}\n"), dir, discardLogger()); m != nil {
		m.Close()
		t.Fatal("a learning memory opened with engine.builtin.learn off (the default)")
	}
	if m := openLearning(parseConfig(t, "engine:\n  type: external\n  external: {path: /bin/true}\n  builtin: {learn: true}\n"), dir, discardLogger()); m != nil {
		m.Close()
		t.Fatal("a learning memory opened for an external engine")
	}
	cfg := parseConfig(t, "engine:\n  builtin: {hash_mb: 8, tree_memory_mb: 4, learn: true, learn_max_entries: 5000}\n")
	m := openLearning(cfg, dir, discardLogger())
	if m == nil {
		t.Fatal("engine.builtin.learn: true opened no memory")
	}
	defer closeLearning(&m)
	if m.Path() != store.Path(dir) {
		t.Errorf("memory at %s, want the state database %s", m.Path(), store.Path(dir))
	}
	if learningFor(cfg, m) == nil || learningFor(cfg, nil) != nil {
		t.Error("learningFor: want the memory when open, a nil interface when not")
	}
	off := parseConfig(t, "engine:\n  builtin: {learn: false}\n")
	if learningFor(off, m) != nil {
		t.Error("learningFor: a memory with learn off")
	}

	// A game of the factory records into it.
	f, _, err := playerFactoryMemory(cfg, discardLogger(), nil, learningFor(cfg, m))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := f(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.NewGame(ctx, client.GameInfo{ID: "learn1", Variant: "standard", White: true}); err != nil {
		t.Fatal(err)
	}
	g := p.(client.PonderGamer).PonderGame()
	if g == nil {
		t.Fatalf("%T has no ponder.Game", p)
	}
	if _, err := g.Think(ctx, ponder.ThinkLimits{Depth: ponder.DefaultLearnMinDepth}, nil); err != nil {
		t.Fatal(err)
	}
	g.WaitLearning()
	p.Close()
	m.Flush()
	if n, err := m.Count(ctx, ""); err != nil || n == 0 {
		t.Fatalf("entries after a game's search: %d (%v)", n, err)
	}
}
