package rle

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The dense reference model: one value per ms over [modelLo, modelHi);
// outside, the series under test must be zero (defined or not as the model's
// edge flags say).
const (
	modelLo = -8
	modelHi = 608
)

type cell struct {
	mem, vc int64
	undef   bool
}

type model struct {
	c []cell
	// outside: whether the series is undefined before modelLo / after modelHi
	undefLeft, undefRight bool
}

func newModel() *model { return &model{c: make([]cell, modelHi-modelLo)} }

func (m *model) clone() *model {
	return &model{c: append([]cell(nil), m.c...), undefLeft: m.undefLeft, undefRight: m.undefRight}
}

func (m *model) at(t int64) cell { return m.c[t-modelLo] }

func (m *model) add(iv berth.Interval, mem, vc int64) {
	if mem == 0 && vc == 0 {
		return // a zero resource is a no-op, even where undefined
	}
	for t := iv.Start; t < iv.End; t++ {
		c := &m.c[t-modelLo]
		if c.undef {
			*c = cell{}
		}
		c.mem += mem
		c.vc += vc
	}
}

// canRemove returns the first time where removal would go negative.
func (m *model) canRemove(iv berth.Interval, mem, vc int64) (int64, bool) {
	for t := iv.Start; t < iv.End; t++ {
		c := m.at(t)
		if c.undef || c.mem < mem || c.vc < vc {
			return t, false
		}
	}
	return 0, true
}

// checkAgainst compares s with the model at every ms.
func checkAgainst(t *testing.T, m *model, s *Series, what string) {
	t.Helper()
	for tm := int64(modelLo); tm < modelHi; tm++ {
		want := m.at(tm)
		v, def := s.Lookup(tm)
		if def == want.undef || (!want.undef && (v.Memory != want.mem || v.VCores != want.vc)) {
			require.Failf(t, "model mismatch", "%s: at %d got %v (defined %v), want %+v\nseries %v", what, tm, v, def, want, s)
		}
	}
	_, def := s.Lookup(modelLo - 100)
	require.Equal(t, !m.undefLeft, def, "%s: definedness far left", what)
	_, def = s.Lookup(modelHi + 100)
	require.Equal(t, !m.undefRight, def, "%s: definedness far right", what)
	require.True(t, s.At(modelLo-100).IsZero(), what)
	require.True(t, s.At(modelHi+100).IsZero(), what)
	checkSteps(t, m, s, berth.Interval{Start: modelLo, End: modelHi}, what)
	checkSteps(t, m, s, berth.Interval{Start: 37, End: 411}, what)
}

// checkSteps compares StepsIn and AppendSteps over w with the model: ordered,
// disjoint steps inside w covering exactly its defined cells with their
// values; AppendSteps appends the same steps; StepsIn stops when asked.
func checkSteps(t *testing.T, m *model, s *Series, w berth.Interval, what string) {
	t.Helper()
	var steps []Step
	for st := range s.StepsIn(w) {
		steps = append(steps, st)
	}
	covered := int64(0)
	last := w.Start
	for i, st := range steps {
		// plain comparisons: this runs after every operation of the
		// property and fuzz tests
		if !st.Interval.Valid() || st.Interval.Start < last || st.Interval.End > w.End {
			require.Failf(t, "bad step", "%s: step %d %v after %d in %v", what, i, st, last, w)
		}
		last = st.Interval.End
		covered += st.Interval.Len()
		for tm := st.Interval.Start; tm < st.Interval.End; tm++ {
			c := m.at(tm)
			if c.undef || c.mem != st.Value.Memory || c.vc != st.Value.VCores {
				require.Failf(t, "steps mismatch", "%s: step %v at %d, model %+v", what, st, tm, c)
			}
		}
	}
	def := int64(0)
	for tm := w.Start; tm < w.End; tm++ {
		if !m.at(tm).undef {
			def++
		}
	}
	require.Equal(t, def, covered, "%s: steps cover the defined cells", what)
	head := []Step{{Interval: berth.Interval{Start: -1, End: 0}}}
	got := s.AppendSteps(head, w)
	require.Len(t, got, 1+len(steps), "%s: AppendSteps", what)
	require.Equal(t, head[0].Interval, got[0].Interval, "%s: AppendSteps keeps dst", what)
	for i, st := range steps {
		if g := got[1+i]; g.Interval != st.Interval || !g.Value.Equal(st.Value) {
			require.Failf(t, "AppendSteps mismatch", "%s: step %d got %v want %v", what, i, g, st)
		}
	}
	if len(steps) > 1 {
		n := 0
		for range s.StepsIn(w) {
			n++
			break
		}
		if n != 1 {
			require.Failf(t, "StepsIn did not stop", "%s: %d steps after break", what, n)
		}
	}
}

