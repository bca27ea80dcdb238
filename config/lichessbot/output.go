package lichessbot

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/ponderosa-chess/ponderosa/config"
	"gopkg.in/yaml.v3"
)

// builder assembles the ponderosa YAML in the order keys are set, each
// value with a comment naming the lichess-bot setting it came from.
type builder struct {
	root *yaml.Node
}

func newBuilder() *builder {
	return &builder{root: &yaml.Node{Kind: yaml.MappingNode}}
}

// set writes value at the key path, creating the sections on the way.
// from is the comment written after the value ("" for none).
func (b *builder) set(path []string, value any, from string) {
	m := b.mapping(path[:len(path)-1])
	v := valueNode(value)
	v.LineComment = from
	key := path[len(path)-1]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}

// flow writes the section at path on one line, with comment after it.
func (b *builder) flow(path []string, comment string) {
	m := b.mapping(path)
	m.Style = yaml.FlowStyle
	m.LineComment = comment
}

// mapping returns the section at path, creating it when missing.
func (b *builder) mapping(path []string) *yaml.Node {
	m := b.root
	for _, key := range path {
		var next *yaml.Node
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				next = m.Content[i+1]
				break
			}
		}
		if next == nil {
			next = &yaml.Node{Kind: yaml.MappingNode}
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, next)
		}
		m = next
	}
	return m
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func valueNode(value any) *yaml.Node {
	switch v := value.(type) {
	case string:
		return str(v)
	case int:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(v)}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v)}
	case time.Duration:
		return str(formatDuration(v))
	case []string:
		n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, s := range v {
			n.Content = append(n.Content, str(s))
		}
		return n
	case []int:
		n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, i := range v {
			n.Content = append(n.Content, valueNode(i))
		}
		return n
	case []config.TimeControl:
		n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, tc := range v {
			s := str(tc.String())
			s.Style = yaml.DoubleQuotedStyle
			n.Content = append(n.Content, s)
		}
		return n
	case map[string][]string:
		n := &yaml.Node{Kind: yaml.MappingNode}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			n.Content = append(n.Content, str(k), valueNode(v[k]))
		}
		return n
	case map[string]string:
		n := &yaml.Node{Kind: yaml.MappingNode}
		for _, k := range sortedKeys(v) {
			n.Content = append(n.Content, str(k), str(v[k]))
		}
		return n
	}
	panic(fmt.Sprintf("lichessbot: no YAML form for %T", value))
}

// formatDuration writes d the short way ponderosa's examples do: "2s",
// "30m", "1h30m", "1500ms".
func formatDuration(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0:
		if d > time.Hour {
			return formatDuration(d/time.Hour*time.Hour) + formatDuration(d%time.Hour)
		}
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	case d%time.Second == 0:
		if d > time.Minute {
			return formatDuration(d/time.Minute*time.Minute) + formatDuration(d%time.Minute)
		}
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	case d%time.Millisecond == 0:
		return strconv.FormatInt(int64(d/time.Millisecond), 10) + "ms"
	}
	return d.String()
}

// encode writes the document with a header comment.
func (b *builder) encode(header string) ([]byte, error) {
	doc := &yaml.Node{Kind: yaml.DocumentNode, HeadComment: header, Content: []*yaml.Node{b.root}}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("write ponderosa YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("write ponderosa YAML: %w", err)
	}
	return buf.Bytes(), nil
}
