package lichessbot

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ponderosa-chess/ponderosa/config"
	"gopkg.in/yaml.v3"
)

// reader walks the lichess-bot YAML tree. Wrong types become problems
// (errors, with the line); keys it is not asked about become notes.
type reader struct {
	file  string
	probs config.Errors
	notes []Note
}

// section is one mapping of the lichess-bot file. A section absent from the
// file (or written empty) has a nil node: every key reads as absent.
type section struct {
	r    *reader
	path string
	line int // the line of the section's key, 0 for the top level
	keys []*yaml.Node
	vals map[string]*yaml.Node
	used map[string]bool
	// asked is every key the translation looked for, written or not: the
	// keys lichess-bot knows in this section, for a did-you-mean.
	asked map[string]bool
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (r *reader) problem(line int, key, format string, args ...any) {
	r.probs = append(r.probs, config.Problem{File: r.file, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)})
}

func (r *reader) note(kind Kind, line int, key, format string, args ...any) {
	r.notes = append(r.notes, Note{Kind: kind, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)})
}

// newSection reads a mapping node; n may be nil (absent) or null.
func (r *reader) newSection(n *yaml.Node, path string, line int) *section {
	return r.readSection(n, path, line, 0)
}

// maxMergeDepth bounds merge keys within merged mappings.
const maxMergeDepth = 16

func (r *reader) readSection(n *yaml.Node, path string, line, depth int) *section {
	s := &section{r: r, path: path, line: line, vals: map[string]*yaml.Node{}, used: map[string]bool{}, asked: map[string]bool{}}
	if n == nil || isNull(n) {
		return s
	}
	if n.Kind != yaml.MappingNode {
		r.problem(n.Line, path, "expected a section of keys (a mapping), got %s", describe(n, false))
		return s
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Value == "<<" && k.Style == 0 {
			merges = append(merges, v)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			r.problem(k.Line, path, "a key must be a plain name")
			continue
		}
		if _, dup := s.vals[k.Value]; dup {
			r.problem(k.Line, join(path, k.Value), "is written twice in this section: keep one")
			continue
		}
		s.keys = append(s.keys, k)
		s.vals[k.Value] = v
	}
	// A merge key ("<<: *defaults", or a list of aliases) adds the keys of
	// the mappings it names that the section does not write itself, the
	// first mapping of a list first, as PyYAML reads it.
	for _, m := range merges {
		r.merge(s, m, depth)
	}
	return s
}

func (r *reader) merge(s *section, m *yaml.Node, depth int) {
	if depth >= maxMergeDepth {
		r.problem(m.Line, join(s.path, "<<"), "merge keys nested more than %d deep", maxMergeDepth)
		return
	}
	if m.Kind == yaml.AliasNode && m.Alias != nil {
		m = m.Alias
	}
	switch m.Kind {
	case yaml.MappingNode:
		from := r.readSection(m, s.path, s.line, depth+1)
		for _, k := range from.keys {
			if _, ok := s.vals[k.Value]; !ok {
				s.keys = append(s.keys, k)
				s.vals[k.Value] = from.vals[k.Value]
			}
		}
	case yaml.SequenceNode:
		for _, item := range m.Content {
			if item.Kind == yaml.SequenceNode {
				r.problem(item.Line, join(s.path, "<<"), "a merge key takes a mapping or a list of mappings, got a list in the list")
				continue
			}
			r.merge(s, item, depth+1)
		}
	default:
		r.problem(m.Line, join(s.path, "<<"), "a merge key takes a mapping or a list of mappings, got %s", describe(m, false))
	}
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe names what a node holds for a message; secret hides the value.
func describe(n *yaml.Node, secret bool) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if secret {
		return "a " + strings.TrimPrefix(n.ShortTag(), "!!") + " value"
	}
	if n.ShortTag() == "!!str" {
		return strconv.Quote(n.Value)
	}
	return n.Value
}

// keyLine is the line of key in s, or the section's line when the key is
// absent.
func (s *section) keyLine(key string) int {
	for _, k := range s.keys {
		if k.Value == key {
			return k.Line
		}
	}
	return s.line
}