// checkInvariants verifies the canonical form and the block bookkeeping.
func checkInvariants(t *testing.T, s *Series) {
	t.Helper()
	n := 0
	prev := Breakpoint{}
	has := false
	var prevLast berth.Time
	if s.tree != nil {
		s.tree.Ascend(func(it item) bool {
			b := it.b
			require.NotEmpty(t, b.times, "empty block")
			require.LessOrEqual(t, len(b.times), s.maxB())
			require.Equal(t, it.first, b.times[0], "tree key")
			require.Len(t, b.values, len(b.times))
			nUn := 0
			for i := range b.times {
				if i > 0 {
					require.Less(t, b.times[i-1], b.times[i])
				}
				if !b.defined(i) {
					nUn++
				}
			}
			require.Equal(t, nUn, b.undefinedCount)
			require.Equal(t, nUn == 0, b.undefined == nil, "un slice iff undefined entries")
			if b.undefined != nil {
				require.Len(t, b.undefined, len(b.times))
			}
			if has {
				require.Less(t, prevLast, b.times[0], "blocks ordered")
			}
			prevLast = b.times[len(b.times)-1]
			if b.extras != nil {
				require.Len(t, b.extras, len(b.times))
			}
			var lo, hi mv
			first := true
			for i := range b.times {
				if b.defined(i) {
					v := b.values[i]
					if first {
						lo, hi, first = v, v, false
					} else {
						lo = mv{min(lo.m, v.m), min(lo.v, v.v)}
						hi = mv{max(hi.m, v.m), max(hi.v, v.v)}
					}
				}
			}
			if !first {
				require.Equal(t, lo, b.lo, "block lo")
				require.Equal(t, hi, b.hi, "block hi")
			}
			for i := range b.times {
				p := b.at(i)
				require.False(t, p.same(prev), "redundant breakpoint at %d in %v", p.Time, s)
				prev, has = p, true
				n++
			}
			return true
		})
	}
	require.Equal(t, n, s.Len(), "breakpoint count")
}

// modelMerge is Merge on dense models (om defined everywhere); wantErr is
// the first negative time for OpSubtractNonNegative.
func modelMerge(m, om *model, mop Op, w berth.Interval) (*model, *int64) {
	want := newModel()
	want.undefLeft, want.undefRight = true, true
	var wantErr *int64
	for tm := int64(modelLo); tm < modelHi; tm++ {
		c := &want.c[tm-modelLo]
		if tm < w.Start || tm >= w.End {
			c.undef = true
			continue
		}
		x, y := m.at(tm), om.at(tm)
		if x.undef { // YARN: undefined op y is y, or -y for subtract
			*c = y
			if mop == OpSubtract {
				c.mem, c.vc = -y.mem, -y.vc
			}
			continue
		}
		switch mop {
		case OpAdd:
			c.mem, c.vc = x.mem+y.mem, x.vc+y.vc
		case OpSubtract, OpSubtractNonNegative:
			c.mem, c.vc = x.mem-y.mem, x.vc-y.vc
			if mop == OpSubtractNonNegative && (c.mem < 0 || c.vc < 0) && wantErr == nil {
				tt := tm
				wantErr = &tt
			}
		case OpMin:
			*c = x
			if y.mem < x.mem {
				*c = y
			}
		case OpMax:
			*c = x
			if y.mem > x.mem {
				*c = y
			}
		}
	}
	return want, wantErr
}

func (m *model) String() string { return fmt.Sprintf("model(%d cells)", len(m.c)) }

