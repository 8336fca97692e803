package order_test

import (
	"fmt"

	"github.com/berthsched/berth/internal/order"
)

// A Set walks applications least-used first; an allocation re-keys one
// in O(log n) instead of re-sorting them all.
func Example() {
	type app struct {
		name string
		used int64
	}
	byUse := func(a, b *int64) int { return int(*a - *b) }
	o := order.New[int64, *app](byUse)
	apps := []*app{{"a", 4}, {"b", 1}, {"c", 2}}
	entries := make([]order.Entry[int64, *app], len(apps))
	for i, a := range apps {
		entries[i].Value = a
		o.Insert(&entries[i], a.used)
	}
	walk := func() {
		var names []string
		o.Ascend(func(a *app) bool { names = append(names, a.name); return true })
		fmt.Println(names)
	}
	walk()
	apps[1].used += 5 // b got a container: notify the new key
	o.Rekey(&entries[1], apps[1].used)
	walk()
	// Output:
	// [b c a]
	// [c a b]
}
