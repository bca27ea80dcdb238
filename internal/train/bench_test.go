package train

import (
	"fmt"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/nnue"
)

// BenchmarkAccumulate measures one position forward and back on one
// goroutine (ns/op is per position).
func BenchmarkAccumulate(b *testing.B) {
	recs := synthRecords(4096, 1)
	for _, h := range []int{128, 256} {
		b.Run(fmt.Sprint(h), func(b *testing.B) {
			n, _ := NewNet(h, nnue.SCReLU, 1)
			s := newScratch(h)
			grad := make([]float32, len(n.P))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s.accumulate(n, &recs[i&4095], 0.7, 400, grad)
			}
		})
	}
}

// BenchmarkStep measures a batch of 4096 positions with its Adam step on
// 2 goroutines.
func BenchmarkStep(b *testing.B) {
	recs := synthRecords(4096, 1)
	h := testHyper(nnue.SCReLU)
	h.Hidden, h.Batch, h.Shards = 128, 4096, 16
	tr, _ := New(h, 2, recs, nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr.TrainBatch()
	}
	b.ReportMetric(float64(b.N)*4096/b.Elapsed().Seconds(), "positions/s")
}
