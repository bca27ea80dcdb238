package config

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Problem is one thing wrong with a configuration, with what to change.
type Problem struct {
	File string // the config file, "" when built in code
	Line int    // 1-based line in File, 0 when not known
	Key  string // dotted key path such as "challenge.concurrency", "" for the whole file
	Msg  string // what is wrong and what to change
}

// Error formats the problem as `config.yaml line 12: challenge.concurrency: ...`.
func (p Problem) Error() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
	}
	if p.Line > 0 {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("line ")
		b.WriteString(strconv.Itoa(p.Line))
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if p.Key != "" {
		b.WriteString(p.Key)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Errors is every problem found in a configuration. Parse, Load and Validate
// return it as their error; use errors.As to get at the single problems.
type Errors []Problem

// Error lists the problems, one a line.
func (e Errors) Error() string {
	lines := make([]string, len(e))
	for i, p := range e {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// sorted orders problems by line (those without a line last), then key.
func (e Errors) sorted() Errors {
	slices.SortStableFunc(e, func(a, b Problem) int {
		la, lb := a.Line, b.Line
		if la == 0 {
			la = 1 << 30
		}
		if lb == 0 {
			lb = 1 << 30
		}
		return cmp.Or(cmp.Compare(la, lb), cmp.Compare(a.Key, b.Key))
	})
	return e
}

// Suggest returns the candidate closest to word when it is close enough to
// be a likely typo, or "": the did-you-mean of this package's messages, for
// other readers of configuration files (config/lichessbot).
func Suggest(word string, candidates []string) string { return suggest(word, candidates) }

// suggest returns the candidate closest to word when it is close enough to
// be a likely typo, or "".
func suggest(word string, candidates []string) string {
	norm := func(s string) string {
		return strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(s))
	}
	w := norm(word)
	best, bestD := "", 1<<30
	for _, c := range candidates {
		d := editDistance(w, norm(c))
		if d < bestD {
			best, bestD = c, d
		}
	}
	// Allow about one edit per three letters, at least one and at most three.
	limit := min(max(len(w)/3, 1), 3)
	if best == "" || bestD > limit {
		return ""
	}
	return best
}

// suggestByPart returns the candidates having a "_"-separated part close to
// word: "incremnt" finds increment_min and increment_max.
func suggestByPart(word string, candidates []string) []string {
	var out []string
	if len(word) < 4 {
		return nil
	}
	for _, c := range candidates {
		if suggest(word, strings.Split(c, "_")) != "" {
			out = append(out, c)
		}
	}
	return out
}

func quoteOr(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = strconv.Quote(w)
	}
	return strings.Join(q, " or ")
}

// editDistance is the Levenshtein distance between a and b, counting an
// adjacent transposition as one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows are enough for transpositions.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
