package preempt

import (
	"slices"

	"github.com/berthsched/berth"
)

// FIFOSelector is YARN's FifoCandidatesSelector, the default selector
// between queues: for each leaf that must give, latest applications
// first (the reverse of the scheduling order), their reserved containers,
// then their live containers least important first (request priority
// numerically highest, then newest), AM containers kept for last and
// taken only while the leaf's skipped AMs exceed its AM share.
type FIFOSelector struct {
	// IncludeReserved counts reserved resources as demand and skips the
	// natural termination factor (additional_res_balance_based_on_reserved_containers).
	IncludeReserved bool
	// Balance is the preemption-to-balance variant: leaves may be evened
	// out beyond max(used, guaranteed).
	Balance bool
	// Wait is the kill wait (0: max_wait_before_kill).
	Wait berth.Duration
}

// Name is "fifo", or "fifo-balance" for the balance variant.
func (s FIFOSelector) Name() string {
	if s.Balance {
		return "fifo-balance"
	}
	return "fifo"
}

// KillWait returns Wait.
func (s FIFOSelector) KillWait() berth.Duration { return s.Wait }

// Select computes the ideal assignment with the selector's flags and
// chooses containers leaf by leaf.
func (s FIFOSelector) Select(r *ProportionalRound) error {
	if err := checkRound(r); err != nil {
		return err
	}
	r.ComputeIdeal(IdealOptions{IncludeReserved: s.IncludeReserved, SkipNaturalTermination: s.IncludeReserved, AllowBalance: s.Balance})
	calc, cluster := r.Cluster.Calculator, r.Cluster.Resource
	conservative := r.Config.ConservativeDRF
	for _, leaf := range r.Cluster.Leaves {
		if leaf.DisablePreemption || !r.mustGive(leaf) {
			continue
		}
		// First what the leaf borrowed on partitions it must give back.
		for _, c := range leaf.Borrowed {
			if p := r.Cluster.PartitionOfNode(c.Node); r.at(p, leaf).hasObtain && !r.IsSelected(c.ID) {
				r.TryPreempt(c, conservative)
			}
		}
		var skipped []*Container
		var skippedSize berth.Resource
	apps:
		for i := len(leaf.Apps) - 1; i >= 0; i-- {
			a := leaf.Apps[i]
			if !r.mustGive(leaf) {
				break
			}
			for _, res := range a.Reservations {
				if r.IsSelected(res.ID) {
					continue
				}
				if !r.mustGive(leaf) {
					break apps
				}
				r.TryPreemptReservation(res, conservative)
			}
			stop := false
			err := leastImportantFirst(r, a, func(c *Container) bool {
				if !r.mustGive(leaf) {
					stop = true
					return false
				}
				if r.IsSelected(c.ID) {
					return true
				}
				if c.AM {
					skipped = append(skipped, c)
					skippedSize = skippedSize.Add(c.Resource)
					return true
				}
				r.TryPreempt(c, conservative)
				return true
			})
			if err != nil {
				return err
			}
			if stop {
				break apps
			}
		}
		for _, c := range skipped {
			if !r.mustGive(leaf) || berth.LessOrEqual(calc, cluster, skippedSize, leaf.MaxAMCapacity) {
				break
			}
			if r.TryPreempt(c, conservative) {
				skippedSize = skippedSize.Sub(c.Resource)
			}
		}
	}
	return nil
}

// leastImportantFirst calls visit with a's live containers least
// important first (request priority numerically highest, then newest)
// until it returns false. When all of a's containers share one priority
// that is newest first, so they are read from the scheduler a page at a
// time and only as far as visit goes: a leaf that must give a few
// containers does not copy all of them.
func leastImportantFirst(r *ProportionalRound, a *AppView, visit func(*Container) bool) error {
	if a.containerPriorities > 1 || a.loaded {
		cs, err := r.Cluster.AppContainers(a)
		if err != nil {
			return err
		}
		for _, c := range sortedForPreemption(r, cs) {
			if !visit(c) {
				return nil
			}
		}
		return nil
	}
	var before ContainerID
	for page := 8; ; page = min(2*page, 1024) {
		cs, err := r.Cluster.appContainersBefore(a, before, page)
		if err != nil {
			return err
		}
		for _, c := range cs {
			if !visit(c) {
				return nil
			}
		}
		if len(cs) < page {
			return nil
		}
		before = cs[len(cs)-1].ID
	}
}

// sortedForPreemption orders an application's live containers least
// important first: request priority numerically highest, then newest.
// The slice is the round's scratch buffer, valid until the next call.
func sortedForPreemption(r *ProportionalRound, cs []*Container) []*Container {
	r.sortBuf = append(r.sortBuf[:0], cs...)
	slices.SortFunc(r.sortBuf, func(x, y *Container) int {
		if x.Priority != y.Priority {
			return compareInts(y.Priority, x.Priority)
		}
		return compareInts(uint64(y.ID), uint64(x.ID))
	})
	return r.sortBuf
}
