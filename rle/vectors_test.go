package rle

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Vectors of sections 1 and 2 of reservation-vectors.md. Maps are written as
// YARN prints them: key → value, null for undefined.

const null = math.MinInt64 // a value placeholder meaning "null" in kv lists

type kv struct {
	t berth.Time
	v int64 // <v, v>, or null
}

func xx(v int64) berth.Resource { return berth.New(v, v) }

func c(n int64) berth.Resource { return berth.New(1024*n, n) }

// direct builds a series from a YARN map, as its map constructor does.
func direct(t *testing.T, kvs ...kv) *Series {
	t.Helper()
	bps := make([]Breakpoint, len(kvs))
	for i, p := range kvs {
		bps[i] = Breakpoint{Time: p.t, Value: xx(p.v), Undefined: p.v == null}
		if p.v == null {
			bps[i].Value = berth.Resource{}
		}
	}
	s, err := FromBreakpoints(bps...)
	require.NoError(t, err)
	return s
}

// yarnMap lists the breakpoints of s without the leading "undefined from
// MinTime" one (YARN's maps are simply empty there).
func yarnMap(s *Series) string {
	out := "{"
	first := true
	for p := range s.Breakpoints() {
		if first && p.Time == berth.MinTime && p.Undefined {
			first = false
			continue
		}
		if !first && out != "{" {
			out += ", "
		}
		first = false
		if p.Undefined {
			out += fmt.Sprintf("%d:null", p.Time)
		} else if p.Value.Memory == p.Value.VCores {
			out += fmt.Sprintf("%d:%d", p.Time, p.Value.VCores)
		} else {
			out += fmt.Sprintf("%d:<%d,%d>", p.Time, p.Value.Memory, p.Value.VCores)
		}
	}
	return out + "}"
}

var (
	calc    = berth.MemoryCalculator{}
	cluster = berth.New(13107200, 3200)
)

func setupAB(t *testing.T) (*Series, *Series) {
	a := direct(t, kv{10, 5}, kv{20, 10}, kv{30, 15}, kv{40, 20}, kv{50, 0})
	b := direct(t, kv{11, 5}, kv{22, 10}, kv{33, 15}, kv{40, 20}, kv{42, 20}, kv{43, 10})
	return a, b
}

func TestVectorsMerge(t *testing.T) {
	tests := []struct {
		id     string
		op     Op
		window berth.Interval
		want   string
	}{
		{"RLE-01", OpAdd, berth.Interval{Start: 18, End: 45}, "{18:10, 20:15, 22:20, 30:25, 33:30, 40:40, 43:30, 45:null}"},
		{"RLE-02", OpMin, berth.Interval{Start: 0, End: 60}, "{10:5, 22:10, 33:15, 40:20, 43:10, 50:0, 60:null}"},
		{"RLE-03", OpMax, berth.Interval{Start: 0, End: 60}, "{10:5, 20:10, 30:15, 40:20, 50:10, 60:null}"},
		{"RLE-04", OpSubtract, berth.Interval{Start: 0, End: 60}, "{10:5, 11:0, 20:5, 22:0, 30:5, 33:0, 43:10, 50:-10, 60:null}"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			a, b := setupAB(t)
			got, err := Merge(calc, cluster, a, b, tt.op, tt.window)
			require.NoError(t, err)
			assert.Equal(t, tt.want, yarnMap(got))
			checkInvariants(t, got)
		})
	}
	t.Run("RLE-05", func(t *testing.T) {
		a, b := setupAB(t)
		_, err := Merge(calc, cluster, a, b, OpSubtractNonNegative, berth.Interval{Start: 0, End: 60})
		var ne *NegativeError
		require.ErrorAs(t, err, &ne)
		assert.ErrorIs(t, err, berth.ErrCapacityExceeded)
		assert.Equal(t, berth.Time(50), ne.Time)
		assert.True(t, ne.Value.Equal(xx(-10)), "%v", ne.Value)
	})
}

