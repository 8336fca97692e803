package queue

import (
	"fmt"
	"testing"

	"github.com/berthsched/berth"
)

// wideTree builds root → 10 parents → 10 parents → 10 leaves (1111 queues,
// leaves at depth 3), percentages summing to 100 at every level.
func wideTree(b testing.TB) *Tree[int] {
	var top []cfgT
	for i := 0; i < 10; i++ {
		var mid []cfgT
		for j := 0; j < 10; j++ {
			var leaves []cfgT
			for k := 0; k < 10; k++ {
				leaves = append(leaves, leaf(fmt.Sprintf("l%d_%d_%d", i, j, k), 10))
			}
			mid = append(mid, parent(fmt.Sprintf("m%d_%d", i, j), 10, leaves...))
		}
		top = append(top, parent(fmt.Sprintf("t%d", i), 10, mid...))
	}
	return mustTree(b, rootOf(top...), csOpts)
}

func BenchmarkUpdate(b *testing.B) {
	tr := wideTree(b)
	q := tr.Leaves()[555]
	r := berth.New(1024, 1)
	b.ReportAllocs()
	for b.Loop() {
		_ = q.Allocate("alice", r)
		_ = q.Release("alice", r)
	}
}

func BenchmarkUpdateManyUsers(b *testing.B) {
	tr := wideTree(b)
	leaves := tr.Leaves()
	users := []string{"u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7"}
	r := berth.New(1024, 1)
	for i, l := range leaves {
		_ = l.Allocate(users[i%len(users)], r)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q := leaves[i%len(leaves)]
		u := users[(i/len(leaves))%len(users)]
		// ask, allocate, release: three updates per op.
		if err := q.Update(u, Delta{Pending: r}); err != nil {
			b.Fatal(err)
		}
		if err := q.Update(u, Delta{Used: r, Pending: r.Neg()}); err != nil {
			b.Fatal(err)
		}
		if err := q.Release(u, r); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkLookupShortName(b *testing.B) {
	tr := wideTree(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tr.Lookup("l5_5_5"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSnapshot(b *testing.B) {
	tr := wideTree(b)
	for i, l := range tr.Leaves() {
		_ = l.Allocate(fmt.Sprintf("u%d", i%5), berth.New(1024, 1))
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = tr.Snapshot()
	}
}

func BenchmarkCanSubmit(b *testing.B) {
	tr := wideTree(b)
	q := tr.Leaves()[555]
	g := StaticGroups{"alice": {"a", "b"}}
	b.ReportAllocs()
	for b.Loop() {
		_ = q.CanSubmit("alice", g)
	}
}

func BenchmarkNew(b *testing.B) {
	tr := wideTree(b)
	var top []cfgT
	for i := 0; i < 10; i++ {
		var mid []cfgT
		for j := 0; j < 10; j++ {
			var leaves []cfgT
			for k := 0; k < 10; k++ {
				leaves = append(leaves, leaf(fmt.Sprintf("l%d_%d_%d", i, j, k), 10))
			}
			mid = append(mid, parent(fmt.Sprintf("m%d_%d", i, j), 10, leaves...))
		}
		top = append(top, parent(fmt.Sprintf("t%d", i), 10, mid...))
	}
	cfg := rootOf(top...)
	b.Run("build", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := New(rooted(cfg, csOpts)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reconfigure", func(b *testing.B) {
		for _, l := range tr.Leaves() {
			_ = l.SubmitApp("u")
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tr.Reconfigure(cfg); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkUpdateRef is BenchmarkUpdate through a UserRef, as a scheduler
// charges an application's containers, with the user holding something
// (so the entries stay) and with the leaf's books hot and cold.
func BenchmarkUpdateRef(b *testing.B) {
	for _, mode := range []string{"map", "ref"} {
		b.Run("by="+mode, func(b *testing.B) {
			tr := wideTree(b)
			q := tr.Leaves()[555]
			r := berth.New(1024, 1)
			_ = q.Allocate("alice", r)
			var ref UserRef[int]
			b.ReportAllocs()
			for b.Loop() {
				if mode == "map" {
					_ = q.Update("alice", Delta{Used: r})
					_ = q.Update("alice", Delta{Used: r.Neg()})
				} else {
					_ = q.UpdateRef(&ref, "alice", Delta{Used: r})
					_ = q.UpdateRef(&ref, "alice", Delta{Used: r.Neg()})
				}
			}
		})
	}
}
