package testsupport

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// VariantEngineName is the name the variant mode's engine gives.
const VariantEngineName = "Fake Variant Engine"

// variantEngine is the fake engine's mode "variant": a per-variant engine
// whose UCI_Variant lists chess, crazyhouse and 3check, and whose every
// search answers the drop N@f3 (with a score and a principal variation).
func variantEngine(in io.Reader, out io.Writer) int {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		switch f := strings.Fields(sc.Text()); {
		case len(f) == 0:
		case f[0] == "uci":
			fmt.Fprint(out, "id name "+VariantEngineName+"\n",
				"option name Ponder type check default false\n",
				"option name UCI_Chess960 type check default false\n",
				"option name UCI_Variant type combo default chess var chess var crazyhouse var 3check\n", "uciok\n")
		case f[0] == "isready":
			fmt.Fprint(out, "readyok\n")
		case f[0] == "go":
			fmt.Fprint(out, "info depth 2 score cp 31 pv N@f3 e7e6\nbestmove N@f3 ponder e7e6\n")
		case f[0] == "quit":
			return 0
		}
	}
	return 0
}
