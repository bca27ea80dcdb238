package nnue

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// The net file (docs/nnue-net.md), all integers little-endian:
//
//	bytes  0–7   magic "PNDRNNUE"
//	bytes  8–9   format version, uint16 (Version)
//	bytes 10–11  activation, uint16 (1 clipped ReLU, 2 squared clipped ReLU)
//	bytes 12–13  inputs per perspective, uint16 (Inputs = 768)
//	bytes 14–15  hidden size H, uint16
//	bytes 16–17  QA, uint16: input weights and biases are float × QA
//	bytes 18–19  QB, uint16: output weights are float × QB
//	bytes 20–21  scale, uint16: centipawns per unit of float output
//	bytes 22–23  reserved, 0
//	bytes 24–27  payload size in bytes, uint32 (PayloadSize(H))
//	bytes 28–31  CRC-32 (IEEE) of the payload, uint32
//
// then the payload: InputWeights (Inputs·H int16, feature by feature),
// InputBiases (H int16), OutputWeights (2H int16, the side to move's half
// first), OutputBias (int32, scale QA·QB). The file ends there.
const (
	Magic      = "PNDRNNUE"
	Version    = 1
	HeaderSize = 32
	Inputs     = 768
)

// Limits a net file must respect (they keep the reference evaluation's
// int64 sums far from overflow).
const (
	MaxHidden = 16384
	MaxQ      = 4096
)

// Activation is the hidden layer's activation function.
type Activation uint16

// The activations, as stored in the header.
const (
	// CReLU is the clipped ReLU: clamp(x, 0, 1).
	CReLU Activation = 1
	// SCReLU is the squared clipped ReLU: clamp(x, 0, 1)².
	SCReLU Activation = 2
)

// String returns "crelu" or "screlu".
func (a Activation) String() string {
	switch a {
	case CReLU:
		return "crelu"
	case SCReLU:
		return "screlu"
	}
	return fmt.Sprintf("activation(%d)", uint16(a))
}

// ParseActivation reads "crelu" or "screlu".
func ParseActivation(s string) (Activation, error) {
	switch strings.ToLower(s) {
	case "crelu":
		return CReLU, nil
	case "screlu":
		return SCReLU, nil
	}
	return 0, fmt.Errorf("activation %q: want crelu or screlu", s)
}

// Feature returns the input index (0–767) of piece pc on square sq as seen
// by perspective persp:
//
//	384·(pc's colour ≠ persp) + 64·(type − 1) + (sq for White, sq^56 for Black)
//
// The side's own pieces come first; Black sees the board mirrored
// vertically (a8 becomes a1).
func Feature(persp board.Color, pc board.Piece, sq board.Square) int {
	f := 64*(int(pc.Type())-1) + int(sq^board.Square(56*int(persp)))
	if pc.Color() != persp {
		f += 384
	}
	return f
}

// ErrFormat is wrapped by every error about a net file that does not follow
// the format.
var ErrFormat = errors.New("bad NNUE net file")

func formatErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrFormat, fmt.Sprintf(format, args...))
}

// Net is a quantised network.
type Net struct {
	Hidden int        // H
	Act    Activation // CReLU or SCReLU
	QA     int        // scale of the input weights and biases
	QB     int        // scale of the output weights
	Scale  int        // centipawns per unit of (float) output

	InputWeights  []int16 // Inputs·Hidden: feature f's weights are [f·Hidden, (f+1)·Hidden)
	InputBiases   []int16 // Hidden
	OutputWeights []int16 // 2·Hidden: the side to move's hidden units, then the other side's
	OutputBias    int32   // scale QA·QB

	id string // set by Read: the ID, computed once (see ID)
}

// PayloadSize returns the bytes after the header of a net with hidden size h.
func PayloadSize(h int) int { return 2*Inputs*h + 2*h + 2*2*h + 4 }