func randIv(r *rand.Rand) berth.Interval {
	a := r.Int64N(600)
	l := 1 + r.Int64N(60)
	if r.IntN(10) == 0 {
		l = 1 + r.Int64N(500)
	}
	return berth.Interval{Start: a, End: min(a+l, 600)}
}

func randRes(r *rand.Rand) berth.Resource {
	return berth.New(r.Int64N(4)*1024, r.Int64N(3))
}

// TestPropertyAgainstDenseModel runs random add / remove / merge / clip /
// clone / shift sequences and checks every step against the dense model and
// the canonical form.
func TestPropertyAgainstDenseModel(t *testing.T) {
	seeds := 40
	if testing.Short() || raceEnabled {
		seeds = 6
	}
	calc := berth.MemoryCalculator{}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 99))
		s, m := New(), newModel()
		if seed%2 == 1 {
			s.bmax = 4 + seed%7 // tiny blocks: splits and merges all the time
		}
		var snaps []*Series
		var snapModels []*model
		for step := range 250 {
			what := fmt.Sprintf("seed %d step %d", seed, step)
			switch op := r.IntN(10); {
			case op < 5:
				iv, res := randIv(r), randRes(r)
				require.NoError(t, s.Add(iv, res), what)
				m.add(iv, res.Memory, res.VCores)
			case op < 8:
				iv, res := randIv(r), randRes(r)
				if r.IntN(2) == 0 {
					// remove something that is there, when possible
					res = s.Min(iv)
				}
				if res.AnyNegative() { // possible after a subtract merge
					require.ErrorIs(t, s.Remove(iv, res), berth.ErrInvalidArgument, what)
					require.ErrorIs(t, s.Add(iv, res), berth.ErrInvalidArgument, what)
					break
				}
				tm, ok := m.canRemove(iv, res.Memory, res.VCores)
				if res.IsZero() {
					ok = true
				}
				before := s.Clone()
				err := s.Remove(iv, res)
				if ok {
					require.NoError(t, err, what)
					m.add(iv, -res.Memory, -res.VCores)
				} else {
					var re *RemoveError
					require.ErrorAs(t, err, &re, what)
					assert.Equal(t, tm, re.Time, what)
					require.True(t, before.Equal(s), "%s: failed remove changed the series", what)
				}
			case op == 8:
				// snapshot, to check copy-on-write isolation later
				snaps = append(snaps, s.Clone())
				snapModels = append(snapModels, m.clone())
			default:
				// merge with another random series, or clip
				o, om := New(), newModel()
				for range r.IntN(6) {
					iv, res := randIv(r), randRes(r)
					require.NoError(t, o.Add(iv, res))
					om.add(iv, res.Memory, res.VCores)
				}
				w := randIv(r)
				if r.IntN(3) == 0 {
					c := s.Clip(w)
					cm := newModel()
					for tm := w.Start; tm < w.End; tm++ {
						cm.c[tm-modelLo] = m.at(tm)
					}
					checkAgainst(t, cm, c, what+" clip")
					checkInvariants(t, c)
					break
				}
				ops := []Op{OpAdd, OpSubtract, OpSubtractNonNegative, OpMin, OpMax}
				mop := ops[r.IntN(len(ops))]
				got, err := Merge(calc, berth.New(1<<20, 1<<10), s, o, mop, w)
				want, wantErr := modelMerge(m, om, mop, w)
				if wantErr != nil {
					var ne *NegativeError
					require.ErrorAs(t, err, &ne, what)
					assert.Equal(t, *wantErr, ne.Time, what)
					break
				}
				require.NoError(t, err, what)
				checkAgainst(t, want, got, what+" merge "+mop.String())
				checkInvariants(t, got)
				if r.IntN(4) == 0 {
					// carry on mutating the merge result, undefined parts and all
					s, m = got, want
				}
			}
			checkAgainst(t, m, s, what)
			checkInvariants(t, s)
		}
		for i, sn := range snaps {
			checkAgainst(t, snapModels[i], sn, fmt.Sprintf("seed %d snapshot %d", seed, i))
			checkInvariants(t, sn)
		}
	}
}
