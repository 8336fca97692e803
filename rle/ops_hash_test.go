package rle

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
)

// hashLayout writes the series' blocks to h: each block's first time,
// length, lazy addition and bounds, so that a change to how the store
// splits, merges or annotates its blocks shows, not only one to the values.
func hashLayout(h hash.Hash, s *Series) {
	if s.tree == nil {
		fmt.Fprintln(h, "no tree")
		return
	}
	s.tree.Ascend(func(it item) bool {
		b := it.b
		fmt.Fprintf(h, "[%d %d %v %v %v %d %v]", it.first, len(b.times), b.lazy, b.lo, b.hi, b.undefinedCount, b.hasExtras)
		return true
	})
	fmt.Fprintln(h)
}

// TestOperationHashes fingerprints the answers and the block layout of
// seeded random sequences of every operation of Series and Periodic: adds
// and removes (with extended resource types now and then, refused removes
// included), merges, clips, shifts, clones, and the queries. The hash was
// taken before the store was split into files: a refactoring of the store
// must leave it as it is.
func TestOperationHashes(t *testing.T) {
	h := sha256.New()
	calc := berth.MemoryCalculator{}
	ops := []Op{OpAdd, OpSubtract, OpSubtractNonNegative, OpMin, OpMax}
	for seed := range 24 {
		r := rand.New(rand.NewPCG(uint64(seed), 25))
		s := New()
		if seed%3 != 0 {
			s.bmax = 4 + seed%9
		}
		res := func() berth.Resource {
			x := randRes(r)
			if r.IntN(8) == 0 {
				x = x.With(berth.ResourceGPU, r.Int64N(3))
			}
			return x
		}
		var clones []*Series
		for step := range 300 {
			iv := randIv(r)
			switch op := r.IntN(12); {
			case op < 5:
				fmt.Fprintf(h, "add %v\n", s.Add(iv, res()))
			case op < 8:
				x := res()
				if r.IntN(2) == 0 {
					x = s.Min(iv)
				}
				fmt.Fprintf(h, "remove %v\n", s.Remove(iv, x))
			case op == 8:
				clones = append(clones, s.Clone())
			case op == 9:
				o := New()
				for range r.IntN(6) {
					_ = o.Add(randIv(r), res())
				}
				got, err := Merge(calc, berth.New(1<<20, 1<<10), s, o, ops[r.IntN(len(ops))], iv)
				fmt.Fprintf(h, "merge %v %v\n", got, err)
				if err == nil && r.IntN(4) == 0 {
					s = got
				}
			case op == 10:
				fmt.Fprintf(h, "clip %v shift %v\n", s.Clip(iv), s.Shift(r.Int64N(100)-50))
			default:
				p, err := NewPeriodicFrom(s.Clip(berth.Interval{Start: 0, End: 600}), 600)
				if err == nil {
					u, uerr := p.Unroll(berth.Interval{Start: iv.Start, End: iv.End + 1200})
					fmt.Fprintf(h, "periodic %v %v %v %v %v\n", p, p.MaxOver(iv), p.MinOver(iv), u, uerr)
				} else {
					fmt.Fprintf(h, "periodic %v\n", err)
				}
			}
			var steps []Step
			steps = s.AppendSteps(steps, iv)
			at, ok := s.Lookup(iv.Start)
			first, fok := s.EarliestStart()
			last, lok := s.LatestEnd()
			sampled, serr := s.MaxSampled(iv.Start, 7)
			fmt.Fprintf(h, "%d %d %v %v %v %v %v %v %v %v %v %v %v %v %v %v\n", step, s.Len(), s.Min(iv), s.Max(iv), s.Integral(iv),
				at, ok, s.At(iv.End), first, fok, last, lok, sampled, serr, steps, s)
			hashLayout(h, s)
		}
		for _, c := range clones {
			fmt.Fprintf(h, "clone %v\n", c)
			hashLayout(h, c)
		}
	}
	assert.Equal(t, "236a2a5c9bfd4289", hex.EncodeToString(h.Sum(nil))[:16], "the answers or the layout of the store changed")
}
