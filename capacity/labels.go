package capacity

import (
	"fmt"
	"slices"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// NodeLabel is one partition of the cluster (YARN's cluster node label,
// as yarn rmadmin -addToClusterNodeLabels declares it).
type NodeLabel struct {
	// Name of the label: letters, digits, '-' and '_', starting with a
	// letter or digit, at most 255 characters (YARN's rule).
	Name string
	// NonExclusive lets asks of the default partition use the partition's
	// idle resources (YARN's exclusive=false). The zero value is
	// exclusive, YARN's default.
	NonExclusive bool
}

// LabelSettings are a queue's settings on one node label
// (yarn.scheduler.capacity.<queue>.accessible-node-labels.<label>.*).
type LabelSettings struct {
	// Capacity is the guarantee on the partition: a percentage of the
	// parent's on it, or an absolute resource; unset is 0.
	Capacity queue.Capacity
	// MaxCapacity is the maximum on the partition; unset is 100%.
	MaxCapacity queue.Capacity
	// MaxAMResourcePercent is the AM share on the partition, a fraction;
	// 0 (unset) is the queue's maximum-am-resource-percent.
	MaxAMResourcePercent float64
}

// AnyLabel in QueueSettings.AccessibleNodeLabels lets a queue use every
// partition (YARN's "*").
const AnyLabel = "*"

// maxLabelLen is YARN's limit on a node label's length.
const maxLabelLen = 255

// checkLabelName is YARN's CommonNodeLabelsManager.checkAndThrowLabelName.
func checkLabelName(field, name string) error {
	if name == "" || len(name) > maxLabelLen {
		return berth.InvalidField(field, name, fmt.Sprintf("a node label must be 1 to %d characters", maxLabelLen))
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alnum && (i == 0 || (c != '-' && c != '_')) {
			return berth.InvalidField(field, name, "a node label is letters, digits, '-' and '_', starting with a letter or digit")
		}
	}
	return nil
}

// validateNodeLabels checks the cluster's labels: valid, distinct names.
func validateNodeLabels(ls []NodeLabel) error {
	seen := make(map[string]bool, len(ls))
	for i, l := range ls {
		f := fmt.Sprintf("node-labels[%d]", i)
		if err := checkLabelName(f+".name", l.Name); err != nil {
			return err
		}
		if seen[l.Name] {
			return fieldErr(berth.ErrAlreadyExists, f+".name", l.Name, "node label listed twice")
		}
		seen[l.Name] = true
	}
	return nil
}

// accessSet is a queue's resolved accessible labels: every partition, or
// the listed ones (the default partition is always accessible).
type accessSet struct {
	any    bool
	labels []string // sorted
}

func (a accessSet) has(label string) bool {
	if label == "" || a.any {
		return true
	}
	_, ok := slices.BinarySearch(a.labels, label)
	return ok
}

// covers reports whether a holds every label of b (YARN's containsAll on
// the label sets, "*" being a label of its own there).
func (a accessSet) covers(b accessSet) bool {
	if b.any {
		return a.any
	}
	for _, l := range b.labels {
		if !a.any && !a.has(l) {
			return false
		}
	}
	return true
}

// ownAccess reads a queue's configured accessible labels (ok false: not
// set, inherited).
func ownAccess(st *QueueSettings) (accessSet, bool) {
	if st.AccessibleNodeLabels == nil {
		return accessSet{}, false
	}
	var a accessSet
	for _, l := range st.AccessibleNodeLabels {
		if l == AnyLabel {
			return accessSet{any: true}, true
		}
		if l != "" {
			a.labels = append(a.labels, l)
		}
	}
	slices.Sort(a.labels)
	a.labels = slices.Compact(a.labels)
	return a, true
}

// labelView is what a queue's partitions are derived from: its resolved
// accessible labels and default label expression (YARN's
// AbstractCSQueue.setupQueueConfigs inheritance).
type labelView struct {
	access accessSet
	defExp string // "" none
}

// resolveLabels resolves the queue tree's accessible labels and default
// label expressions top down: root accesses every partition (YARN ignores
// a root setting); a queue without its own list inherits its parent's;
// one without its own default expression inherits its parent's when its
// labels include the parent's. Reservation queues inherit their plan's.
func resolveLabels(q *tqueue, parent *labelView, out map[*tqueue]labelView) {
	st := &q.Payload
	var v labelView
	switch {
	case parent == nil:
		v.access = accessSet{any: true}
	case q.Kind() == queue.KindReservation:
		v = *parent
	default:
		if a, ok := ownAccess(st); ok {
			v.access = a
		} else {
			v.access = parent.access
		}
	}
	if q.Kind() != queue.KindReservation {
		v.defExp = st.DefaultNodeLabelExpression
		if v.defExp == "" && parent != nil && v.access.covers(parent.access) {
			v.defExp = parent.defExp
		}
	}
	if v.defExp == queue.NoLabel {
		v.defExp = ""
	}
	out[q] = v
	for i := 0; i < q.NumChildren(); i++ {
		resolveLabels(q.Child(i), &v, out)
	}
}

// validateLabelSettings checks the queues' label settings on a candidate
// tree: label names, a child's labels within its parent's (below root),
// default expressions the queue can access, per-label capacities within
// their maximums, and each parent's children's capacities on every label
// the parent configures summing as the default partition's must.
func validateLabelSettings(t *queue.Tree[QueueSettings]) error {
	views := make(map[*tqueue]labelView, t.Len())
	resolveLabels(t.Root(), nil, views)
	for q := range t.All() {
		st := &q.Payload
		key := prefix + q.Path().String() + "."
		for _, l := range st.AccessibleNodeLabels {
			if l != AnyLabel && l != "" {
				if err := checkLabelName(key+"accessible-node-labels", l); err != nil {
					return err
				}
			}
		}
		if d := st.DefaultNodeLabelExpression; d != "" && d != queue.NoLabel {
			if err := checkLabelName(key+"default-node-label-expression", d); err != nil {
				return err
			}
		}
		if p := q.Parent(); p != nil && p.Parent() != nil && q.Kind() != queue.KindReservation {
			mine, pv := views[q].access, views[p].access
			if !pv.any && !pv.covers(mine) {
				if mine.any {
					return berth.InvalidField(key+"accessible-node-labels", AnyLabel, "the parent's accessible labels are not *, so the child's cannot be")
				}
				var diff []string
				for _, l := range mine.labels {
					if !pv.has(l) {
						diff = append(diff, l)
					}
				}
				return berth.InvalidField(key+"accessible-node-labels", diff, "labels the parent queue cannot access")
			}
		}
		if v := views[q]; v.defExp != "" && !v.access.has(v.defExp) {
			return berth.InvalidField(key+"default-node-label-expression", v.defExp, "the queue cannot access this label")
		}
		for _, l := range sortedKeys(st.NodeLabels) {
			ls := st.NodeLabels[l]
			lk := key + "accessible-node-labels." + l + "."
			if err := checkLabelName(key+"accessible-node-labels", l); err != nil {
				return err
			}
			for _, c := range []struct {
				f string
				c queue.Capacity
			}{{"capacity", ls.Capacity}, {"maximum-capacity", ls.MaxCapacity}} {
				switch c.c.Kind {
				case queue.CapacityPercent:
					if p := c.c.Percent; p != p || p < 0 || p > 100 {
						return berth.InvalidField(lk+c.f, p, "must be a percentage in [0, 100]")
					}
				case queue.CapacityAbsolute:
					if c.c.Resource.AnyNegative() {
						return berth.InvalidField(lk+c.f, c.c.Resource, "resource amounts must not be negative")
					}
				case queue.CapacityUnset:
				default:
					return berth.InvalidField(lk+c.f, c.c.Kind, "unknown capacity kind")
				}
			}
			if bad(ls.MaxAMResourcePercent) || ls.MaxAMResourcePercent < 0 || ls.MaxAMResourcePercent > 1 {
				return berth.InvalidField(lk+"maximum-am-resource-percent", ls.MaxAMResourcePercent, "must be in [0, 1] (0: the queue's)")
			}
			if ls.Capacity.IsAbsolute() && ls.MaxCapacity.IsAbsolute() && !ls.Capacity.Resource.FitsIn(ls.MaxCapacity.Resource) {
				return berth.InvalidField(lk+"capacity", ls.Capacity.Resource, fmt.Sprintf("greater than the maximum %v", ls.MaxCapacity.Resource))
			}
		}
	}
	return checkLabelFractions(t.Root(), nil)
}

// labelFrac is a queue's capacity and maximum capacity on one label as
// fractions of the cluster's partition (YARN's absolute capacities, in
// single precision), for the configuration checks.
type labelFrac struct{ abs, absMax float32 }

// checkLabelFractions walks the tree computing each queue's absolute
// fractions per configured label: a queue's absolute capacity must not
// exceed its absolute maximum, and a parent's children on a label the
// parent configures must sum to 100% (0 under a zero parent), as YARN's
// ParentQueue.setChildQueues checks.
func checkLabelFractions(q *tqueue, parent map[string]labelFrac) error {
	st := &q.Payload
	mine := make(map[string]labelFrac, len(st.NodeLabels))
	if q.Kind() == queue.KindReservation {
		return nil // reservation queues have no label capacities
	}
	key := prefix + q.Path().String() + ".accessible-node-labels."
	for l, ls := range st.NodeLabels {
		var f labelFrac
		capF, maxF := labelPercent(ls.Capacity, 0), labelPercent(ls.MaxCapacity, 1)
		if parent == nil {
			f = labelFrac{abs: 1, absMax: 1} // the root holds every partition
		} else {
			pf := parent[l]
			f = labelFrac{abs: capF * pf.abs, absMax: maxF * pf.absMax}
		}
		if f.abs > f.absMax+0.0001 {
			return berth.InvalidField(key+l+".maximum-capacity", ls.MaxCapacity,
				fmt.Sprintf("illegal queue capacity setting (abs-capacity=%g) > (abs-maximum-capacity=%g) for label %s", f.abs, f.absMax, l))
		}
		mine[l] = f
	}
	if q.Kind() == queue.KindParent && q.NumChildren() > 0 {
		for _, l := range sortedKeys(st.NodeLabels) {
			ls := st.NodeLabels[l]
			own := labelPercent(ls.Capacity, 0)
			if parent == nil {
				own = 1 // the root holds every partition
			}
			var sum float32
			anyAbs := false
			var absSum berth.Resource
			for i := 0; i < q.NumChildren(); i++ {
				cs, ok := q.Child(i).Payload.NodeLabels[l]
				if !ok {
					continue
				}
				if cs.Capacity.IsAbsolute() && !cs.Capacity.Resource.IsZero() {
					anyAbs = true
					absSum = absSum.Add(cs.Capacity.Resource)
				}
				sum += labelPercent(cs.Capacity, 0)
			}
			delta := sum - 1
			if delta < 0 {
				delta = -delta
			}
			if parent == nil && sum == 0 && ls.Capacity.Kind == queue.CapacityUnset && ls.MaxCapacity.Kind == queue.CapacityUnset {
				continue // an empty root entry (Ambari's -1 pair) asks nothing of the children
			}
			if (!anyAbs && own > 0 && delta > 0.0005) || (own == 0 && !ls.Capacity.IsAbsolute() && sum > 0) {
				return berth.InvalidField(key+l+".capacity", sum*100,
					fmt.Sprintf("illegal capacity of %g for children of queue %s for label=%s", sum, q.Path().Name(), l))
			}
			if pc := ls.Capacity; parent != nil && pc.IsAbsolute() && !absSum.FitsIn(pc.Resource) {
				return berth.InvalidField(key+l+".capacity", pc.Resource,
					fmt.Sprintf("parent queue's capacity on label %s is less than its children's %v", l, absSum))
			}
		}
	}
	for i := 0; i < q.NumChildren(); i++ {
		if err := checkLabelFractions(q.Child(i), mine); err != nil {
			return err
		}
	}
	return nil
}

// labelPercent is a label capacity as a fraction: a percentage over 100,
// def when unset; an absolute capacity counts as 0 here (its fraction
// depends on the partition's size).
func labelPercent(c queue.Capacity, def float32) float32 {
	switch c.Kind {
	case queue.CapacityPercent:
		return c.Percent / 100
	case queue.CapacityUnset:
		return def
	}
	if def == 1 {
		return 1 // an absolute maximum: checked against resources, not fractions
	}
	return 0
}

// cloneLabelSettings deep-copies a queue's label settings.
func cloneLabelSettings(dst *QueueSettings, src *QueueSettings) {
	if src.AccessibleNodeLabels != nil {
		dst.AccessibleNodeLabels = slices.Clone(src.AccessibleNodeLabels)
	}
	if src.NodeLabels != nil {
		dst.NodeLabels = make(map[string]LabelSettings, len(src.NodeLabels))
		for k, v := range src.NodeLabels {
			dst.NodeLabels[k] = v
		}
	}
}

// labelKeys indexes the per-label keys of a capacity-scheduler.xml once:
// queue path → label → the key's last part → value, so that reading a
// queue does not scan every property.
type labelKeys map[string]map[string]map[string]string

const accessibleKey = "accessible-node-labels"

func indexLabelKeys(props map[string]string) labelKeys {
	out := labelKeys{}
	for k, v := range props {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		path, tail, ok := strings.Cut(rest, "."+accessibleKey+".")
		if !ok {
			continue
		}
		label, suffix, ok := strings.Cut(tail, ".")
		if !ok || label == "" {
			continue
		}
		if out[path] == nil {
			out[path] = map[string]map[string]string{}
		}
		if out[path][label] == nil {
			out[path][label] = map[string]string{}
		}
		out[path][label][suffix] = v
	}
	return out
}

// labels reads a queue's label keys: accessible-node-labels (a
// comma-separated list, "*" for all, blank for none),
// default-node-label-expression, and per label capacity,
// maximum-capacity and maximum-am-resource-percent. Any key of a label
// gives the queue an entry for it, unset values YARN's defaults (YARN's
// getConfiguredNodeLabels). The names the file uses are collected in named.
func (p *parser) labels(key, path string, st *QueueSettings, named map[string]bool) {
	if v, ok := p.get(key + accessibleKey); ok && path != "root" {
		st.AccessibleNodeLabels = []string{}
		for _, l := range strings.Split(v, ",") {
			if l = strings.TrimSpace(l); l != "" {
				st.AccessibleNodeLabels = append(st.AccessibleNodeLabels, l)
				named[l] = true
			}
		}
	}
	if v, ok := p.get(key + "default-node-label-expression"); ok {
		st.DefaultNodeLabelExpression = v
		if v == "" {
			st.DefaultNodeLabelExpression = queue.NoLabel
		}
		named[v] = true
	}
	for _, l := range sortedKeys(p.labelKeys[path]) {
		named[l] = true
		lk := key + accessibleKey + "." + l + "."
		var ls LabelSettings
		// -1 is unset here too: Ambari writes it for a label's capacity.
		ls.Capacity = p.capacity(lk+"capacity", true)
		ls.MaxCapacity = p.capacity(lk+"maximum-capacity", true)
		p.float(lk+"maximum-am-resource-percent", &ls.MaxAMResourcePercent)
		if st.NodeLabels == nil {
			st.NodeLabels = map[string]LabelSettings{}
		}
		st.NodeLabels[l] = ls
	}
}

// namedLabels turns the labels a file names into the cluster's labels,
// exclusive as YARN's default: the file does not say which labels the
// cluster has or their exclusivity. Names that are not labels are left
// for the queue checks to report with their key.
func namedLabels(named map[string]bool) []NodeLabel {
	var out []NodeLabel
	for _, l := range sortedKeys(named) {
		if l != AnyLabel && checkLabelName("", l) == nil {
			out = append(out, NodeLabel{Name: l})
		}
	}
	return out
}
