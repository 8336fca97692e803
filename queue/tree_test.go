package queue

import (
	"errors"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// multiLevel is TestParentQueue's setupMultiLevelQueues tree with b's
// children and the capacities of a and b as parameters.
func multiLevel(a, b, b1, b2, b3 float32) cfgT {
	return rootOf(
		parent("a", a, leaf("a1", 50), leaf("a2", 50)),
		parent("b", b, leaf("b1", b1), leaf("b2", b2), leaf("b3", b3)),
		parent("c", 19.5, parent("c1", 100, parent("c11", 100, parent("c111", 100, leaf("c1111", 100))))),
		leaf("d", 20.5),
	)
}

// TestCapacityValidationVectors covers YARN's capacity validation rules
// (ParentQueue.setChildQueues).
func TestCapacityValidationVectors(t *testing.T) {
	tests := []struct {
		id    string
		cfg   cfgT
		ok    bool
		path  string // queue named by the error
		field string
	}{
		{"I-14 sum 100.5%", rootOf(leaf("a", 30), leaf("b", 70.5)), false, "root", "capacity"},
		{"I-15 sum 100%", rootOf(leaf("a", 30), leaf("b", 70)), true, "", ""},
		{"I-16 sum 100.005% within 0.05%", rootOf(leaf("a", 30), leaf("b", 70.005)), true, "", ""},
		{"sum 99.96% within 0.05%", rootOf(leaf("a", 30), leaf("b", 69.96)), true, "", ""},
		{"sum 99.9% outside", rootOf(leaf("a", 30), leaf("b", 69.9)), false, "root", "capacity"},
		{"I-17 zero children under non-zero parent", multiLevel(10, 50, 0, 0, 0), false, "root.b", "capacity"},
		{"I-18 non-zero children under zero parent", func() cfgT { c := multiLevel(60, 0, 10, 30, 60); return c }(), false, "root.b", "capacity"},
		{"I-19 zero parent, zero children", multiLevel(60, 0, 0, 0, 0), true, "", ""},
		{"multi-level valid", multiLevel(10, 50, 10, 30, 60), true, "", ""},
		{"I-20 one child 100, another 0", rootOf(leaf("a", 100), leaf("b", 0)), true, "", ""},
		{"unset capacities under root", rootOf(cfgT{Name: "a"}), false, "root", "capacity"},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			tr, err := New(rooted(tc.cfg, csOpts))
			if tc.ok {
				require.NoError(t, err)
				require.NotNil(t, tr)
				return
			}
			require.Error(t, err)
			assert.Nil(t, tr)
			assert.ErrorIs(t, err, berth.ErrInvalidArgument)
			qe := asQueueError(t, err)
			assert.Equal(t, tc.path, qe.QueuePath)
			assert.Equal(t, tc.field, qe.Field)
		})
	}
}

func TestCapacitySumsOptional(t *testing.T) {
	// The fair scheduler has no capacities: unset everywhere is fine without the option.
	c := rootOf(cfgT{Name: "a"}, cfgT{Name: "b", Children: []cfgT{{Name: "c"}}})
	tr := mustTree(t, c, TreeConfig[int]{})
	assert.Equal(t, 3, tr.Len()-1)
	_, err := New(rooted(c, csOpts))
	assert.Error(t, err)
}

