package board

import (
	"strconv"
	"strings"
)

// ParseEPD parses an EPD line: the first four FEN fields, optionally the
// halfmove and fullmove numbers, then operations "opcode operand...;". It
// returns the position and the operations by opcode, operands with
// surrounding quotes removed (e.g. ops["bm"] = "Nf3 Ng5", ops["id"] =
// "BK.01"). SAN moves in bm/am can be read with ParseSAN.
func ParseEPD(line string) (*Position, map[string]string, error) {
	fields := strings.Fields(line)
	if len(fields) < 4 {
		return nil, nil, fenErr("EPD line %q has fewer than four fields", line)
	}
	n := 4
	// Some EPD files keep the clocks; take them when both are numbers.
	if len(fields) >= 6 && isUint(fields[4]) && isUint(strings.TrimSuffix(fields[5], ";")) {
		n = 6
	}
	fen := strings.Join(fields[:n], " ")
	fen = strings.TrimSuffix(fen, ";")
	p, err := ParseFEN(fen)
	if err != nil {
		return nil, nil, err
	}
	ops := map[string]string{}
	rest := strings.Join(fields[n:], " ")
	for _, op := range strings.Split(rest, ";") {
		op = strings.TrimSpace(op)
		if op == "" {
			continue
		}
		code, operand, _ := strings.Cut(op, " ")
		operand = strings.TrimSpace(operand)
		if len(operand) >= 2 && operand[0] == '"' && operand[len(operand)-1] == '"' {
			operand = operand[1 : len(operand)-1]
		}
		ops[code] = operand
	}
	return p, ops, nil
}

func isUint(s string) bool {
	_, err := strconv.ParseUint(s, 10, 32)
	return err == nil
}