func TestVectorsSubtractNonNegative(t *testing.T) {
	w := berth.Interval{Start: 0, End: 60}
	one := func(t *testing.T, tm berth.Time, r berth.Resource) *Series {
		s, err := FromBreakpoints(Breakpoint{Time: tm, Value: r})
		require.NoError(t, err)
		return s
	}
	tests := []struct {
		id      string
		a       func(t *testing.T) *Series
		b       berth.Resource
		errTime berth.Time
		errVal  berth.Resource
		want    string
	}{
		// YARN negates B when A is empty: our zero series gives 0 - B.
		{"a", func(*testing.T) *Series { return New() }, berth.New(5, 6), 11, berth.New(-5, -6), ""},
		{"b", func(t *testing.T) *Series { return one(t, 10, berth.New(10, 5)) }, berth.New(5, 6), 11, berth.New(5, -1), ""},
		{"c", func(t *testing.T) *Series { return one(t, 10, berth.New(5, 10)) }, berth.New(6, 5), 11, berth.New(-1, 5), ""},
		{"d", func(t *testing.T) *Series { return one(t, 10, berth.New(10, 6)) }, berth.New(5, 6), 0, berth.Resource{}, "{10:<10,6>, 11:<5,0>, 60:null}"},
	}
	for _, tt := range tests {
		t.Run("RLE-06"+tt.id, func(t *testing.T) {
			b := one(t, 11, tt.b)
			got, err := Merge(calc, cluster, tt.a(t), b, OpSubtractNonNegative, w)
			if tt.want == "" {
				var ne *NegativeError
				require.ErrorAs(t, err, &ne)
				assert.Equal(t, tt.errTime, ne.Time)
				assert.True(t, ne.Value.Equal(tt.errVal), "%v", ne.Value)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, yarnMap(got))
		})
	}
}

// addBlocks adds 1-ms blocks [start+i, start+i+1) of alloc[i] (+i if step)
// containers, skipping zero blocks as YARN's addInterval does.
func addBlocks(t *testing.T, s *Series, start berth.Time, alloc []int64, step bool) {
	t.Helper()
	for i, a := range alloc {
		n := a
		if step {
			n += int64(i)
		}
		require.NoError(t, s.Add(berth.Interval{Start: start + int64(i), End: start + int64(i) + 1}, c(n)))
	}
}

func removeBlocks(t *testing.T, s *Series, start berth.Time, alloc []int64, step bool) {
	t.Helper()
	for i, a := range alloc {
		n := a
		if step {
			n += int64(i)
		}
		require.NoError(t, s.Remove(berth.Interval{Start: start + int64(i), End: start + int64(i) + 1}, c(n)))
	}
}

func TestVectorsBlocksStepsSkyline(t *testing.T) {
	tests := []struct {
		id    string
		alloc []int64
		step  bool
		want  string // map after adding (YARN's, minus its MAX terminator)
	}{
		{"RLE-07", []int64{10, 10, 10, 10, 10, 10}, false, "{100:<10240,10>, 106:0}"},
		{"RLE-08", []int64{10, 10, 10, 10, 10, 10}, true, "{100:<10240,10>, 101:<11264,11>, 102:<12288,12>, 103:<13312,13>, 104:<14336,14>, 105:<15360,15>, 106:0}"},
		{"RLE-09", []int64{0, 5, 10, 10, 5, 0}, true, "{101:<6144,6>, 102:<12288,12>, 103:<13312,13>, 104:<9216,9>, 105:<5120,5>, 106:0}"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			s := New()
			addBlocks(t, s, 100, tt.alloc, tt.step)
			assert.False(t, s.IsEmpty())
			for _, tm := range []berth.Time{99, 107, 108} {
				assert.True(t, s.At(tm).IsZero(), "cap(%d)", tm)
			}
			for i, a := range tt.alloc {
				n := a
				if tt.step {
					n += int64(i)
				}
				assert.True(t, s.At(100+int64(i)).Equal(c(n)), "cap(%d)", 100+i)
			}
			assert.Equal(t, tt.want, yarnMap(s))
			removeBlocks(t, s, 100, tt.alloc, tt.step)
			for i := range tt.alloc {
				assert.True(t, s.At(100+int64(i)).IsZero())
			}
			assert.True(t, s.IsEmpty())
			assert.Equal(t, 0, s.Len(), "fully removed: no breakpoints (YARN keeps {first:0, MAX:null})")
			assert.True(t, s.Equal(New()))
		})
	}
}