func TestValidationErrors(t *testing.T) {
	gb := func(g int64) berth.Resource { return berth.New(g*1024, g) }
	stopped := func(c cfgT) cfgT { c.State = StateStopped; return c }
	running := func(c cfgT) cfgT { c.State = StateRunning; return c }
	tests := []struct {
		name  string
		cfg   cfgT
		opts  TreeConfig[int]
		path  string
		field string
		also  error
	}{
		{"root wrong name", cfgT{Name: "top", Children: []cfgT{leaf("a", 100)}}, csOpts, "top", "name", nil},
		{"root without children", cfgT{Name: "root"}, csOpts, "root", "queues", nil},
		{"root capacity not 100", cfgT{Name: "root", Capacity: Percent(50), Children: []cfgT{leaf("a", 100)}}, csOpts, "root", "capacity", nil},
		{"root absolute", cfgT{Name: "root", Capacity: Absolute(gb(1)), Children: []cfgT{leaf("a", 100)}}, csOpts, "root", "capacity", nil},
		{"root max not 100", cfgT{Name: "root", MaxCapacity: Percent(90), Children: []cfgT{leaf("a", 100)}}, csOpts, "root", "maximum-capacity", nil},
		{"root reservable", cfgT{Name: "root", Reservable: true}, csOpts, "root", "reservable", nil},
		{"capacity > 100", rootOf(leaf("a", 101)), csOpts, "root.a", "capacity", nil},
		{"capacity < 0", rootOf(leaf("a", -1)), csOpts, "root.a", "capacity", nil},
		{"max > 100", rootOf(cfgT{Name: "a", Capacity: Percent(100), MaxCapacity: Percent(100.5)}), csOpts, "root.a", "maximum-capacity", nil},
		{"max < capacity", rootOf(cfgT{Name: "a", Capacity: Percent(100), MaxCapacity: Percent(50)}), csOpts, "root.a", "maximum-capacity", nil},
		{"abs max < abs capacity deeper", rootOf(cfgT{Name: "a", Capacity: Percent(100), MaxCapacity: Percent(40), Children: []cfgT{
			{Name: "x", Capacity: Percent(100), MaxCapacity: Percent(100)}}}), csOpts, "root.a", "maximum-capacity", nil},
		{"empty name", rootOf(leaf("", 100)), csOpts, "root.", "name", nil},
		{"dotted name", rootOf(leaf("a.b", 100)), csOpts, "root.a.b", "name", nil},
		{"whitespace name", rootOf(leaf("      ", 100)), csOpts, "root.      ", "name", nil},
		{"nbsp name", rootOf(leaf("\u00a0", 100)), csOpts, "root.\u00a0", "name", nil},
		{"duplicate name", rootOf(leaf("a", 50), leaf("a", 50)), csOpts, "root.a", "name", berth.ErrAlreadyExists},
		{"reservable parent", rootOf(cfgT{Name: "p", Capacity: Percent(100), Reservable: true, Children: []cfgT{leaf("x", 100)}}), csOpts, "root.p", "reservable", nil},
		{"reservable type=parent", rootOf(cfgT{Name: "p", Capacity: Percent(100), Reservable: true, Parent: true}), csOpts, "root.p", "reservable", nil},
		{"running under stopped", stopped(rootOf(running(leaf("a", 100)))), csOpts, "root.a", "state", nil},
		{"running under inherited stopped", rootOf(stopped(parent("a", 100, parent("b", 100, running(leaf("c", 100)))))), csOpts, "root.a.b.c", "state", nil},
		{"draining configured", rootOf(cfgT{Name: "a", Capacity: Percent(100), State: StateDraining}), csOpts, "root.a", "state", nil},
		{"unknown capacity kind", rootOf(cfgT{Name: "a", Capacity: Capacity{Kind: 9}}), csOpts, "root.a", "capacity", nil},
		{"negative absolute", rootOf(cfgT{Name: "a", Capacity: Absolute(berth.New(-1, 0))}), csOpts, "root.a", "capacity", nil},
		{"absolute min above max", rootOf(cfgT{Name: "a", Capacity: Absolute(gb(4)), MaxCapacity: Absolute(berth.New(8192, 2))}), csOpts, "root.a", "capacity", nil},
		{"absolute child max above parent max", rootOf(cfgT{Name: "a", Capacity: Absolute(gb(4)), MaxCapacity: Absolute(gb(8)), Children: []cfgT{
			{Name: "x", Capacity: Absolute(gb(2)), MaxCapacity: Absolute(gb(9))}}}), csOpts, "root.a.x", "maximum-capacity", nil},
		{"mixed percent parent, absolute child", rootOf(parent("a", 100, cfgT{Name: "x", Capacity: Absolute(gb(1))})), csOpts, "root.a", "capacity", nil},
		{"absolute parent smaller than children", rootOf(cfgT{Name: "a", Capacity: Absolute(gb(4)), Children: []cfgT{
			{Name: "x", Capacity: Absolute(gb(3))}, {Name: "y", Capacity: Absolute(gb(2))}}}), csOpts, "root.a", "capacity", nil},
		{"absolute parent, percent children", rootOf(cfgT{Name: "a", Capacity: Absolute(gb(4)), Children: []cfgT{leaf("x", 100)}}), csOpts, "root.a", "capacity", nil},
		{"validate hook", rootOf(leaf("a", 100)), TreeConfig[int]{Validate: func(*Tree[int]) error {
			return invalid("root.a", "weight", -1, "scheduler says no")
		}}, "root.a", "weight", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(rooted(tc.cfg, tc.opts))
			require.Error(t, err)
			assert.ErrorIs(t, err, berth.ErrInvalidArgument)
			if tc.also != nil {
				assert.ErrorIs(t, err, tc.also)
			}
			qe := asQueueError(t, err)
			assert.Equal(t, tc.path, qe.QueuePath)
			assert.Equal(t, tc.field, qe.Field)
			assert.Contains(t, err.Error(), tc.path)
		})
	}
}