// has reports whether key is written with a value other than null.
func (s *section) has(key string) bool {
	s.asked[key] = true
	v, ok := s.vals[key]
	return ok && !isNull(v)
}

// written reports whether key is written at all (null included).
func (s *section) written(key string) bool {
	s.asked[key] = true
	_, ok := s.vals[key]
	return ok
}

// take marks key as handled and returns its value node, nil when the key is
// absent or null.
func (s *section) take(key string) *yaml.Node {
	s.asked[key] = true
	v, ok := s.vals[key]
	if !ok {
		return nil
	}
	s.used[key] = true
	if isNull(v) {
		return nil
	}
	if v.Kind == yaml.AliasNode && v.Alias != nil {
		return v.Alias
	}
	return v
}

// sub reads the section at key.
func (s *section) sub(key string) *section {
	return s.r.newSection(s.take(key), join(s.path, key), s.keyLine(key))
}

func (s *section) wrongType(key string, n *yaml.Node, want string) {
	s.r.problem(n.Line, join(s.path, key), "expected %s, got %s", want, describe(n, false))
}

// str reads a text value; numbers and booleans are taken as their text, as
// lichess-bot would print them.
func (s *section) str(key, def string) string {
	n := s.take(key)
	if n == nil {
		return def
	}
	if n.Kind != yaml.ScalarNode {
		s.wrongType(key, n, "text")
		return def
	}
	return n.Value
}

// yaml11Bools are the booleans of YAML 1.1, which lichess-bot's PyYAML
// reads (yaml.v3 reads only true and false as booleans).
var yaml11Bools = map[string]bool{
	"true": true, "yes": true, "on": true,
	"false": false, "no": false, "off": false,
}

// pyYAMLBools are the plain scalars PyYAML (YAML 1.1) reads as booleans,
// in the spellings it takes.
var pyYAMLBools = map[string]bool{
	"yes": true, "Yes": true, "YES": true, "true": true, "True": true, "TRUE": true, "on": true, "On": true, "ON": true,
	"no": false, "No": false, "NO": false, "false": false, "False": false, "FALSE": false, "off": false, "Off": false, "OFF": false,
}

// pyBool reports the boolean lichess-bot reads from n, a scalar; ok is
// false when PyYAML reads it as something else (a quoted "yes" is text).
func pyBool(n *yaml.Node) (b, ok bool) {
	if n.Kind != yaml.ScalarNode || n.Style != 0 { // quoted, or with a tag such as !!str

		return false, false
	}
	b, ok = pyYAMLBools[n.Value]
	return b, ok
}

func (s *section) boolean(key string, def bool) bool {
	n := s.take(key)
	if n == nil {
		return def
	}
	if n.Kind == yaml.ScalarNode && n.Style == 0 {
		if b, ok := yaml11Bools[strings.ToLower(n.Value)]; ok {
			return b
		}
	}
	s.wrongType(key, n, "true or false")
	return def
}

var numberRE = regexp.MustCompile(`^[-+]?(\.inf|\.Inf|\.INF|[0-9][0-9_]*(\.[0-9]*)?([eE][-+]?[0-9]+)?)$`)

// number reads a number; .inf is +Inf. def is returned when absent.
func (s *section) number(key string, def float64) float64 {
	n := s.take(key)
	if n == nil {
		return def
	}
	if f, ok := parseNumber(n); ok {
		return f
	}
	s.wrongType(key, n, "a number")
	return def
}

