package uci

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// OptionType is the type of a UCI option.
type OptionType string

// Option types defined by the UCI protocol.
const (
	OptionCheck  OptionType = "check"
	OptionSpin   OptionType = "spin"
	OptionCombo  OptionType = "combo"
	OptionButton OptionType = "button"
	OptionString OptionType = "string"
)

// OptionSpec describes one UCI option, as in an "option name ... type ..."
// line. Min and Max are meaningful for spin options, Vars for combo options.
type OptionSpec struct {
	Name    string
	Type    OptionType
	Default string
	Min     int
	Max     int
	Vars    []string
}

// ErrUnknownOption is returned when setting an option the engine does not
// advertise.
var ErrUnknownOption = errors.New("unknown uci option")

// ErrBadOptionValue is returned when an option value does not fit its spec.
var ErrBadOptionValue = errors.New("bad uci option value")

// String formats o as a UCI "option" line (without newline).
func (o OptionSpec) String() string {
	var b strings.Builder
	b.WriteString("option name ")
	b.WriteString(oneLine(o.Name))
	b.WriteString(" type ")
	b.WriteString(string(o.Type))
	switch o.Type {
	case OptionButton:
	case OptionString:
		b.WriteString(" default ")
		if o.Default == "" {
			b.WriteString("<empty>")
		} else {
			b.WriteString(oneLine(o.Default))
		}
	default:
		b.WriteString(" default ")
		b.WriteString(oneLine(o.Default))
	}
	if o.Type == OptionSpin {
		fmt.Fprintf(&b, " min %d max %d", o.Min, o.Max)
	}
	if o.Type == OptionCombo {
		for _, v := range o.Vars {
			b.WriteString(" var ")
			b.WriteString(oneLine(v))
		}
	}
	return b.String()
}

// ParseOption parses an "option name <id> type <t> [default <x>] [min <x>]
// [max <x>] [var <x>]..." line. Names, defaults and vars may contain spaces.
func ParseOption(line string) (OptionSpec, error) {
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != "option" || f[1] != "name" {
		return OptionSpec{}, fmt.Errorf("parse option %q: want \"option name ...\"", line)
	}
	// Split the rest into keyword sections. "name" runs until "type"; the
	// other values run until the next keyword.
	var o OptionSpec
	i := 2
	var name []string
	for i < len(f) && f[i] != "type" {
		name = append(name, f[i])
		i++
	}
	if len(name) == 0 {
		return OptionSpec{}, fmt.Errorf("parse option %q: empty name", line)
	}
	o.Name = strings.Join(name, " ")
	if i+1 >= len(f) {
		return OptionSpec{}, fmt.Errorf("parse option %q: no type", line)
	}
	o.Type = OptionType(f[i+1])
	switch o.Type {
	case OptionCheck, OptionSpin, OptionCombo, OptionButton, OptionString:
	default:
		return OptionSpec{}, fmt.Errorf("parse option %q: unknown type %q", line, f[i+1])
	}
	i += 2
	isKey := func(s string) bool { return s == "default" || s == "min" || s == "max" || s == "var" }
	var haveMin, haveMax bool
	for i < len(f) {
		key := f[i]
		if !isKey(key) {
			i++ // unknown token: skip
			continue
		}
		j := i + 1
		for j < len(f) && !isKey(f[j]) {
			j++
		}
		val := strings.Join(f[i+1:j], " ")
		i = j
		switch key {
		case "default":
			if o.Type == OptionString && val == "<empty>" {
				val = ""
			}
			o.Default = val
		case "min", "max":
			n, err := strconv.Atoi(val)
			if err != nil {
				return OptionSpec{}, fmt.Errorf("parse option %q: %s %q is not an integer", line, key, val)
			}
			if key == "min" {
				o.Min, haveMin = n, true
			} else {
				o.Max, haveMax = n, true
			}
		case "var":
			o.Vars = append(o.Vars, val)
		}
	}
	if o.Type == OptionSpin && (!haveMin || !haveMax) {
		return OptionSpec{}, fmt.Errorf("parse option %q: spin option without min and max", line)
	}
	return o, nil
}

// Validate checks value against the option's type and range and returns it
// in canonical form (check values lower-cased, combo values spelled as
// advertised). Button options take no value; any value is ignored.
func (o OptionSpec) Validate(value string) (string, error) {
	switch o.Type {
	case OptionButton:
		return "", nil
	case OptionCheck:
		switch strings.ToLower(strings.TrimSpace(value)) {
		case "true":
			return "true", nil
		case "false":
			return "false", nil
		}
		return "", fmt.Errorf("option %q: %w %q: want true or false", o.Name, ErrBadOptionValue, value)
	case OptionSpin:
		n, err := strconv.Atoi(strings.TrimSpace(value))
		if err != nil {
			return "", fmt.Errorf("option %q: %w %q: want an integer in [%d, %d]", o.Name, ErrBadOptionValue, value, o.Min, o.Max)
		}
		if n < o.Min || n > o.Max {
			return "", fmt.Errorf("option %q: %w %d: want an integer in [%d, %d]", o.Name, ErrBadOptionValue, n, o.Min, o.Max)
		}
		return strconv.Itoa(n), nil
	case OptionCombo:
		for _, v := range o.Vars {
			if strings.EqualFold(v, strings.TrimSpace(value)) {
				return v, nil
			}
		}
		return "", fmt.Errorf("option %q: %w %q: want one of %q", o.Name, ErrBadOptionValue, value, o.Vars)
	default:
		if strings.ContainsAny(value, "\r\n") {
			return "", fmt.Errorf("option %q: %w: value contains a line break", o.Name, ErrBadOptionValue)
		}
		return value, nil
	}
}

// FindOption returns the option named name (case-insensitive, as UCI
// prescribes) from specs.
func FindOption(specs []OptionSpec, name string) (OptionSpec, bool) {
	for _, o := range specs {
		if strings.EqualFold(o.Name, strings.TrimSpace(name)) {
			return o, true
		}
	}
	return OptionSpec{}, false
}

// setOptionCommand formats a "setoption" line for o and a validated value.
func setOptionCommand(o OptionSpec, value string) string {
	if o.Type == OptionButton {
		return "setoption name " + o.Name
	}
	return "setoption name " + o.Name + " value " + value
}
