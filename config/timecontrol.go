package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// TimeControl is a real-time clock written "minutes+seconds" as on Lichess:
// "3+2" is 3 minutes base and 2 seconds increment, "0.5+0" is 30 seconds.
type TimeControl struct {
	Base      time.Duration
	Increment time.Duration

	// bad says why the value in the file could not be read; Validate
	// reports it. (Keeping the element, rather than failing its decoding,
	// keeps the list's indexes right in messages.)
	bad string
}

const timeControlHint = `write minutes+seconds, e.g. "3+2" or "0.5+0"`

// ParseTimeControl parses "minutes+seconds". The minutes may be a decimal
// ("0.25", "1.5"); the increment is whole seconds.
func ParseTimeControl(s string) (TimeControl, error) {
	base, inc, ok := strings.Cut(strings.TrimSpace(s), "+")
	if !ok {
		return TimeControl{}, fmt.Errorf("time control %q has no \"+\": %s", s, timeControlHint)
	}
	base, inc = strings.TrimSpace(base), strings.TrimSpace(inc)
	minutes, err := strconv.ParseFloat(base, 64)
	if err != nil || minutes < 0 || minutes > 24*60 || strings.ContainsAny(base, "eEnNiIxXpP_") {
		return TimeControl{}, fmt.Errorf("time control %q: base %q is not a number of minutes: %s", s, base, timeControlHint)
	}
	seconds, err := strconv.Atoi(inc)
	if err != nil || seconds < 0 || seconds > 24*3600 {
		return TimeControl{}, fmt.Errorf("time control %q: increment %q is not a whole number of seconds: %s", s, inc, timeControlHint)
	}
	return TimeControl{
		Base:      time.Duration(minutes*60*1000) * time.Millisecond,
		Increment: time.Duration(seconds) * time.Second,
	}, nil
}

// String writes the time control back as "minutes+seconds".
func (tc TimeControl) String() string {
	return strconv.FormatFloat(tc.Base.Minutes(), 'f', -1, 64) + "+" +
		strconv.FormatInt(int64(tc.Increment/time.Second), 10)
}

// UnmarshalYAML reads "3+2". A bad value is kept and reported by Validate,
// so that decoding goes on and every problem in the file is reported
// together, with the right list index.
func (tc *TimeControl) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		*tc = TimeControl{bad: fmt.Sprintf("expected a time control like \"3+2\", got a %s", kindName(n.Kind))}
		return nil
	}
	v, err := ParseTimeControl(n.Value)
	if err != nil {
		*tc = TimeControl{bad: err.Error()}
		return nil
	}
	*tc = v
	return nil
}

// MarshalYAML writes "3+2".
func (tc TimeControl) MarshalYAML() (any, error) { return tc.String(), nil }

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.AliasNode:
		return "alias"
	case yaml.DocumentNode:
		return "document"
	}
	return "value"
}