func TestAbsoluteCapacities(t *testing.T) {
	gb := func(g int64) berth.Resource { return berth.New(g*1024, g) }
	c := rootOf(
		cfgT{Name: "a", Capacity: Absolute(gb(4)), MaxCapacity: Absolute(gb(8)), Children: []cfgT{
			{Name: "x", Capacity: Absolute(gb(3))},
			{Name: "y", Capacity: Absolute(gb(1)), MaxCapacity: Absolute(gb(2))},
		}},
		cfgT{Name: "b", Capacity: Absolute(gb(4))},
	)
	tr := mustTree(t, c, csOpts)
	x := mustQueue(t, tr, "root.a.x")
	assert.Equal(t, Absolute(gb(8)), x.MaxCapacity(), "absolute min, unset max: inherits the parent's max")
	assert.Equal(t, Absolute(gb(2)), mustQueue(t, tr, "root.a.y").MaxCapacity())
	assert.Equal(t, float32(0), x.CapacityFraction())
	assert.Equal(t, float32(1), x.MaxCapacityFraction())
	assert.Equal(t, "[memory=3072,vcores=3]", x.Capacity().String())
	assert.Equal(t, "unset", Capacity{}.String())
	assert.Equal(t, "37.5%", Percent(37.5).String())
}

func TestFractionsAndStates(t *testing.T) {
	c := rootOf(
		cfgT{Name: "a", Capacity: Percent(40), MaxCapacity: Percent(50), Children: []cfgT{
			{Name: "a1", Capacity: Percent(25), MaxCapacity: Percent(50)},
			{Name: "a2", Capacity: Percent(75), State: StateStopped},
		}},
		cfgT{Name: "b", Capacity: Percent(60), State: StateStopped, Children: []cfgT{leaf("b1", 100)}},
	)
	tr := mustTree(t, c, csOpts)
	a1 := mustQueue(t, tr, "root.a.a1")
	assert.InDelta(t, 0.25, a1.CapacityFraction(), 1e-7)
	assert.InDelta(t, 0.1, a1.AbsoluteCapacity(), 1e-7)
	assert.InDelta(t, 0.25, a1.AbsoluteMaxCapacity(), 1e-7)
	assert.InDelta(t, 1.0, mustQueue(t, tr, "root.b.b1").MaxCapacityFraction(), 0)

	assert.Equal(t, StateRunning, a1.State())
	assert.Equal(t, StateUnset, a1.ConfiguredState())
	assert.Equal(t, StateStopped, mustQueue(t, tr, "root.a.a2").State())
	b1 := mustQueue(t, tr, "root.b.b1")
	assert.Equal(t, StateStopped, b1.State(), "inherits the stopped parent")
	assert.False(t, b1.IsRunning())
	require.NoError(t, b1.SubmitApp("u"))
	assert.Equal(t, StateDraining, b1.State())
	assert.Equal(t, StateDraining, mustQueue(t, tr, "root.b").State())
	assert.Equal(t, "DRAINING", StateDraining.String())
}

