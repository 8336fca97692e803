package rle

import (
	"errors"
	"testing"

	"github.com/berthsched/berth"
)

// FuzzOps decodes an operation stream (5 bytes per operation) and applies it
// to a series and to the dense model: no panic, the canonical form and block
// bookkeeping hold after every operation, and the model agrees everywhere.
func FuzzOps(f *testing.F) {
	// Seeds: the vector scenarios, encoded.
	f.Add([]byte{0, 50, 0, 2, 10, 0, 51, 0, 2, 10, 0, 52, 0, 2, 10, 2, 50, 2, 2, 10})       // RLE-07 style blocks, then a removal
	f.Add([]byte{0, 5, 9, 40, 100, 0, 10, 9, 80, 200, 2, 6, 12, 40, 100, 2, 4, 3, 40, 100}) // RLE-10 partial removal
	f.Add([]byte{0, 5, 20, 6, 5, 3, 0, 60, 1, 0, 3, 9, 30, 3, 0, 4, 2, 20, 0, 0})           // merges and a clip
	f.Add([]byte{0, 0, 255, 255, 255, 5, 0, 0, 0, 0, 2, 0, 255, 255, 255})                  // long add, snapshot, remove all
	f.Add([]byte{1, 250, 63, 1, 1, 1, 0, 63, 2, 2, 4, 100, 63, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 5*200 {
			data = data[:5*200]
		}
		s, m := New(), newModel()
		if len(data)%3 == 0 {
			s.bmax = 4 // tiny blocks
		}
		var snap *Series
		var snapM *model
		for len(data) >= 5 {
			op, a, l, x, y := data[0], int64(data[1])*2, 1+int64(data[2]%64), int64(data[3]), int64(data[4])
			data = data[5:]
			iv := berth.Interval{Start: a, End: min(a+l, 600)}
			if !iv.Valid() {
				continue
			}
			res := berth.New((x%8)*512, y%5)

			switch op % 6 {
			case 0, 1:
				if err := s.Add(iv, res); err != nil {
					t.Fatalf("add %v %v: %v", iv, res, err)
				}
				m.add(iv, res.Memory, res.VCores)
			case 2:
				tm, ok := m.canRemove(iv, res.Memory, res.VCores)
				err := s.Remove(iv, res)
				switch {
				case ok || res.IsZero():
					if err != nil {
						t.Fatalf("remove %v %v: %v", iv, res, err)
					}
					m.add(iv, -res.Memory, -res.VCores)
				default:
					var re *RemoveError
					if !errors.As(err, &re) || re.Time != tm {
						t.Fatalf("remove %v %v: got %v, want RemoveError at %d", iv, res, err, tm)
					}
				}
			case 3:
				other, err := Constant(berth.Interval{Start: int64(x), End: int64(x) + 1 + int64(y)}, berth.New(1024, 1))
				if err != nil {
					t.Fatal(err)
				}
				om := newModel()
				om.add(berth.Interval{Start: int64(x), End: int64(x) + 1 + int64(y)}, 1024, 1)
				ops := []Op{OpAdd, OpSubtract, OpSubtractNonNegative, OpMin, OpMax}
				mop := ops[int(y)%len(ops)]
				got, err := Merge(berth.MemoryCalculator{}, berth.New(1<<20, 1<<10), s, other, mop, iv)
				want, wantErr := modelMerge(m, om, mop, iv)
				if wantErr != nil {
					var ne *NegativeError
					if !errors.As(err, &ne) || ne.Time != *wantErr {
						t.Fatalf("merge: got %v, want NegativeError at %d", err, *wantErr)
					}
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				checkInvariants(t, got)
				checkAgainst(t, want, got, "fuzz merge")
				if x%2 == 0 {
					s, m = got, want // go on with undefined parts and maybe negatives
				}
			case 4:
				c := s.Clip(iv)
				checkInvariants(t, c)
				for tm := iv.Start - 2; tm < iv.End+2; tm++ {
					want := berth.Resource{}
					if iv.Contains(tm) {
						want = s.At(tm)
					}
					if !c.At(tm).Equal(want) {
						t.Fatalf("clip %v at %d: %v want %v", iv, tm, c.At(tm), want)
					}
				}
			case 5:
				snap, snapM = s.Clone(), m.clone()
			}
			checkInvariants(t, s)
			checkAgainst(t, m, s, "fuzz")
		}
		if snap != nil {
			checkInvariants(t, snap)
			checkAgainst(t, snapM, snap, "snapshot")
		}
		// a shift there and back is the identity
		if back := s.Shift(1000).Shift(-1000); !back.Equal(s) {
			t.Fatalf("shift round trip: %v vs %v", back, s)
		}
	})
}
