// Package order keeps items sorted by a changing key, for the schedulers' walks.
//
// A [Set] is what capacity and fair walk instead of sorting applications
// and child queues on every heartbeat: the owner re-keys an item when its
// key may have changed (O(log n)), and a walk costs O(1) per item. Small
// sets are a sorted slice, large ones a B-tree; an optional [Prefix] lets
// most comparisons skip the policy's comparator. It is not safe for
// concurrent use (the schedulers hold their lock) and it does not compute
// keys: that is the ordering policy's job.
//
// It is internal: no host needs it, so its API can follow the schedulers.
package order
