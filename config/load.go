package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Load reads, decodes and validates the configuration file at path.
// A relative state_dir, lichess.token_file or log.file is taken relative to
// the directory of the file (a relative game.pgn_dir stays relative: it lies
// under state_dir, see ResolvePGNDir). The error, when the file is
// readable, is Errors: every problem found, each naming the line and what
// to change.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	c, err := decode(data, path)
	if c != nil {
		c.dir = filepath.Dir(path)
		c.StateDir = relativeTo(c.dir, c.StateDir)
		c.Lichess.TokenFile = relativeTo(c.dir, c.Lichess.TokenFile)
		c.Engine.Builtin.EvalFile = relativeTo(c.dir, c.Engine.Builtin.EvalFile)
		c.Log.File = relativeTo(c.dir, c.Log.File)
		for i, d := range c.Engine.Syzygy.Paths {
			c.Engine.Syzygy.Paths[i] = relativeTo(c.dir, d)
		}
		for _, files := range c.Engine.Book.Files {
			for i, f := range files {
				files[i] = relativeTo(c.dir, f)
			}
		}
	}
	return finish(c, err)
}

// Parse decodes and validates a configuration held in data. name is used in
// messages (usually the file name; "" for none). Keys not in the file keep
// their defaults (see Default); relative paths stay as written. The error
// is Errors: every problem found.
func Parse(data []byte, name string) (*Config, error) {
	return finish(decode(data, name))
}

func relativeTo(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// finish validates a decoded config and joins decode and validation problems.
func finish(c *Config, decodeErr error) (*Config, error) {
	var probs Errors
	if decodeErr != nil {
		if !errors.As(decodeErr, &probs) {
			return nil, decodeErr
		}
	}
	if c != nil {
		c.clamp()
		// An element of a list that could not be decoded is left out of
		// the list, so validation would give the wrong index for the
		// elements after it: leave such lists to the decode problem.
		var badLists []string
		for _, p := range probs {
			if i := strings.LastIndexByte(p.Key, '['); i > 0 {
				badLists = append(badLists, p.Key[:i+1])
			}
		}
		var vp Errors
		if err := c.Validate(); errors.As(err, &vp) {
			for _, p := range vp {
				if !slices.ContainsFunc(badLists, func(l string) bool { return strings.HasPrefix(p.Key, l) }) {
					probs = append(probs, p)
				}
			}
		}
	}
	if len(probs) > 0 {
		return nil, probs.sorted()
	}
	return c, nil
}

// decode turns YAML into a Config over the defaults. It returns the Config
// (nil when the YAML cannot be read at all) and the decode problems as Errors.
func decode(data []byte, name string) (*Config, error) {
	c := Default()
	c.source = name
	c.keys = map[string]int{}

	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	switch err := safeDecode(dec, &doc); {
	case errors.Is(err, io.EOF):
		return c, nil // an empty file: all defaults
	case err != nil:
		return nil, Errors{syntaxProblem(name, err)}
	}
	var extra yaml.Node
	if err := safeDecode(dec, &extra); !errors.Is(err, io.EOF) {
		line := 0
		if err == nil {
			line = extra.Line
		}
		return nil, Errors{{File: name, Line: line, Msg: `a second YAML document ("---") follows; keep the whole configuration in one document`}}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return c, nil
		}
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return c, nil // only comments, or "~"
	}
	if root.Kind != yaml.MappingNode {
		return nil, Errors{{File: name, Line: root.Line, Msg: "the file must be a mapping of sections such as \"lichess:\", \"engine:\", \"challenge:\""}}
	}

	w := &walker{file: name, keys: c.keys, values: map[int][]valueAt{}, unknownKeys: map[string]bool{}, known: keyIndex()}
	w.walk(root, reflect.TypeFor[Config](), "")
	probs := w.problems
	if w.lichessBotKeys >= 2 {
		probs = append(probs, Problem{File: name, Msg: lichessBotImportHint})
	}

	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	if err := safeDecode(strict, c); err != nil {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return nil, append(probs, syntaxProblem(name, err))
		}
		for _, msg := range te.Errors {
			if p, ok := w.translate(msg); ok {
				probs = append(probs, p)
			}
		}
	}
	c.Lichess.BaseURL = strings.TrimRight(c.Lichess.BaseURL, "/")
	// matchmaking.correspondence_days alone offers correspondence only:
	// the default time controls stand only where no days are written, or
	// time_controls is written too.
	if _, tcs := c.keys["matchmaking.time_controls"]; !tcs && len(c.Matchmaking.CorrespondenceDays) > 0 {
		c.Matchmaking.TimeControls = nil
	}
	if len(probs) > 0 {
		return c, probs
	}
	return c, nil
}

