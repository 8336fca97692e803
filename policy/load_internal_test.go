package policy

import (
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
	"github.com/stretchr/testify/require"
)

// Property: plus is the pointwise sum of its operands over f's domain, in
// canonical form (pieces start at f's start, strictly increasing, no two
// neighbours equal), against a dense model over every millisecond.
func TestPlusMatchesDenseSum(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 500; round++ {
		start := r.Int64N(10)
		end := start + 1 + r.Int64N(40)
		// f: canonical pieces covering [start, end)
		f := []rseg{{t: start, r: berth.New(r.Int64N(3), 0)}}
		for tt := start + 1; tt < end; tt++ {
			if r.IntN(5) == 0 {
				if v := berth.New(r.Int64N(3), 0); !v.Equal(f[len(f)-1].r) {
					f = append(f, rseg{t: tt, r: v})
				}
			}
		}
		// g: sorted disjoint non-zero steps, possibly outside [start, end)
		var g []rle.Step
		for tt := start - 5; tt < end+5; {
			tt += r.Int64N(6)
			l := 1 + r.Int64N(6)
			g = append(g, rle.Step{Interval: berth.Interval{Start: tt, End: tt + l}, Value: berth.New(1+r.Int64N(2), 1)})
			tt += l
		}
		dense := func(segs []rseg, gs []rle.Step, tt berth.Time) berth.Resource {
			var v berth.Resource
			for i, s := range segs {
				if s.t <= tt && (i+1 == len(segs) || tt < segs[i+1].t) {
					v = s.r
				}
			}
			for _, st := range gs {
				if st.Interval.Contains(tt) {
					v = v.Add(st.Value)
				}
			}
			return v
		}
		got := plus(f, end, g)
		require.Equal(t, start, got[0].t)
		for i := 1; i < len(got); i++ {
			require.Less(t, got[i-1].t, got[i].t)
			require.False(t, got[i-1].r.Equal(got[i].r), "round %d: equal neighbours at %d", round, got[i].t)
			require.Less(t, got[i].t, end)
		}
		for tt := start; tt < end; tt++ {
			want := dense(f, g, tt)
			require.True(t, want.Equal(dense(got, nil, tt)), "round %d at %d: want %v", round, tt, want)
		}
	}
}
