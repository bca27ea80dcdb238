package config

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Tournament is the tournament section: the Lichess arena tournaments the
// bot joins when it starts (README "Tournaments").
type Tournament struct {
	// Join lists the arenas: each an id (the 8 letters and digits of
	// https://lichess.org/tournament/<id>), or a mapping {id, password,
	// team} for an arena that asks for a password (or entry code) or a
	// team (a team battle). The bot asks for pairings in the order of the
	// list while it has free slots.
	Join []ArenaEntry `yaml:"join"`
}

// ArenaEntry is one arena of tournament.join.
type ArenaEntry struct {
	ID       string
	Password string
	Team     string
	// bad says why the entry could not be read; Validate reports it.
	bad string
}

// arenaIDRE: Lichess arena ids are 8 letters and digits.
var arenaIDRE = regexp.MustCompile(`^[A-Za-z0-9]{8}$`)

// arenaEntryKeys are the keys of an entry written as a mapping.
var arenaEntryKeys = []string{"id", "password", "team"}

// UnmarshalYAML reads an id ("abcd1234") or a mapping {id, password,
// team}. A bad entry is kept and reported by Validate, so that every
// problem of the file is reported together, with the right list index.
func (e *ArenaEntry) UnmarshalYAML(n *yaml.Node) error {
	*e = ArenaEntry{}
	switch n.Kind {
	case yaml.ScalarNode:
		e.ID = strings.TrimSpace(n.Value)
		return nil
	case yaml.MappingNode:
	default:
		e.bad = fmt.Sprintf("expected an arena id or a mapping {id, password, team}, got a %s", kindName(n.Kind))
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(arenaEntryKeys, k.Value) {
			e.bad = fmt.Sprintf("unknown key %q (an entry has %s)", k.Value, strings.Join(arenaEntryKeys, ", "))
			return nil
		}
		if v.Kind != yaml.ScalarNode {
			e.bad = fmt.Sprintf("%s: expected a string, got a %s", k.Value, kindName(v.Kind))
			return nil
		}
		switch k.Value {
		case "id":
			e.ID = strings.TrimSpace(v.Value)
		case "password":
			e.Password = v.Value
		case "team":
			e.Team = strings.TrimSpace(v.Value)
		}
	}
	return nil
}

// MarshalYAML writes the id alone when the entry has no password or team.
// The password is written as "<hidden>".
func (e ArenaEntry) MarshalYAML() (any, error) {
	if e.Password == "" && e.Team == "" {
		return e.ID, nil
	}
	m := map[string]string{"id": e.ID}
	if e.Password != "" {
		m["password"] = "<hidden>"
	}
	if e.Team != "" {
		m["team"] = e.Team
	}
	return m, nil
}

// tournament checks tournament.join: arena ids of 8 letters and digits,
// each once.
func (v *validator) tournament() {
	seen := map[string]bool{}
	for i, e := range v.c.Tournament.Join {
		k := fmt.Sprintf("tournament.join[%d]", i)
		if err := CheckArenaEntry(e); err != nil {
			v.add(k, "%s", err)
		} else if seen[e.ID] {
			v.add(k, "%q is listed twice", e.ID)
		}
		seen[e.ID] = true
	}
}

// CheckArenaEntry checks one arena entry (of tournament.join, or of
// `ponderosa tournament join`): an arena id of 8 letters and digits, and
// a team id if a team is given.
func CheckArenaEntry(e ArenaEntry) error {
	switch {
	case e.bad != "":
		return errors.New(e.bad)
	case !arenaIDRE.MatchString(e.ID):
		return fmt.Errorf("%q is not an arena id: Lichess arena ids are 8 letters and digits, as in https://lichess.org/tournament/<id> (Swiss tournaments are not supported)", e.ID)
	case e.Team != "" && !teamRE.MatchString(e.Team):
		return fmt.Errorf("team %q is not a team id: write the id of the team's address, as in https://lichess.org/team/<id>", e.Team)
	}
	return nil
}

// teamRE: Lichess team ids (the slug of the team's address): lower-case
// letters, digits and "-".
var teamRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,59}$`)

// summary says which arenas the bot joins, for check-config (passwords
// are not shown).
func (t Tournament) summary() string {
	ids := make([]string, len(t.Join))
	for i, e := range t.Join {
		var with []string
		if e.Password != "" {
			with = append(with, "password")
		}
		if e.Team != "" {
			with = append(with, "team "+e.Team)
		}
		ids[i] = e.ID
		if len(with) > 0 {
			ids[i] += " (" + strings.Join(with, ", ") + ")"
		}
	}
	return "joins arena(s) " + strings.Join(ids, ", ") + " at start-up, paired while a slot is free; no matchmaking while one runs"
}
