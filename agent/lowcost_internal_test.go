package agent

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/require"
)

type piece struct {
	s, e berth.Time
	v    berth.Resource
}

// piecesModel is pieces by definition: the sum (or difference) of the two
// profiles read at every instant where either may change, equal
// neighbours merged.
func piecesModel(s, e berth.Time, sign int64, a, b *profile) []piece {
	cuts := []berth.Time{s}
	for _, p := range []*profile{a, b} {
		if p == nil {
			continue
		}
		cuts = append(cuts, p.ts...)
		cuts = append(cuts, p.end)
	}
	slices.Sort(cuts)
	var out []piece
	for i, t := range cuts {
		if t < s || t >= e || (i > 0 && cuts[i-1] == t && t != s) {
			continue
		}
		read := func(p *profile) berth.Resource {
			if p == nil {
				return berth.Resource{}
			}
			r, _ := p.at(t)
			return r
		}
		v := read(a).Add(read(b))
		if sign < 0 {
			v = read(a).Sub(read(b))
		}
		if n := len(out); n > 0 && out[n-1].v.Equal(v) {
			continue
		}
		if n := len(out); n > 0 {
			out[n-1].e = t
		}
		out = append(out, piece{s: t, v: v})
	}
	if n := len(out); n > 0 {
		out[n-1].e = e
	}
	return out
}

// Property: pieces gives the model's pieces, with and without extended
// resource types, for profiles that start before, inside or after the
// range, end inside it, or are missing.
func TestPiecesMatchesModel(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 7))
	value := func() berth.Resource {
		m, v := r.Int64N(3)*1024, r.Int64N(3)
		if r.IntN(6) == 0 {
			return berth.NewWithExtras(m, v, berth.Quantity{Name: "gpu", Value: r.Int64N(3)})
		}
		return berth.New(m, v)
	}
	random := func() *profile {
		if r.IntN(8) == 0 {
			return nil
		}
		p := &profile{}
		t := r.Int64N(40) - 20
		for k := r.IntN(8); k >= 0; k-- {
			p.ts = append(p.ts, t)
			p.rs = append(p.rs, value())
			t += 1 + r.Int64N(10)
		}
		p.end = t + r.Int64N(10)
		return p
	}
	for round := 0; round < 20000; round++ {
		a, b := random(), random()
		s := r.Int64N(60) - 30
		e := s + r.Int64N(60)
		sign := int64(1 - 2*r.IntN(2))
		var got []piece
		pieces(s, e, sign, a, b, func(ps, pe berth.Time, v berth.Resource) {
			got = append(got, piece{ps, pe, v})
		})
		want := piecesModel(s, e, sign, a, b)
		require.Len(t, got, len(want), "round %d: %+v %+v [%d, %d)", round, a, b, s, e)
		for i := range want {
			require.Equal(t, want[i].s, got[i].s, "round %d piece %d", round, i)
			require.Equal(t, want[i].e, got[i].e, "round %d piece %d", round, i)
			require.True(t, want[i].v.Equal(got[i].v), "round %d piece %d: %v vs %v", round, i, want[i].v, got[i].v)
		}
	}
}