// safeDecode is dec.Decode(v), with a panic inside yaml.v3 turned into an
// error: a parser bug must not bring the daemon down on a bad file.
func safeDecode(dec *yaml.Decoder, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cannot read the file as YAML (parser failure: %v)", r)
		}
	}()
	return dec.Decode(v)
}

var yamlLineRE = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

func syntaxProblem(file string, err error) Problem {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return Problem{File: file, Line: line, Msg: m[2] + " (YAML syntax: check indentation, colons and quotes)"}
	}
	return Problem{File: file, Msg: strings.TrimPrefix(msg, "yaml: ") + " (YAML syntax)"}
}

// valueAt is a value written in the file and its key path.
type valueAt struct {
	path, value string
	tag         string // the node's short tag: !!str, !!map, !!seq, ...
}

// walker goes through the YAML tree beside the Config type: it finds unknown
// keys (with a did-you-mean) and records where every key and value is, so
// that later messages can name both the key path and the line.
type walker struct {
	file        string
	keys        map[string]int    // key path -> line of the key
	values      map[int][]valueAt // line -> values written on it
	unknownKeys map[string]bool   // "line:key" of unknown keys already reported
	known       map[string][]string
	problems    Errors
	// lichessBotKeys counts the unknown keys that are lichess-bot's.
	lichessBotKeys int
}

var (
	unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()
	durationType    = reflect.TypeFor[time.Duration]()
)

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (w *walker) walk(n *yaml.Node, t reflect.Type, path string) {
	if n.Kind == yaml.AliasNode {
		return // the strict decoder checks what aliases point to
	}
	value := ""
	if n.Kind == yaml.ScalarNode {
		value = n.Value
	}
	w.values[n.Line] = append(w.values[n.Line], valueAt{path, value, n.ShortTag()})
	if t == durationType || reflect.PointerTo(t).Implements(unmarshalerType) {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return
		}
		fields := structFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" {
				continue
			}
			ft, ok := fields[k.Value]
			if !ok {
				w.unknown(k, path, slices.Sorted(maps.Keys(fields)))
				continue
			}
			child := join(path, k.Value)
			w.keys[child] = k.Line
			w.walk(v, ft, child)
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			child := join(path, k.Value)
			w.keys[child] = k.Line
			w.walk(v, t.Elem(), child)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return
		}
		for i, item := range n.Content {
			child := path + "[" + strconv.Itoa(i) + "]"
			w.keys[child] = item.Line
			w.walk(item, t.Elem(), child)
		}
	}
}

// structFields maps the YAML keys of a struct type to their field types.
func structFields(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if opts == "inline" && f.Type.Kind() == reflect.Struct {
			maps.Copy(fields, structFields(f.Type)) // its keys are the outer struct's
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		fields[name] = f.Type
	}
	return fields
}

// keyIndex maps every key name of the schema to the paths where it is valid,
// to tell a user who put a key in the wrong section where it belongs.
func keyIndex() map[string][]string {
	idx := map[string][]string{}
	var visit func(t reflect.Type, path string)
	visit = func(t reflect.Type, path string) {
		if t.Kind() != reflect.Struct || t == durationType || reflect.PointerTo(t).Implements(unmarshalerType) {
			return
		}
		for name, ft := range structFields(t) {
			p := join(path, name)
			idx[name] = append(idx[name], p)
			visit(ft, p)
		}
	}
	visit(reflect.TypeFor[Config](), "")
	for _, paths := range idx {
		slices.Sort(paths)
	}
	return idx
}

func (w *walker) unknown(k *yaml.Node, section string, known []string) {
	where := "at the top level"
	if section != "" {
		where = "in " + section
	}
	msg := fmt.Sprintf("unknown key %q %s", k.Value, where)
	if h := lichessBotHint(join(section, k.Value)); h != "" {
		msg += " (" + h + ")"
		w.lichessBotKeys++
	} else if s := suggest(k.Value, known); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	} else if paths := w.known[k.Value]; len(paths) > 0 {
		msg += fmt.Sprintf(" (it belongs in %s)", strings.Join(paths, " or "))
	} else if ss := suggestByPart(k.Value, known); len(ss) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", quoteOr(ss))
	} else {
		msg += " (known keys: " + strings.Join(known, ", ") + ")"
	}
	w.unknownKeys[strconv.Itoa(k.Line)+":"+k.Value] = true
	w.problems = append(w.problems, Problem{File: w.file, Line: k.Line, Msg: msg})
}