func TestVectorPartialRemoval(t *testing.T) {
	// RLE-10: YARN lets the second removal go negative; Berth rejects it.
	s := New()
	require.NoError(t, s.Add(berth.Interval{Start: 10, End: 20}, berth.New(102400, 100)))
	require.NoError(t, s.Add(berth.Interval{Start: 20, End: 30}, berth.New(204800, 200)))
	require.NoError(t, s.Remove(berth.Interval{Start: 12, End: 25}, berth.New(102400, 100)))
	for tm, mem := range map[berth.Time]int64{10: 102400, 13: 0, 19: 0, 21: 102400, 26: 204800} {
		assert.Equal(t, mem, s.At(tm).Memory, "memory at %d", tm)
	}
	before := s.Clone()
	err := s.Remove(berth.Interval{Start: 9, End: 13}, berth.New(102400, 100))
	var re *RemoveError
	require.ErrorAs(t, err, &re)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	assert.Equal(t, berth.Time(9), re.Time)
	assert.True(t, re.Present.IsZero())
	assert.True(t, s.Equal(before), "a failed removal changes nothing")
	assert.Equal(t, "{10:<102400,100>, 12:0, 20:<102400,100>, 25:<204800,200>, 30:0}", yarnMap(s))
}

func TestVectorZeroAllocation(t *testing.T) {
	// RLE-11
	s := New()
	require.NoError(t, s.Add(berth.Interval{Start: 0, End: berth.MaxTime}, berth.Resource{}))
	assert.True(t, s.IsEmpty())
	assert.Equal(t, 0, s.Len())
	assert.True(t, s.At(12345).IsZero())
}

func TestVectorToIntervalMap(t *testing.T) {
	// RLE-12
	s := New()
	assert.Empty(t, collectSteps(s))
	addBlocks(t, s, 100, []int64{0, 5, 10, 10, 5, 0, 5, 0}, false)
	assert.Equal(t, []Step{
		{berth.Interval{Start: 101, End: 102}, c(5)},
		{berth.Interval{Start: 102, End: 104}, c(10)},
		{berth.Interval{Start: 104, End: 105}, c(5)},
		{berth.Interval{Start: 105, End: 106}, berth.Resource{}},
		{berth.Interval{Start: 106, End: 107}, c(5)},
	}, collectSteps(s))
}

func collectSteps(s *Series) []Step {
	var out []Step
	for st := range s.Steps() {
		out = append(out, st)
	}
	return out
}

func TestVectorRangeOverlapping(t *testing.T) {
	// RLE-13: successive ranges do not fail; Berth's Clip equals the series
	// inside the window and is zero outside.
	s := New()
	addBlocks(t, s, 100, []int64{10, 10, 10, 10, 10, 10}, false)
	st, ok := s.EarliestStart()
	require.True(t, ok)
	d, ok := s.LatestEnd()
	require.True(t, ok)
	assert.Equal(t, berth.Time(100), st)
	assert.Equal(t, berth.Time(106), d)
	r := s.Clip(berth.Interval{Start: st, End: d})
	assert.Equal(t, "{100:<10240,10>, 106:0}", yarnMap(r))
	r = r.Clip(berth.Interval{Start: st - 1, End: d - 1})
	assert.Equal(t, "{100:<10240,10>, 105:0}", yarnMap(r))
	r = r.Clip(berth.Interval{Start: st + 1, End: d + 1})
	assert.Equal(t, "{101:<10240,10>, 105:0}", yarnMap(r))

	// RLE-16j, on Berth's semantics: the value inside each window.
	src := direct(t, kv{10, 1}, kv{20, 2}, kv{30, 0})
	for _, w := range []berth.Interval{{Start: 0, End: 5}, {Start: 0, End: 10}, {Start: 15, End: 25}, {Start: 35, End: 40}, {Start: 25, End: berth.MaxTime}} {
		cl := src.Clip(w)
		for _, tm := range []berth.Time{0, 4, 9, 10, 15, 19, 20, 24, 25, 29, 30, 35, 39, 40, 1000} {
			want := berth.Resource{}
			if w.Contains(tm) {
				want = src.At(tm)
			}
			assert.True(t, cl.At(tm).Equal(want), "clip %v at %d", w, tm)
		}
		checkInvariants(t, cl)
	}
	// undefined parts stay undefined inside the window
	assert.Equal(t, "{0:null, 10:0}", yarnMap(src.Clip(berth.Interval{Start: 0, End: 10})))
	assert.Equal(t, "{15:1, 20:2, 25:0}", yarnMap(src.Clip(berth.Interval{Start: 15, End: 25})))
}