func parseNumber(n *yaml.Node) (float64, bool) {
	if n.Kind != yaml.ScalarNode || n.Style != 0 {
		return 0, false
	}
	if t := n.ShortTag(); t != "!!int" && t != "!!float" {
		return 0, false
	}
	v := strings.ReplaceAll(n.Value, "_", "")
	if strings.HasSuffix(strings.ToLower(v), ".inf") {
		if strings.HasPrefix(v, "-") {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	if !numberRE.MatchString(n.Value) {
		if i, err := strconv.ParseInt(v, 0, 64); err == nil { // 0x.., 0o..
			return float64(i), true
		}
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	return f, err == nil
}

// integer reads a whole number.
func (s *section) integer(key string, def int) int {
	n := s.take(key)
	if n == nil {
		return def
	}
	f, ok := parseNumber(n)
	if !ok || f != math.Trunc(f) || math.IsInf(f, 0) || math.Abs(f) > 1e9 {
		s.wrongType(key, n, "a whole number")
		return def
	}
	return int(f)
}

// strList reads a list of text values; a single value is a list of one, as
// lichess-bot takes it. ok is false when the key is absent or null.
func (s *section) strList(key string) (list []string, ok bool) {
	n := s.take(key)
	if n == nil {
		return nil, false
	}
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}, true
	}
	if n.Kind != yaml.SequenceNode {
		s.wrongType(key, n, "a list")
		return nil, false
	}
	for _, item := range n.Content {
		switch {
		case isNull(item):
		case item.Kind == yaml.ScalarNode:
			list = append(list, item.Value)
		default:
			s.r.problem(item.Line, join(s.path, key), "expected a list of names, got %s as an element", describe(item, false))
		}
	}
	return list, true
}

// numList reads a list of numbers; a single number is a list of one, and
// null elements are left out (lichess-bot's way of writing "none").
func (s *section) numList(key string) []float64 {
	list, _ := s.numListNulls(key)
	return list
}

// numListNulls is numList, with how many null elements it left out.
func (s *section) numListNulls(key string) ([]float64, int) {
	n := s.take(key)
	if n == nil {
		return nil, 0
	}
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	var list []float64
	nulls := 0
	for _, item := range items {
		if isNull(item) {
			nulls++
			continue
		}
		f, ok := parseNumber(item)
		if !ok || math.IsInf(f, 0) {
			s.r.problem(item.Line, join(s.path, key), "expected a list of numbers, got %s", describe(item, false))
			continue
		}
		list = append(list, f)
	}
	return list, nulls
}

// drop reports key, when written, as a setting with no equivalent.
func (s *section) drop(kind Kind, key, why string) {
	if !s.written(key) {
		return
	}
	s.take(key)
	s.r.note(kind, s.keyLine(key), join(s.path, key), "%s", why)
}

// dropUnless reports key, when written, as a setting with no equivalent
// (why), or, when its value is off (false, 0, "none"..., or true where
// that is ponderosa's way: the value that
// asks for what ponderosa does anyway), as nothing lost (same).
func (s *section) dropUnless(key, off, same, why string) {
	if !s.written(key) {
		return
	}
	n := s.take(key)
	if n == nil || (n.Kind == yaml.ScalarNode && isOff(n.Value, off)) ||
		(n.Kind != yaml.ScalarNode && len(n.Content) == 0) {
		s.r.note(KindSame, s.keyLine(key), join(s.path, key), "%s", same)
		return
	}
	s.r.note(KindNoEquivalent, s.keyLine(key), join(s.path, key), "%s", why)
}

func isOff(v, off string) bool {
	v = strings.ToLower(v)
	if off == "false" || off == "true" {
		b, ok := yaml11Bools[v]
		return ok && b == (off == "true")
	}
	return v == off
}

// rest reports every key of s that nothing took as unknown.
func (s *section) rest() {
	var known []string
	for k := range s.asked {
		if !s.used[k] {
			known = append(known, k)
		}
	}
	slices.Sort(known)
	for _, k := range s.keys {
		if s.used[k.Value] {
			continue
		}
		if sug := config.Suggest(k.Value, known); sug != "" {
			s.r.note(KindUnknown, k.Line, join(s.path, k.Value),
				"not a setting of lichess-bot %s (did you mean %q?): left out; fix it in the lichess-bot file and import again", Version, sug)
			continue
		}
		s.r.note(KindUnknown, k.Line, join(s.path, k.Value),
			"not a setting of lichess-bot %s (a typo, or a key of another version?): left out", Version)
	}
}
