package queue

import (
	"errors"
	"testing"

	"github.com/berthsched/berth"
)

// byteSource turns fuzz input into decisions; it returns 0 once drained.
type byteSource struct {
	b []byte
	i int
}

func (s *byteSource) next() byte {
	if s.i >= len(s.b) {
		return 0
	}
	v := s.b[s.i]
	s.i++
	return v
}

func (s *byteSource) n(k int) int { return int(s.next()) % k }

// FuzzAccounting applies fuzz-chosen updates and checks the tree against the
// reference model after each one: all-or-nothing, parents = Σ children,
// users = queue, nothing negative.
func FuzzAccounting(f *testing.F) {
	f.Add([]byte{0, 0, 1, 5, 5})
	f.Add([]byte{1, 2, 0, 3, 200, 7, 7, 1, 1, 0, 0, 9})
	f.Add([]byte{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		tr := accountingTree(t)
		leaves := tr.Leaves()
		src := &byteSource{b: data}
		m := model{}
		res := func() berth.Resource {
			return berth.New(int64(src.n(9))-4, int64(src.n(5))-2)
		}
		for steps := 0; src.i < len(data) && steps < 200; steps++ {
			l := leaves[src.n(len(leaves))]
			u := []string{"a", "b"}[src.n(2)]
			var d Delta
			switch src.n(4) {
			case 0:
				d.Used = res()
			case 1:
				d.Pending = res()
			case 2:
				d.Reserved = res()
			default:
				d.PendingApps, d.ActiveApps = src.n(3)-1, src.n(3)-1
			}
			err := l.Update(u, d)
			if m.canApply(l.Path().String(), u, d) {
				if err != nil {
					t.Fatalf("refused valid update %+v: %v", d, err)
				}
				m.apply(l.Path().String(), u, d)
			} else if err == nil {
				t.Fatalf("accepted invalid update %+v", d)
			} else if !errors.Is(err, berth.ErrInvalidState) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			checkInvariants(t, tr, m)
		}
	})
}

// fuzzConfig builds a small random configuration. Most choices lead to a
// valid tree (children share 100% equally, states inherit), a few bytes
// pick the invalid corners (bad names, odd capacities, RUNNING under
// STOPPED, reservable parents).
func fuzzConfig(src *byteSource, depth int, name string) cfgT {
	c := cfgT{Name: name}
	if src.n(8) == 7 {
		c.State = State(src.n(4))
	}
	if src.n(4) == 3 {
		a := ParseACL([]string{"*", " ", "a", "a g", " g"}[src.n(5)])
		c.SubmitACL = &a
	}
	if src.n(8) == 7 {
		c.MaxCapacity = Percent(float32(src.n(6)) * 20)
	}
	k := 0
	if depth < 3 {
		k = src.n(4)
	}
	names := []string{"a", "b", "c", "d"}
	if src.n(16) == 15 {
		names = []string{"a", "a", "", "x.y"}
	}
	for i := 0; i < k; i++ {
		child := fuzzConfig(src, depth+1, names[i])
		switch src.n(8) {
		case 0, 1, 2, 3, 4:
			child.Capacity = Percent(100 / float32(k))
		case 5:
			child.Capacity = Percent(float32(src.next()) / 2)
		case 6:
			child.Capacity = Absolute(berth.New(int64(src.n(4))*1024, int64(src.n(4))))
		}
		c.Children = append(c.Children, child)
	}
	switch src.n(16) {
	case 14:
		c.Reservable = true
	case 15:
		c.Parent = true
	}
	if k == 0 && src.n(4) == 3 {
		c.Reservable = true
	}
	return c
}

// FuzzBuildAndReconfigure builds trees from fuzz-chosen configurations: New
// and Reconfigure either succeed with a well-formed tree or fail with a
// typed error leaving the old tree intact; nothing panics.
func FuzzBuildAndReconfigure(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 2, 1, 0, 0, 1, 1, 0, 0, 0, 1}, true)
	f.Add([]byte{1, 5, 1, 5, 1, 1, 1, 1, 3, 1, 3, 1, 2, 1, 2, 3, 3}, false)
	f.Add([]byte{9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, true)
	f.Fuzz(func(t *testing.T, data []byte, sums bool) {
		src := &byteSource{b: data}
		opts := TreeConfig[int]{CheckCapacitySums: sums}
		c1 := fuzzConfig(src, 0, "root")
		tr, err := New(rooted(c1, opts))
		if err != nil {
			var qe *Error
			if !errors.As(err, &qe) || !errors.Is(err, berth.ErrInvalidArgument) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		checkWellFormed(t, tr)
		// Charge a leaf so removals may be refused.
		if ls := tr.Leaves(); len(ls) > 0 {
			if err := ls[src.n(len(ls))].SubmitApp("u"); err != nil {
				t.Fatal(err)
			}
		}
		before := tr.Snapshot()
		c2 := fuzzConfig(src, 0, "root")
		diff, err := tr.Reconfigure(c2)
		if err != nil {
			if !errors.Is(err, berth.ErrInvalidArgument) && !errors.Is(err, berth.ErrInvalidState) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			after := tr.Snapshot()
			if len(after.Queues) != len(before.Queues) {
				t.Fatal("refused reconfigure changed the tree")
			}
			for i := range after.Queues {
				if after.Queues[i].Path != before.Queues[i].Path || !after.Queues[i].Usage.Equal(before.Queues[i].Usage) {
					t.Fatal("refused reconfigure changed the tree")
				}
			}
			return
		}
		checkWellFormed(t, tr)
		for _, p := range diff.Removed {
			if q := tr.Queue(p); q != nil && !containsPath(diff.Added, p) {
				t.Fatalf("removed %s still present", p)
			}
		}
		for _, p := range diff.Added {
			if tr.Queue(p) == nil {
				t.Fatalf("added %s missing", p)
			}
		}
		if tr.Root().NumApps() != before.Root().Usage.Apps() {
			t.Fatalf("applications lost: %d, had %d", tr.Root().NumApps(), before.Root().Usage.Apps())
		}
	})
}

func containsPath(ps []Path, p Path) bool {
	for _, x := range ps {
		if x == p {
			return true
		}
	}
	return false
}

// checkWellFormed verifies the structural invariants of a tree.
func checkWellFormed(t *testing.T, tr *Tree[int]) {
	t.Helper()
	n := 0
	for q := range tr.All() {
		n++
		if tr.Queue(q.Path()) != q || q.Removed() {
			t.Fatalf("index broken at %s", q.Path())
		}
		if l, err := tr.Lookup(q.Path().String()); err != nil || l != q {
			t.Fatalf("lookup of %s: %v", q.Path(), err)
		}
		for _, c := range q.Children() {
			if c.Parent() != q {
				t.Fatalf("parent link broken at %s", c.Path())
			}
			if p, _ := c.Path().Parent(); p != q.Path() {
				t.Fatalf("path of %s not under %s", c.Path(), q.Path())
			}
		}
		if q.IsLeaf() != (q.NumChildren() == 0 && q.Kind() != KindParent) {
			t.Fatalf("leaf/kind mismatch at %s", q.Path())
		}
		if q.AbsoluteMaxCapacity() < q.AbsoluteCapacity()-absCapacityEpsilon && !q.IsDynamic() {
			t.Fatalf("abs max < abs capacity at %s", q.Path())
		}
		if q.Parent() != nil && q.Parent().stopped && q.IsRunning() {
			t.Fatalf("running under a stopped parent at %s", q.Path())
		}
	}
	if n != tr.Len() {
		t.Fatalf("Len %d, walked %d", tr.Len(), n)
	}
}
