package config

import (
	"strings"
	"testing"
)

// engine.builtin.learn is off by default; learn_max_entries has a default
// and bounds; check-config's summary says whether the memory is on.
func TestLearnKeys(t *testing.T) {
	d := Default()
	if d.Engine.Builtin.Learn || d.Engine.Builtin.LearnMaxEntries != 100_000 {
		t.Fatalf("default learn %v, learn_max_entries %d: want off and 100000", d.Engine.Builtin.Learn, d.Engine.Builtin.LearnMaxEntries)
	}
	if s := d.Summary(); !strings.Contains(s, "learn:       off") {
		t.Errorf("default summary lacks the learning memory:\n%s", s)
	}
	c, err := Parse([]byte("engine:\n  builtin:\n    learn: true\n    learn_max_entries: 5000\n"), "bot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !c.Engine.Builtin.Learn || c.Engine.Builtin.LearnMaxEntries != 5000 {
		t.Fatalf("learn %v, learn_max_entries %d", c.Engine.Builtin.Learn, c.Engine.Builtin.LearnMaxEntries)
	}
	if s := c.Summary(); !strings.Contains(s, "learn:       on: a learning memory of at most 5000 entries") {
		t.Errorf("summary:\n%s", s)
	}
	for _, bad := range []string{"learn_max_entries: 10", "learn_max_entries: -1"} {
		_, err := Parse([]byte("engine:\n  builtin:\n    "+bad+"\n"), "bot.yaml")
		if err == nil || !strings.Contains(err.Error(), "engine.builtin.learn_max_entries: must be between 1000 and") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