func TestVectorMaxPeriodicCapacity(t *testing.T) {
	// RLE-14
	s := direct(t, kv{0, 2}, kv{1, 5}, kv{2, 7}, kv{3, 10}, kv{4, 3}, kv{5, 4}, kv{6, 6}, kv{7, 8})
	tests := []struct{ tick, period, want int64 }{
		{0, 1, 10}, {0, 2, 7}, {0, 3, 10}, {0, 4, 3}, {0, 5, 4}, {7, 5, 8}, {10, 3, 0},
	}
	for _, tt := range tests {
		got, err := s.MaxSampled(tt.tick, tt.period)
		require.NoError(t, err)
		assert.True(t, got.Equal(xx(tt.want)), "(%d,%d) = %v", tt.tick, tt.period, got)
	}
	_, err := s.MaxSampled(0, 0)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
}

func TestVectorMinimumCapacityInInterval(t *testing.T) {
	// RLE-15: YARN's closed [a, b] is Berth's half-open [a, b+1).
	s := direct(t, kv{0, 2}, kv{1, 5}, kv{2, 7}, kv{3, 10}, kv{4, 3}, kv{5, 4}, kv{6, 0}, kv{7, 8})
	assert.True(t, s.Min(berth.Interval{Start: 1, End: 4}).Equal(xx(5)))
	assert.True(t, s.Min(berth.Interval{Start: 2, End: 6}).Equal(xx(3)))
	assert.True(t, s.Min(berth.Interval{Start: 1, End: 8}).Equal(xx(0)))
}

func TestVectorsSpecialCases(t *testing.T) {
	w60 := berth.Interval{Start: 0, End: 60}
	t.Run("RLE-16a undefined minus B", func(t *testing.T) {
		got, err := Merge(calc, cluster, Undefined(), direct(t, kv{10, 5}, kv{20, 0}), OpSubtract, w60)
		require.NoError(t, err)
		assert.Equal(t, "{10:-5, 20:0, 60:null}", yarnMap(got), "YARN: {10:-5, 20:0}, unclipped")
		// with the zero series the values inside the window agree
		got, err = Merge(calc, cluster, New(), direct(t, kv{10, 5}, kv{20, 0}), OpSubtract, w60)
		require.NoError(t, err)
		assert.Equal(t, "{0:0, 10:-5, 20:0, 60:null}", yarnMap(got))
	})
	t.Run("RLE-16b A min undefined", func(t *testing.T) {
		got, err := Merge(calc, cluster, direct(t, kv{10, 5}, kv{20, 0}), Undefined(), OpMin, w60)
		require.NoError(t, err)
		assert.Equal(t, "{10:5, 20:0, 60:null}", yarnMap(got))
	})
	t.Run("RLE-16c/d null in A", func(t *testing.T) {
		a := direct(t, kv{10, 5}, kv{20, null})
		b := direct(t, kv{15, 3}, kv{30, 0})
		w := berth.Interval{Start: 0, End: 40}
		got, err := Merge(calc, cluster, a, b, OpMin, w)
		require.NoError(t, err)
		assert.Equal(t, "{10:5, 15:3, 30:0, 40:null}", yarnMap(got))
		got, err = Merge(calc, cluster, a, b, OpSubtractNonNegative, w)
		require.NoError(t, err)
		assert.Equal(t, "{10:5, 15:2, 20:3, 30:0, 40:null}", yarnMap(got))
	})
	t.Run("RLE-16e keys clamp to start", func(t *testing.T) {
		a := direct(t, kv{0, 1}, kv{5, 2}, kv{8, 3}, kv{20, 0})
		b := direct(t, kv{12, 1}, kv{14, 0})
		got, err := Merge(calc, cluster, a, b, OpAdd, berth.Interval{Start: 10, End: 30})
		require.NoError(t, err)
		assert.Equal(t, "{10:3, 12:4, 14:3, 20:0, 30:null}", yarnMap(got))
	})
	t.Run("RLE-16f whole operand by memory", func(t *testing.T) {
		a, _ := FromBreakpoints(Breakpoint{Time: 0, Value: berth.New(100, 1)})
		b, _ := FromBreakpoints(Breakpoint{Time: 0, Value: berth.New(50, 9)})
		got, err := Merge(calc, cluster, a, b, OpMin, berth.Interval{Start: 0, End: 10})
		require.NoError(t, err)
		assert.Equal(t, "{0:<50,9>, 10:null}", yarnMap(got))
	})
	t.Run("RLE-16g empty interval is an error", func(t *testing.T) {
		s := New()
		err := s.Add(berth.Interval{Start: 5, End: 5}, xx(1))
		var fe *berth.FieldError
		require.ErrorAs(t, err, &fe)
		assert.Equal(t, "interval", fe.Field)
		assert.Equal(t, 0, s.Len())
	})
	t.Run("RLE-16h removing from empty is an error", func(t *testing.T) {
		s := New()
		err := s.Remove(berth.Interval{Start: 10, End: 20}, xx(1))
		var re *RemoveError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, berth.Time(10), re.Time)
		assert.Equal(t, 0, s.Len())
	})
	t.Run("RLE-16i add then remove", func(t *testing.T) {
		s := New()
		require.NoError(t, s.Add(berth.Interval{Start: 10, End: 20}, xx(1)))
		assert.Equal(t, "{10:1, 20:0}", yarnMap(s))
		end, ok := s.LatestEnd()
		require.True(t, ok)
		assert.Equal(t, berth.Time(20), end)
		require.NoError(t, s.Remove(berth.Interval{Start: 10, End: 20}, xx(1)))
		assert.True(t, s.IsEmpty())
		assert.Equal(t, "{}", yarnMap(s))
	})
	t.Run("empty window", func(t *testing.T) {
		got, err := Merge(calc, cluster, New(), New(), OpAdd, berth.Interval{Start: 5, End: 5})
		require.NoError(t, err)
		_, def := got.Lookup(5)
		assert.False(t, def)
		_, err = Merge(calc, cluster, New(), New(), OpAdd, berth.Interval{Start: 6, End: 5})
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
		_, err = Merge(nil, cluster, New(), New(), OpMin, berth.Interval{Start: 0, End: 5})
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
		_, err = Merge(calc, cluster, New(), New(), Op(99), berth.Interval{Start: 0, End: 5})
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	})
}