// Validate checks the sizes and scales, and that the int16 accumulator
// cannot overflow: for every hidden unit, the bias plus the 32 largest
// input weights in absolute value stay within ±32767, so an incremental
// accumulator of int16 holds any position with at most 32 pieces.
func (n *Net) Validate() error {
	switch {
	case n.Act != CReLU && n.Act != SCReLU:
		return formatErr("unknown activation %d", uint16(n.Act))
	case n.Hidden < 1 || n.Hidden > MaxHidden:
		return formatErr("hidden size %d, want 1–%d", n.Hidden, MaxHidden)
	case n.QA < 1 || n.QA > MaxQ || n.QB < 1 || n.QB > MaxQ:
		return formatErr("scales QA %d, QB %d: want 1–%d", n.QA, n.QB, MaxQ)
	case n.Scale < 1 || n.Scale > 65535:
		return formatErr("output scale %d, want 1–65535", n.Scale)
	case len(n.InputWeights) != Inputs*n.Hidden || len(n.InputBiases) != n.Hidden || len(n.OutputWeights) != 2*n.Hidden:
		return formatErr("%d input weights, %d biases, %d output weights for hidden size %d",
			len(n.InputWeights), len(n.InputBiases), len(n.OutputWeights), n.Hidden)
	}
	var col [Inputs]int32
	for j := 0; j < n.Hidden; j++ {
		for f := range col {
			col[f] = abs32(int32(n.InputWeights[f*n.Hidden+j]))
		}
		slices.Sort(col[:])
		sum := abs32(int32(n.InputBiases[j]))
		for _, w := range col[Inputs-32:] {
			sum += w
		}
		if sum > 32767 {
			return formatErr("hidden unit %d: bias and 32 largest input weights reach %d, an int16 accumulator overflows", j, sum)
		}
	}
	return nil
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// MarshalBinary returns the net file's bytes.
func (n *Net) MarshalBinary() ([]byte, error) {
	if err := n.Validate(); err != nil {
		return nil, err
	}
	size := PayloadSize(n.Hidden)
	b := make([]byte, HeaderSize+size)
	copy(b[0:8], Magic)
	le := binary.LittleEndian
	le.PutUint16(b[8:], Version)
	le.PutUint16(b[10:], uint16(n.Act))
	le.PutUint16(b[12:], Inputs)
	le.PutUint16(b[14:], uint16(n.Hidden))
	le.PutUint16(b[16:], uint16(n.QA))
	le.PutUint16(b[18:], uint16(n.QB))
	le.PutUint16(b[20:], uint16(n.Scale))
	le.PutUint32(b[24:], uint32(size))
	o := HeaderSize
	for _, ws := range [][]int16{n.InputWeights, n.InputBiases, n.OutputWeights} {
		for _, w := range ws {
			le.PutUint16(b[o:], uint16(w))
			o += 2
		}
	}
	le.PutUint32(b[o:], uint32(n.OutputBias))
	le.PutUint32(b[28:], crc32.ChecksumIEEE(b[HeaderSize:]))
	return b, nil
}

// WriteTo writes the net file to w.
func (n *Net) WriteTo(w io.Writer) (int64, error) {
	b, err := n.MarshalBinary()
	if err != nil {
		return 0, err
	}
	k, err := w.Write(b)
	if err != nil {
		return int64(k), fmt.Errorf("write NNUE net: %w", err)
	}
	return int64(k), nil
}

// Save writes the net file to path (through path+".part" and a rename, so
// a reader never sees half a file).
func (n *Net) Save(path string) error {
	b, err := n.MarshalBinary()
	if err != nil {
		return err
	}
	tmp := path + ".part"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("save NNUE net: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("save NNUE net: %w", err)
	}
	return nil
}

// Read reads a net file: the header, the payload (its size and CRC), and
// nothing after it. Every format error wraps ErrFormat.
func Read(r io.Reader) (*Net, error) {
	var h [HeaderSize]byte
	if k, err := io.ReadFull(r, h[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, formatErr("header cut short after %d of %d bytes", k, HeaderSize)
		}
		return nil, fmt.Errorf("read NNUE net header: %w", err)
	}
	le := binary.LittleEndian
	if string(h[0:8]) != Magic {
		return nil, formatErr("magic %q, want %q (not a ponderosa net file)", h[0:8], Magic)
	}
	if v := le.Uint16(h[8:]); v != Version {
		return nil, formatErr("version %d, this build reads version %d", v, Version)
	}
	if in := le.Uint16(h[12:]); in != Inputs {
		return nil, formatErr("%d inputs per perspective, want %d", in, Inputs)
	}
	if res := le.Uint16(h[22:]); res != 0 {
		return nil, formatErr("reserved bytes 22–23 are %#x, want 0", res)
	}
	n := &Net{
		Act:    Activation(le.Uint16(h[10:])),
		Hidden: int(le.Uint16(h[14:])),
		QA:     int(le.Uint16(h[16:])),
		QB:     int(le.Uint16(h[18:])),
		Scale:  int(le.Uint16(h[20:])),
	}
	if n.Act != CReLU && n.Act != SCReLU {
		return nil, formatErr("unknown activation %d", uint16(n.Act))
	}
	if n.Hidden < 1 || n.Hidden > MaxHidden {
		return nil, formatErr("hidden size %d, want 1–%d", n.Hidden, MaxHidden)
	}
	size := PayloadSize(n.Hidden)
	if s := le.Uint32(h[24:]); s != uint32(size) {
		return nil, formatErr("payload size %d, hidden size %d needs %d", s, n.Hidden, size)
	}
	p := make([]byte, size)
	if k, err := io.ReadFull(r, p); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, formatErr("truncated: payload cut short after %d of %d bytes", k, size)
		}
		return nil, fmt.Errorf("read NNUE net payload: %w", err)
	}
	if sum, want := crc32.ChecksumIEEE(p), le.Uint32(h[28:]); sum != want {
		return nil, formatErr("payload checksum %08x, the header says %08x (corrupt file)", sum, want)
	}
	var extra [1]byte
	if k, _ := io.ReadFull(r, extra[:]); k != 0 {
		return nil, formatErr("data after the %d-byte payload", size)
	}
	n.InputWeights = make([]int16, Inputs*n.Hidden)
	n.InputBiases = make([]int16, n.Hidden)
	n.OutputWeights = make([]int16, 2*n.Hidden)
	o := 0
	for _, ws := range [][]int16{n.InputWeights, n.InputBiases, n.OutputWeights} {
		for i := range ws {
			ws[i] = int16(le.Uint16(p[o:]))
			o += 2
		}
	}
	n.OutputBias = int32(le.Uint32(p[o:]))
	if err := n.Validate(); err != nil {
		return nil, err
	}
	n.id = n.computeID() // once per net, not per game (see ID)
	return n, nil
}

// Load reads the net file at path.
func Load(path string) (*Net, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open NNUE net: %w", err)
	}
	defer f.Close()
	n, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}
