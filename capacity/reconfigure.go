package capacity

import (
	"reflect"
	"slices"

	"github.com/berthsched/berth/queue"
)

// Reconfigure applies a new configuration atomically (YARN's refresh of
// capacity-scheduler.xml) and returns what changed. The queue tree's rules
// apply: a queue can be removed, or a leaf turned into a parent, only when
// it is STOPPED and idle. Dynamic reservation queues survive while their
// plan queue stays reservable. An invalid configuration is refused and the
// old one stays in force. cfg.Clock is ignored: the clock is New's.
func (s *Scheduler) Reconfigure(cfg Config) (Change, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushAccounts() // the tree's accounting is read below
	cfg = cfg.clone()
	cfg.Clock = s.clock // the clock is the one New was given
	if err := cfg.validateGlobal(); err != nil {
		return Change{}, err
	}
	if err := cfg.Placement.validate(newConfigIndex(cfg.Root)); err != nil {
		return Change{}, err
	}
	if err := s.checkAllocationShrink(&cfg); err != nil {
		return Change{}, err
	}
	if err := s.checkParts(cfg.NodeLabels); err != nil {
		return Change{}, err
	}
	diff, err := s.tree.Reconfigure(cfg.Root)
	if err != nil {
		return Change{}, keyError(err)
	}
	global := !globalEqual(s.cfg, cfg)
	s.cfg = cfg
	s.setCalc(cfg.Calculator)
	_ = s.setParts(cfg.NodeLabels) // checkParts accepted them
	s.syncTree()
	for _, q := range s.byPath {
		if lf := q.leaf; lf != nil && lf.sched.Len() > 0 {
			// The ordering policy may have changed: rebuild the order (keys
			// are per policy, so even a single application is re-keyed).
			var apps []*app
			lf.sched.Ascend(func(a *app) bool { apps = append(apps, a); return true })
			lf.sched.Clear()
			slices.SortFunc(apps, func(x, y *app) int { return cmpSeq(x.seq, y.seq) })
			for _, a := range apps {
				schedInsert(q, a)
			}
		}
	}
	ch := Change{Added: paths(diff.Added), Removed: paths(diff.Removed), Modified: paths(diff.Changed), Global: global}
	if s.obs != nil {
		s.emitQueues(queue.QueueRemoved, ch.Removed)
		s.emitQueues(queue.QueueAdded, ch.Added)
		s.emitQueues(queue.QueueReconfigured, ch.Modified)
	}
	s.clusterChanged()
	s.runnableAfterReload()
	return ch, nil
}

func paths(ps []queue.Path) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

// globalEqual compares everything but the queue tree.
func globalEqual(a, b Config) bool {
	a.Root, b.Root = QueueConfig{}, QueueConfig{}
	// The host's group source is not configuration (and a function never
	// compares equal).
	a.Groups, b.Groups = nil, nil
	return reflect.DeepEqual(a, b)
}
