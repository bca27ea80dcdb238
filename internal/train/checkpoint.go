package train

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine/nnue"
)

// A checkpoint holds everything a run needs to go on: the float weights,
// Adam's moments and step count, and where in which epoch it stopped. All
// integers little-endian, floats IEEE 754 binary32:
//
//	bytes  0–7   magic "PNDRCKPT"
//	bytes  8–11  version, uint32 (CheckpointVersion)
//	bytes 12–15  hidden size H, uint32
//	bytes 16–19  activation, uint32 (nnue.Activation)
//	bytes 20–23  completed epochs, uint32
//	bytes 24–31  batches done in the next epoch, uint64
//	bytes 32–39  Adam steps taken, uint64
//	bytes 40–43  settings length L, uint32
//	then         L bytes of settings text (Trainer.Settings)
//	then         the parameters, Adam's first moments, Adam's second moments:
//	             NumParams(H) float32 each, in Net.P's layout
//	then         CRC-32 (IEEE) of everything before it, uint32
const (
	CheckpointMagic   = "PNDRCKPT"
	CheckpointVersion = 1
)

// ErrCheckpoint is wrapped by errors about a checkpoint file that is
// corrupt, truncated or not one.
var ErrCheckpoint = errors.New("bad checkpoint")

// Settings returns the text that a checkpoint must match to be resumed:
// everything that changes what a batch computes except the learning rate
// schedule and the number of epochs (which may change between runs, e.g.
// to train longer). data describes the training and validation sets.
func (t *Trainer) Settings(data string) string {
	return fmt.Sprintf("hidden=%d act=%v lambda=%g scale=%g batch=%d shards=%d seed=%d data=%s",
		t.Hidden, t.Act, t.Lambda, t.Scale, t.Batch, t.Shards, t.Seed, data)
}

// SaveCheckpoint writes the trainer's state to path (through path+".part"
// and a rename).
func (t *Trainer) SaveCheckpoint(path, settings string) error {
	np := len(t.Net.P)
	b := make([]byte, 0, 48+len(settings)+12*np)
	le := binary.LittleEndian
	b = append(b, CheckpointMagic...)
	b = le.AppendUint32(b, CheckpointVersion)
	b = le.AppendUint32(b, uint32(t.Hidden))
	b = le.AppendUint32(b, uint32(t.Act))
	b = le.AppendUint32(b, uint32(t.epoch))
	b = le.AppendUint64(b, uint64(t.batch))
	b = le.AppendUint64(b, t.opt.t)
	b = le.AppendUint32(b, uint32(len(settings)))
	b = append(b, settings...)
	for _, xs := range [][]float32{t.Net.P, t.opt.m, t.opt.v} {
		for _, x := range xs {
			b = le.AppendUint32(b, math.Float32bits(x))
		}
	}
	b = le.AppendUint32(b, crc32.ChecksumIEEE(b))
	tmp := path + ".part"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("save checkpoint: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("save checkpoint: %w", err)
	}
	return nil
}

// Checkpoint is a checkpoint file's content.
type Checkpoint struct {
	Net      *Net
	M, V     []float32 // Adam's moments
	Epoch    int       // completed epochs
	Batch    int       // batches done in the next epoch
	Steps    uint64    // Adam steps taken
	Settings string    // Trainer.Settings
}

// ReadCheckpoint reads a checkpoint file. Errors about its content wrap
// ErrCheckpoint.
func ReadCheckpoint(path string) (*Checkpoint, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read checkpoint: %w", err)
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("read checkpoint %s: %w: %s", path, ErrCheckpoint, fmt.Sprintf(format, args...))
	}
	le := binary.LittleEndian
	if len(b) < 44 {
		return nil, fail("%d bytes, shorter than the header", len(b))
	}
	if string(b[:8]) != CheckpointMagic {
		return nil, fail("magic %q, want %q", b[:8], CheckpointMagic)
	}
	if v := le.Uint32(b[8:]); v != CheckpointVersion {
		return nil, fail("version %d, this build reads %d", v, CheckpointVersion)
	}
	h, act := int(le.Uint32(b[12:])), nnue.Activation(le.Uint32(b[16:]))
	if h < 1 || h > nnue.MaxHidden {
		return nil, fail("hidden size %d", h)
	}
	if act != nnue.CReLU && act != nnue.SCReLU {
		return nil, fail("activation %d", uint32(act))
	}
	sl := uint64(le.Uint32(b[40:]))
	np := NumParams(h)
	want := 44 + sl + 12*uint64(np) + 4
	if uint64(len(b)) != want {
		return nil, fail("%d bytes, want %d for hidden size %d (truncated or corrupt)", len(b), want, h)
	}
	if sum := crc32.ChecksumIEEE(b[:len(b)-4]); sum != le.Uint32(b[len(b)-4:]) {
		return nil, fail("checksum mismatch (corrupt file)")
	}
	c := &Checkpoint{
		Net:      &Net{H: h, Act: act, P: make([]float32, np)},
		M:        make([]float32, np),
		V:        make([]float32, np),
		Epoch:    int(le.Uint32(b[20:])),
		Batch:    int(min(le.Uint64(b[24:]), 1<<40)),
		Steps:    le.Uint64(b[32:]),
		Settings: string(b[44 : 44+sl]),
	}
	o := 44 + int(sl)
	for _, xs := range [][]float32{c.Net.P, c.M, c.V} {
		for i := range xs {
			xs[i] = math.Float32frombits(le.Uint32(b[o:]))
			o += 4
		}
	}
	return c, nil
}

// Setting returns the value of key in the checkpoint's settings ("" when
// absent), e.g. Setting("scale").
func (c *Checkpoint) Setting(key string) string {
	for _, f := range strings.Fields(c.Settings) {
		if k, v, ok := strings.Cut(f, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// LoadCheckpoint restores the trainer's state from path. The checkpoint
// must have the trainer's hidden size and activation, and settings equal
// to settings; the error says what differs.
func (t *Trainer) LoadCheckpoint(path, settings string) error {
	c, err := ReadCheckpoint(path)
	if err != nil {
		return err
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("load checkpoint %s: %w: %s", path, ErrCheckpoint, fmt.Sprintf(format, args...))
	}
	if c.Net.H != t.Hidden || c.Net.Act != t.Act {
		return fail("hidden size %d and activation %v, this run has %d and %v", c.Net.H, c.Net.Act, t.Hidden, t.Act)
	}
	if c.Settings != settings {
		return fail("written with other settings:\n  checkpoint: %s\n  this run:   %s", c.Settings, settings)
	}
	if c.Batch >= t.BatchesPerEpoch() {
		return fail("batch %d of an epoch of %d batches", c.Batch, t.BatchesPerEpoch())
	}
	copy(t.Net.P, c.Net.P)
	copy(t.opt.m, c.M)
	copy(t.opt.v, c.V)
	t.epoch, t.batch, t.opt.t = c.Epoch, c.Batch, c.Steps
	t.permFor = 0
	return nil
}
