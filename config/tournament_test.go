package config

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// tournament.join: ids and {id, password, team} mappings are read; what
// validation refuses says where and why.
func TestTournamentKeys(t *testing.T) {
	if j := Default().Tournament.Join; len(j) != 0 {
		t.Errorf("default tournament.join %v, want none", j)
	}
	src := "tournament:\n  join:\n    - hL7vMrFQ\n    - {id: Xy12Ab34, password: \"p w\", team: my-team}\n    - id: Ab12Cd34\n"
	c, err := Parse([]byte(src), "config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []ArenaEntry{{ID: "hL7vMrFQ"}, {ID: "Xy12Ab34", Password: "p w", Team: "my-team"}, {ID: "Ab12Cd34"}}
	if got := c.Tournament.Join; len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("parsed %+v, want %+v", got, want)
	}
	if sum := c.Summary(); !strings.Contains(sum, "joins arena(s) hL7vMrFQ, Xy12Ab34 (password, team my-team), Ab12Cd34 at start-up") || strings.Contains(sum, "p w") {
		t.Errorf("summary:\n%s", sum)
	}
	out, err := yaml.Marshal(c.Tournament)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "p w") || !strings.Contains(string(out), "- hL7vMrFQ") || !strings.Contains(string(out), "team: my-team") {
		t.Errorf("marshalled:\n%s", out)
	}
	for _, tt := range []struct{ src, want string }{
		{"tournament:\n  join: [abc]\n", `config.yaml line 2: tournament.join[0]: "abc" is not an arena id: Lichess arena ids are 8 letters and digits`},
		{"tournament:\n  join: [hL7vMrFQ, \"hL7v-rFQ\"]\n", `tournament.join[1]: "hL7v-rFQ" is not an arena id`},
		{"tournament:\n  join: [hL7vMrFQ, hL7vMrFQ]\n", `tournament.join[1]: "hL7vMrFQ" is listed twice`},
		{"tournament:\n  join:\n    - {id: hL7vMrFQ, pasword: x}\n", `tournament.join[0]: unknown key "pasword" (an entry has id, password, team)`},
		{"tournament:\n  join:\n    - {id: [hL7vMrFQ]}\n", `tournament.join[0]: id: expected a string, got a list`},
		{"tournament:\n  join:\n    - [hL7vMrFQ]\n", `tournament.join[0]: expected an arena id or a mapping {id, password, team}, got a list`},
		{"tournament:\n  join:\n    - {id: hL7vMrFQ, team: My Team}\n", `tournament.join[0]: team "My Team" is not a team id`},
		{"tournament:\n  join: hL7vMrFQ\n", "tournament.join"},
		{"tournament:\n  joins: [hL7vMrFQ]\n", `unknown key "joins" in tournament (did you mean "join"?)`},
	} {
		probs := problemsOf(t, tt.src)
		if !strings.Contains(probs.Error(), tt.want) {
			t.Errorf("%q: problems %q lack %q", tt.src, probs.Error(), tt.want)
		}
	}
}