var (
	notFoundRE = regexp.MustCompile(`^field (.+) not found in type (\S+)$`)
	cannotRE   = regexp.MustCompile("^cannot unmarshal (!!\\w+)(?: `(.*)`)? into (.+)$")
)

// translate turns one yaml.v3 type error ("line 3: cannot unmarshal ...")
// into a Problem naming the key and saying what to write instead. It returns
// false for errors the walker has already reported.
func (w *walker) translate(msg string) (Problem, bool) {
	m := yamlLineRE.FindStringSubmatch(msg)
	if m == nil {
		return Problem{File: w.file, Msg: msg}, true
	}
	line, _ := strconv.Atoi(m[1])
	rest := m[2]
	p := Problem{File: w.file, Line: line}
	if nf := notFoundRE.FindStringSubmatch(rest); nf != nil {
		if w.unknownKeys[m[1]+":"+nf[1]] {
			return Problem{}, false
		}
		// A key the walker could not see, e.g. one brought in by a merge key.
		p.Msg = fmt.Sprintf("unknown key %q (not a setting of %s)", nf[1], strings.TrimPrefix(nf[2], "config."))
		return p, true
	}
	if cm := cannotRE.FindStringSubmatch(rest); cm != nil {
		tag, shown, goType := cm[1], cm[2], cm[3]
		at, found := w.valueOn(line, tag, shown)
		if found {
			p.Key = at.path
			if at.value != "" || tag == "!!str" {
				shown = at.value
			}
		}
		p.Msg = describeMismatch(tag, shown, goType)
		if h := lichessBotTypeHint(p.Key, tag); h != "" {
			p.Msg += " (" + h + ")"
		}
		return p, true
	}
	// Messages of our own types (time controls) and anything else.
	if at, found := w.valueOn(line, "", ""); found {
		p.Key = at.path
	}
	p.Msg = rest
	return p, true
}

// valueOn finds the value written on line with the given tag whose text
// starts like shown (yaml.v3 shortens long values to 7 characters and
// "..."); failing that, the last value with the tag, or on the line.
func (w *walker) valueOn(line int, tag, shown string) (valueAt, bool) {
	cands := w.values[line]
	if len(cands) == 0 {
		return valueAt{}, false
	}
	prefix := strings.TrimSuffix(shown, "...")
	for _, c := range slices.Backward(cands) {
		if c.value != "" && prefix != "" && strings.HasPrefix(c.value, prefix) && (tag == "" || c.tag == tag) {
			return c, true
		}
	}
	for _, c := range slices.Backward(cands) {
		if tag != "" && c.tag == tag {
			return c, true
		}
	}
	return cands[len(cands)-1], true
}

const durationHint = `write it like "150ms", "30s", "10m" or "1h30m"`

func describeMismatch(tag, shown, goType string) string {
	var got string
	switch tag {
	case "!!map":
		got = "a mapping"
	case "!!seq":
		got = "a list"
	case "!!str":
		got = strconv.Quote(shown)
	default:
		got = shown
	}
	switch goType {
	case "time.Duration":
		if tag == "!!int" || tag == "!!float" {
			return fmt.Sprintf("%s has no unit: %s", shown, durationHint)
		}
		return fmt.Sprintf("%s is not a duration: %s", got, durationHint)
	case "int":
		return "expected a whole number, got " + got
	case "bool":
		return "expected true or false, got " + got
	case "string":
		return "expected text, got " + got
	case "[]string":
		return "expected a list such as [a, b], got " + got
	case "[]config.TimeControl":
		return `expected a list of time controls such as ["3+2", "5+3"], got ` + got
	case "map[string]string":
		return "expected a mapping of names to values such as {Hash: 256}, got " + got
	}
	if strings.HasPrefix(goType, "config.") {
		return "expected a section of keys (a mapping), got " + got
	}
	return fmt.Sprintf("cannot use %s as %s", got, goType)
}
