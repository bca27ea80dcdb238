package tune

import (
	"fmt"
	"os"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// ReadStarts reads start positions for self-play: FENs or EPD lines (the
// first four fields are used; clocks become 0 1). Lines starting with #
// and lines of fewer than four fields are skipped.
func ReadStarts(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read openings: %w", err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || strings.HasPrefix(f[0], "#") {
			continue
		}
		fen := strings.Join(f[:4], " ") + " 0 1"
		if _, err := board.ParseFEN(fen); err != nil {
			return nil, fmt.Errorf("openings %s: %q: %w", path, line, err)
		}
		out = append(out, fen)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("openings %s: no positions", path)
	}
	return out, nil
}
