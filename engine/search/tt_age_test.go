package search

import "testing"

// sameBucketKeys returns n distinct keys that map to the same bucket of tt.
func sameBucketKeys(tt *TT, n int) []uint64 {
	var keys []uint64
	want := tt.bucket(0x5555_0000_0000_0000)
	for k := uint64(0x5555_0000_0000_0000); len(keys) < n; k++ {
		if tt.bucket(k) == want {
			keys = append(keys, k)
		}
	}
	return keys
}

func TestAgeOutReplacesOldEntriesFirst(t *testing.T) {
	for _, age := range []int{0, 3} {
		tt := NewTT(1)
		keys := sameBucketKeys(tt, entriesPerBucket+1)
		// A deep entry from before the irreversible move...
		tt.Store(keys[0], 1, 10, 0, 20, BoundExact)
		tt.NewSearch()
		tt.AgeOut(age)
		// ...and shallow entries of the current search fill the bucket.
		for i := 1; i < entriesPerBucket; i++ {
			tt.Store(keys[i], 2, 0, 0, 2, BoundExact)
		}
		// One more store must evict someone.
		tt.Store(keys[entriesPerBucket], 3, 0, 0, 2, BoundExact)
		_, oldKept := tt.Probe(keys[0])
		if age == 0 && !oldKept {
			t.Errorf("without AgeOut the depth-20 entry of the last search was evicted by a depth-2 one")
		}
		if age == 3 && oldKept {
			t.Errorf("after AgeOut(3) the old entry survived and a current one was evicted")
		}
		for i := 1; i <= entriesPerBucket; i++ {
			if _, ok := tt.Probe(keys[i]); !ok && age == 3 {
				t.Errorf("current entry %d evicted", i)
			}
		}
	}
}

func TestAgeOutAdvancesGeneration(t *testing.T) {
	tt := NewTT(1)
	for i := 0; i < 62; i++ {
		tt.NewSearch()
	}
	tt.AgeOut(3) // wraps modulo 64
	if g := tt.Generation(); g != 1 {
		t.Errorf("generation %d, want 1", g)
	}
	tt.AgeOut(0)
	tt.AgeOut(-2)
	if g := tt.Generation(); g != 1 {
		t.Errorf("AgeOut(<1) changed the generation to %d", g)
	}
}