func TestVectorsPeriodic(t *testing.T) {
	t.Run("PRLE-01", func(t *testing.T) {
		p, err := NewPeriodic(20)
		require.NoError(t, err)
		for _, a := range []struct{ s, e, v int64 }{{0, 5, 10}, {5, 10, 7}, {10, 15, 5}, {15, 19, 2}} {
			require.NoError(t, p.Add(berth.Interval{Start: a.s, End: a.e}, xx(a.v)))
		}
		for tm, v := range map[berth.Time]int64{10: 5, 20: 10, 27: 7, 50: 5, -1: 0, -10: 5} {
			assert.True(t, p.At(tm).Equal(xx(v)), "cap(%d)=%v", tm, p.At(tm))
		}
	})
	t.Run("PRLE-02", func(t *testing.T) {
		p, _ := NewPeriodic(8)
		for i, v := range []int64{2, 5, 7, 10, 3, 4, 6, 8} {
			require.NoError(t, p.Add(berth.Interval{Start: int64(i), End: int64(i) + 1}, xx(v)))
		}
		for _, tt := range []struct{ tick, every, want int64 }{{0, 1, 10}, {8, 2, 7}, {16, 3, 10}, {17, 4, 5}, {32, 5, 4}, {3, 8, 10}} {
			got, err := p.MaxSampled(tt.tick, tt.every)
			require.NoError(t, err)
			assert.True(t, got.Equal(xx(tt.want)), "max(%d,%d)=%v", tt.tick, tt.every, got)
		}
	})
	t.Run("PRLE-03", func(t *testing.T) {
		p, _ := NewPeriodic(10)
		require.NoError(t, p.Add(berth.Interval{Start: 1, End: 2}, xx(2)))
		require.NoError(t, p.Add(berth.Interval{Start: 2, End: 3}, xx(5)))
		np := direct(t, kv{12, 10}, kv{13, 10}, kv{14, 0})
		w := berth.Interval{Start: 2, End: 25}
		un, err := p.Unroll(w)
		require.NoError(t, err)
		assert.Equal(t, "{2:5, 3:0, 11:2, 12:5, 13:0, 21:2, 22:5, 23:0}", yarnMap(un))
		merged, err := Merge(calc, berth.New(102400, 100), un, np, OpAdd, w)
		require.NoError(t, err)
		for tm, v := range map[berth.Time]int64{2: 5, 3: 0, 11: 2, 12: 15, 13: 10, 14: 0, 21: 2, 22: 5, 23: 0} {
			assert.True(t, merged.At(tm).Equal(xx(v)), "merged(%d)=%v", tm, merged.At(tm))
		}
		assert.Equal(t, "{2:5, 3:0, 11:2, 12:15, 13:10, 14:0, 21:2, 22:5, 23:0, 25:null}", yarnMap(merged))
	})
	t.Run("PRLE-04", func(t *testing.T) {
		p, _ := NewPeriodic(10)
		require.NoError(t, p.Add(berth.Interval{Start: 1, End: 2}, xx(2)))
		require.NoError(t, p.Add(berth.Interval{Start: 2, End: 3}, xx(5)))
		require.NoError(t, p.Add(berth.Interval{Start: 5, End: 10}, xx(8)))
		for tm, v := range map[berth.Time]int64{5: 8, 9: 8, 10: 0, 0: 0} {
			assert.True(t, p.At(tm).Equal(xx(v)), "cap(%d)", tm)
		}
		before := p.Clone()
		assert.ErrorIs(t, p.Add(berth.Interval{Start: 7, End: 12}, xx(8)), berth.ErrInvalidArgument)
		assert.True(t, p.Equal(before))
	})
	t.Run("PRLE-05", func(t *testing.T) {
		p, _ := NewPeriodic(10)
		for _, a := range []struct{ s, e, v int64 }{{1, 3, 2}, {3, 5, 5}, {5, 7, 3}, {7, 9, 4}} {
			require.NoError(t, p.Add(berth.Interval{Start: a.s, End: a.e}, xx(a.v)))
		}
		require.NoError(t, p.Remove(berth.Interval{Start: 3, End: 7}, xx(3)))
		for tm, v := range map[berth.Time]int64{1: 2, 2: 2, 3: 2, 4: 2, 5: 0, 6: 0, 7: 4} {
			assert.True(t, p.At(tm).Equal(xx(v)), "cap(%d)", tm)
		}
		assert.ErrorIs(t, p.Remove(berth.Interval{Start: 7, End: 12}, xx(1)), berth.ErrInvalidArgument)
		err := p.Remove(berth.Interval{Start: 2, End: 4}, xx(8))
		var re *RemoveError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, berth.Time(2), re.Time)
	})
	t.Run("PRLE-06 wrap-around fixed", func(t *testing.T) {
		p, err := NewPeriodicFrom(direct(t, kv{8, 4}, kv{13, 0}), 10)
		require.NoError(t, err)
		assert.Equal(t, "{0:4, 3:0, 8:4, 10:0}", yarnMap(p.Pattern()), "YARN loses [0,3): {0:0, 3:0, 8:4, 10:0}")
		p, err = NewPeriodicFrom(direct(t, kv{23, 4}, kv{26, 0}), 10)
		require.NoError(t, err)
		assert.Equal(t, "{3:4, 6:0}", yarnMap(p.Pattern()))
		// a piece longer than the period covers it once per full period
		p, err = NewPeriodicFrom(direct(t, kv{5, 1}, kv{30, 0}), 10)
		require.NoError(t, err)
		assert.Equal(t, "{0:2, 5:3, 10:0}", yarnMap(p.Pattern()))
		_, err = NewPeriodicFrom(direct(t, kv{5, 1}), 10)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
		_, err = NewPeriodic(0)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	})
}

func TestErrorsAreTyped(t *testing.T) {
	s := New()
	err := s.Add(berth.Interval{Start: 0, End: 10}, berth.New(-1, 0))
	var fe *berth.FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "resource", fe.Field)
	require.NoError(t, s.Add(berth.Interval{Start: 0, End: 10}, berth.New(math.MaxInt64-5, 0)))
	err = s.Add(berth.Interval{Start: 5, End: 20}, berth.New(6, 0))
	require.ErrorAs(t, err, &fe)
	assert.Contains(t, fe.Reason, "time 5")
	assert.Equal(t, berth.New(math.MaxInt64-5, 0), s.At(7))
	assert.True(t, s.At(15).IsZero(), "failed add leaves no trace")
	_, err = FromBreakpoints(Breakpoint{Time: 5}, Breakpoint{Time: 5})
	assert.True(t, errors.Is(err, berth.ErrInvalidArgument))
}