func TestLookupAndIteration(t *testing.T) {
	c := rootOf(
		parent("z", 50, leaf("dup", 50), leaf("only", 50)),
		parent("a", 50, leaf("dup", 100)),
	)
	tr := mustTree(t, c, csOpts)
	var order []string
	for q := range tr.All() {
		order = append(order, q.Path().String())
	}
	assert.Equal(t, []string{"root", "root.z", "root.z.dup", "root.z.only", "root.a", "root.a.dup"}, order, "configuration order")
	var paths []string
	for _, p := range tr.Paths() {
		paths = append(paths, p.String())
	}
	assert.Equal(t, []string{"root", "root.a", "root.a.dup", "root.z", "root.z.dup", "root.z.only"}, paths)
	var leaves []string
	for _, q := range tr.Leaves() {
		leaves = append(leaves, q.Name())
	}
	assert.Equal(t, []string{"dup", "only", "dup"}, leaves)

	q, err := tr.Lookup("only")
	require.NoError(t, err)
	assert.Equal(t, "root.z.only", q.Path().String())
	q, err = tr.Lookup("root.a.dup")
	require.NoError(t, err)
	assert.Equal(t, "root.a.dup", q.Path().String())
	_, err = tr.Lookup("dup")
	assert.ErrorIs(t, err, berth.ErrInvalidArgument, "ambiguous")
	_, err = tr.Lookup("nope")
	assert.ErrorIs(t, err, berth.ErrNotFound)
	_, err = tr.Lookup("root.nope")
	assert.ErrorIs(t, err, berth.ErrNotFound)
	q, err = tr.Lookup("root")
	require.NoError(t, err)
	assert.True(t, q.IsRoot())
	_, err = tr.LookupLeaf("z")
	assert.ErrorIs(t, err, berth.ErrInvalidArgument, "non-leaf")
	_, err = tr.LookupLeaf("nope")
	assert.ErrorIs(t, err, berth.ErrNotFound)
	q, err = tr.LookupLeaf("only")
	require.NoError(t, err)
	assert.True(t, q.IsLeaf())

	z := mustQueue(t, tr, "root.z")
	assert.Equal(t, 2, z.NumChildren())
	assert.Equal(t, "dup", z.Child(0).Name())
	kids := z.Children()
	kids[0] = nil
	assert.NotNil(t, z.Child(0), "Children returns a copy")
	assert.Equal(t, z, z.ChildNamed("only").Parent())
	assert.Nil(t, z.ChildNamed("x"))
	assert.Nil(t, tr.Root().Parent())
	assert.Equal(t, KindParent, z.Kind())
	assert.Equal(t, KindLeaf, z.Child(0).Kind())

	var post []string
	for q := range tr.BottomUp() {
		post = append(post, q.Path().String())
	}
	assert.Equal(t, []string{"root.z.dup", "root.z.only", "root.z", "root.a.dup", "root.a", "root"}, post)
	n := 0
	for range tr.BottomUp() {
		n++
		if n == 3 {
			break
		}
	}
	assert.Equal(t, 3, n)

	// Early stop of the iterator.
	n = 0
	for range tr.All() {
		n++
		if n == 2 {
			break
		}
	}
	assert.Equal(t, 2, n)
}

func TestErrorFormatting(t *testing.T) {
	e := &Error{QueuePath: "root.a", Field: "capacity", Value: 101, Reason: "too big"}
	assert.Equal(t, "queue root.a: capacity: too big (value: 101)", e.Error())
	assert.True(t, errors.Is(e, berth.ErrInvalidArgument))
	e2 := &Error{QueuePath: "root.a", Reason: "gone", Kind: berth.ErrNotFound, Err: errors.New("cause")}
	assert.Equal(t, "queue root.a: gone: cause", e2.Error())
	assert.True(t, errors.Is(e2, berth.ErrNotFound))
	assert.False(t, errors.Is(e2, berth.ErrInvalidArgument))
}
