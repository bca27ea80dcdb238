package train

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"

	"github.com/ponderosa-chess/ponderosa/internal/nnuedata"
)

// ValBlock is the default number of consecutive records that go to the
// validation set or the training set together when a fraction is held out:
// files from cmd/datagen hold games in order, about 80 positions a game, so
// blocks of this size keep nearly every game whole on one side (positions
// of one game are alike, and a game split over both sides would make the
// validation loss look better than it is).
const ValBlock = 4096

// Dataset is a set of records in memory with the files they came from.
type Dataset struct {
	Records []nnuedata.Record
	Sources []string // "name:records" per file, for the checkpoint's settings
}

// Load reads every committed record of the files, in order, and checks
// each with Record.Validate.
func Load(ctx context.Context, paths []string) (*Dataset, error) {
	d := &Dataset{}
	for _, path := range paths {
		r, err := nnuedata.Open(path)
		if err != nil {
			return nil, fmt.Errorf("load training data: %w", err)
		}
		n := r.Header().Records
		if uint64(len(d.Records))+n > math.MaxUint32 {
			r.Close()
			return nil, fmt.Errorf("load training data: %s: more than %d records in all", path, uint32(math.MaxUint32))
		}
		d.Records = append(d.Records, make([]nnuedata.Record, n)...)
		recs := d.Records[len(d.Records)-int(n):]
		for i := range recs {
			if i%(1<<20) == 0 && ctx.Err() != nil {
				r.Close()
				return nil, ctx.Err()
			}
			if err := r.Next(&recs[i]); err != nil {
				r.Close()
				if errors.Is(err, io.EOF) {
					err = fmt.Errorf("%s: ended after %d of %d records", path, i, n)
				}
				return nil, fmt.Errorf("load training data: %w", err)
			}
			if err := recs[i].Validate(); err != nil {
				r.Close()
				return nil, fmt.Errorf("load training data: %s: record %d: %w", path, i, err)
			}
		}
		r.Close()
		d.Sources = append(d.Sources, fmt.Sprintf("%s:%d", filepath.Base(path), n))
	}
	return d, nil
}

// Describe returns the files as "a.bin:1000,b.bin:2000".
func (d *Dataset) Describe() string { return strings.Join(d.Sources, ",") }

// Split holds out about frac of recs for validation, in blocks of block
// consecutive records chosen with seed (at least one block when frac > 0,
// never all of them), and returns the training and validation records (new
// slices; recs is left as it is).
func Split(recs []nnuedata.Record, frac float64, block int, seed uint64) (train, val []nnuedata.Record) {
	block = max(block, 1)
	blocks := (len(recs) + block - 1) / block
	k := int(math.Round(frac * float64(blocks)))
	if frac > 0 && k == 0 && blocks > 1 {
		k = 1
	}
	k = min(k, blocks-1)
	if k <= 0 {
		return append([]nnuedata.Record(nil), recs...), nil
	}
	rng := rand.New(rand.NewPCG(seed, 0x5e7))
	held := make([]bool, blocks)
	for _, b := range rng.Perm(blocks)[:k] {
		held[b] = true
	}
	for b := 0; b < blocks; b++ {
		part := recs[b*block : min((b+1)*block, len(recs))]
		if held[b] {
			val = append(val, part...)
		} else {
			train = append(train, part...)
		}
	}
	return train, val
}
