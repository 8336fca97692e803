package queue

import (
	"slices"
	"strings"
)

// AppendAsks appends the key's entries with containers outstanding to dst
// as Ask values: the ANY ask first, then rack asks, then host asks, each
// group by name. A preemption policy reads them to find what a starved
// application waits for and where (YARN's getAllResourceRequests).
func (k *RequestKey[S]) AppendAsks(dst []Ask) []Ask {
	if k.any.count > 0 {
		dst = append(dst, Ask{Priority: k.priority, ResourceName: AnyResource, Capability: k.capability,
			Count: k.any.count, StrictLocality: !k.any.relax})
	}
	for _, m := range []map[string]locationAsk{k.racks, k.hosts} {
		start := len(dst)
		for name, e := range m {
			if e.count > 0 {
				dst = append(dst, Ask{Priority: k.priority, ResourceName: name, Capability: k.capability,
					Count: e.count, StrictLocality: !e.relax})
			}
		}
		slices.SortFunc(dst[start:], func(a, b Ask) int { return strings.Compare(a.ResourceName, b.ResourceName) })
	}
	return dst
}
