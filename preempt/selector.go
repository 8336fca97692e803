package preempt

import (
	"github.com/berthsched/berth"
)

// Selector chooses the containers to preempt in a round: YARN's
// PreemptionCandidatesSelector. The policy runs its selectors in order,
// each seeing what the earlier ones chose, all drawing on one per-round
// budget. The built-in selectors ([FIFOSelector], [ReservedSelector],
// [PrioritySelector], [IntraQueueSelector]) use only the exported methods
// of [ProportionalRound], so a selector of the host's is first-class: pass
// it in [ProportionalSetup].Selectors. Selectors run while a round is
// decided and see only the scheduler's read side.
type Selector interface {
	// Name identifies the selector in round reports.
	Name() string
	// KillWait is how long a container this selector chose stays marked
	// before it is killed; 0 means the policy's max_wait_before_kill.
	KillWait() berth.Duration
	// Select chooses containers through r's Take* methods. An error
	// aborts the round before anything is marked or killed.
	Select(r *ProportionalRound) error
}

// Candidate is a container (or a reserved container) chosen in a round.
type Candidate struct {
	// Container is the chosen container; for a reservation, the reserved
	// container's id, application, node, queue, size and priority.
	Container
	// Reservation is true for a reserved container (its reservation is
	// cancelled at once rather than marked).
	Reservation bool
	// Selector names the selector that chose it.
	Selector string
	// Leaf is the container's leaf queue (nil if it is not in the snapshot).
	Leaf *QueueView

	wait berth.Duration // the choosing selector's kill wait
	part int            // the container's partition (-1: unknown)
}

// ProportionalRound is one round's working state, handed to each [Selector]: the
// read-only view of the cluster, the budget left, what has been chosen
// so far, and the ideal assignment of the last computation.
type ProportionalRound struct {
	// Cluster is the snapshot the round works on; do not modify it.
	Cluster *CapacityView
	// Config is the policy's configuration; do not modify it.
	Config *ProportionalConfig

	budget berth.Resource
	// all and assignAll hold every queue's state and results on every
	// partition (partition p's at [p*len(Queues):]); tqs and assign are the
	// partition the fix-point is working on (setPart), partResource its resource.
	all, tqs          []tq
	assignAll, assign []Assignment
	part              int
	partResource      berth.Resource
	opts              IdealOptions
	names             []string
	selected          []Candidate
	selIdx            map[ContainerID]int
	cur               Selector

	userLimit func(queue, user string) (berth.Resource, error)

	underServed []*QueueView
	served      []bool

	needy, group       []*tq
	scratchA, scratchB []*tq
	sums               []int64
	sortBuf            []*Container
}

// checkRound refuses a selection without a round.
func checkRound(r *ProportionalRound) error {
	if r == nil || r.Cluster == nil || r.Config == nil {
		return berth.InvalidField("round", nil, "a round of the policy is required")
	}
	return nil
}

func newRound(c *CapacityView, cfg *ProportionalConfig) *ProportionalRound {
	r := &ProportionalRound{Cluster: c, Config: cfg, names: roundTypeNames(c.Resource), selIdx: map[ContainerID]int{}}
	r.budget = c.Resource.Mul(cfg.TotalPreemptionPerRound)
	n := len(c.Queues)
	r.all = make([]tq, n*len(c.Partitions))
	r.assignAll = make([]Assignment, len(r.all))
	r.served = make([]bool, n)
	for p := range c.Partitions {
		for i, v := range c.Queues {
			t := &r.all[p*n+i]
			qp := v.On(p)
			t.v, t.guar, t.max, t.used = v, qp.Guaranteed, qp.Maximum, qp.Used
			t.pending, t.pendingNoRes = qp.Pending, qp.PendingDeductReserved
		}
	}
	r.setPart(0)
	r.computeExtras()
	return r
}

// Budget is what may still be selected this round (total_preemption_per_round
// of the cluster, less what was chosen).
func (r *ProportionalRound) Budget() berth.Resource { return r.budget }

// IsSelected reports whether the container was chosen earlier this round.
func (r *ProportionalRound) IsSelected(id ContainerID) bool {
	_, ok := r.selIdx[id]
	return ok
}

// Selected lists what was chosen so far, in order. Do not modify it.
func (r *ProportionalRound) Selected() []Candidate { return r.selected }

// Assignment is q's result on the default partition of the last
// [ProportionalRound.ComputeIdeal] (zero before the first), with ToObtain
// as computed then. A nil QueueView, or one that is not of this round,
// has the zero assignment.
func (r *ProportionalRound) Assignment(q *QueueView) Assignment { return r.AssignmentOn(q, 0) }

// AssignmentOn is [ProportionalRound.Assignment] on partition p (an index
// of CapacityView.Partitions; another p has the zero assignment).
func (r *ProportionalRound) AssignmentOn(q *QueueView, p int) Assignment {
	if !r.owns(q, p) {
		return Assignment{}
	}
	return r.assignAll[p*len(r.Cluster.Queues)+q.idx]
}

// owns reports whether q is a queue of the round's view and p one of its
// partitions.
func (r *ProportionalRound) owns(q *QueueView, p int) bool {
	return q != nil && r.Cluster != nil && p >= 0 && p < len(r.Cluster.Partitions) &&
		q.idx >= 0 && q.idx < len(r.Cluster.Queues) && r.Cluster.Queue(q.Path) == q
}

// ToObtain is what leaf q must still give on the default partition under
// the last ideal computation: its ToObtain less what was chosen from it
// since.
func (r *ProportionalRound) ToObtain(q *QueueView) berth.Resource { return r.ToObtainOn(q, 0) }

// ToObtainOn is [ProportionalRound.ToObtain] on partition p.
func (r *ProportionalRound) ToObtainOn(q *QueueView, p int) berth.Resource {
	if !r.owns(q, p) {
		return noResource
	}
	if t := r.at(p, q); t.hasObtain {
		return t.obtain
	}
	return noResource
}

// mustGive reports whether leaf q must still give something on some
// partition (YARN's non-empty resToObtainByPartition).
func (r *ProportionalRound) mustGive(q *QueueView) bool {
	for p := range r.Cluster.Partitions {
		if r.at(p, q).hasObtain {
			return true
		}
	}
	return false
}

// UnderServed lists the queues the last ideal computation left wanting
// more, most under-served first (the intra-queue selector's order).
func (r *ProportionalRound) UnderServed() []*QueueView { return r.underServed }

// TryPreempt is YARN's tryPreemptContainerAndDeductResToObtain for the
// container's leaf: it chooses c only if the leaf must still give
// something, c fits in the budget and c contributes to what the leaf must
// give (any positive part; with conservativeDRF, only while no resource
// type of the demand is met). It deducts c from the leaf's demand and the
// budget.
func (r *ProportionalRound) TryPreempt(c *Container, conservativeDRF bool) bool {
	if c == nil {
		return false
	}
	q, p := r.Cluster.Queue(c.Queue), r.Cluster.PartitionOfNode(c.Node)
	if q == nil || p < 0 {
		return false
	}
	t := r.at(p, q)
	if !t.hasObtain {
		return false
	}
	ok, done := r.tryOn(c, &t.obtain, conservativeDRF, p)
	if done {
		t.hasObtain = false
	}
	return ok
}

// TryPreemptFor is [ProportionalRound.TryPreempt] against a demand the caller keeps
// (the intra-queue selector's per-application amounts). done reports
// that the demand is met.
func (r *ProportionalRound) TryPreemptFor(c *Container, toObtain *berth.Resource, conservativeDRF bool) (ok, done bool) {
	if c == nil || toObtain == nil {
		return false, toObtain == nil
	}
	return r.tryOn(c, toObtain, conservativeDRF, r.Cluster.PartitionOfNode(c.Node))
}

// tryOn is TryPreemptFor with the container's partition p, whose resource
// comparisons are relative to (the cluster's when unknown).
func (r *ProportionalRound) tryOn(c *Container, toObtain *berth.Resource, conservativeDRF bool, p int) (ok, done bool) {
	calc, cluster := r.Cluster.Calculator, r.Cluster.Resource
	if p >= 0 {
		cluster = r.Cluster.Partitions[p].Resource
	}
	if r.IsSelected(c.ID) {
		return false, false
	}
	t := *toObtain
	// A type already met counts as -1 so that it does not block the others.
	for i := range r.names {
		if typeValue(t, i, r.names) == 0 {
			t = withTypeValue(t, i, r.names, -1)
		}
	}
	*toObtain = t
	if !calc.AnyMajorAboveZero(t) {
		return false, true
	}
	if !calc.FitsIn(c.Resource, r.budget) {
		return false, false
	}
	var doIt bool
	if conservativeDRF {
		doIt = !calc.AnyMajorZeroOrNegative(t)
	} else {
		doIt = berth.LessThan(calc, cluster, berth.ComponentwiseMax(t.Sub(c.Resource), noResource), berth.ComponentwiseMax(t, noResource))
	}
	if !doIt {
		return false, false
	}
	*toObtain = t.Sub(c.Resource)
	r.add(*c, false, p)
	return true, berth.LessOrEqual(calc, cluster, *toObtain, noResource)
}

// Take chooses c if it was not chosen yet and fits in the budget,
// whatever its queue must give: for selectors with their own accounting.
func (r *ProportionalRound) Take(c *Container) bool {
	if c == nil || r.IsSelected(c.ID) || !r.Cluster.Calculator.FitsIn(c.Resource, r.budget) {
		return false
	}
	r.add(*c, false, r.Cluster.PartitionOfNode(c.Node))
	return true
}

// TakeReservation chooses a reserved container for cancellation if it
// was not chosen yet and fits in the budget.
func (r *ProportionalRound) TakeReservation(res *Reservation) bool {
	if res == nil {
		return false
	}
	c := r.reservedContainer(res)
	if r.IsSelected(c.ID) || !r.Cluster.Calculator.FitsIn(c.Resource, r.budget) {
		return false
	}
	r.add(c, true, r.Cluster.PartitionOfNode(c.Node))
	return true
}

// TryPreemptReservation is [ProportionalRound.TryPreempt] for a reserved container.
func (r *ProportionalRound) TryPreemptReservation(res *Reservation, conservativeDRF bool) bool {
	if res == nil {
		return false
	}
	c := r.reservedContainer(res)
	q, p := r.Cluster.Queue(c.Queue), r.Cluster.PartitionOfNode(c.Node)
	if q == nil || p < 0 || r.IsSelected(c.ID) {
		return false
	}
	t := r.at(p, q)
	if !t.hasObtain {
		return false
	}
	ok, done := r.tryOn(&c, &t.obtain, conservativeDRF, p)
	if done {
		t.hasObtain = false
	}
	if ok { // recorded as a container by TryPreemptFor: flag it
		r.selected[len(r.selected)-1].Reservation = true
	}
	return ok
}

// reservedContainer is a reserved container as a container.
func (r *ProportionalRound) reservedContainer(res *Reservation) Container {
	return Container{ID: res.ID, App: res.App, Node: res.Node, Queue: res.Queue, Resource: res.Resource, Priority: res.Priority, Time: res.Time}
}

func (r *ProportionalRound) add(c Container, reservation bool, part int) {
	name, wait := "", r.Config.MaxWaitBeforeKill
	if r.cur != nil {
		name = r.cur.Name()
		if w := r.cur.KillWait(); w > 0 {
			wait = w
		}
	}
	r.selIdx[c.ID] = len(r.selected)
	r.selected = append(r.selected, Candidate{Container: c, Reservation: reservation, Selector: name, Leaf: r.Cluster.Queue(c.Queue), wait: wait, part: part})
	r.budget = r.budget.Sub(c.Resource)
}

// saveAssignments records the computation's results for Assignment.
func (r *ProportionalRound) saveAssignments() {
	for i := range r.all {
		t := &r.all[i]
		a := Assignment{Ideal: t.ideal, ToBePreempted: t.toBePreempted, Preemptable: t.preemptab, Untouchable: t.untouchable}
		if t.hasObtain {
			a.ToObtain = t.actual
		}
		r.assignAll[i] = a
	}
}

// UserLimit is the scheduler's limit for user in leaf q.
// The limits of the leaf's users come with the round's state; another
// user's is asked of the scheduler.
func (r *ProportionalRound) UserLimit(q *QueueView, user string) (berth.Resource, error) {
	if q == nil {
		return berth.Resource{}, berth.InvalidField("queue", nil, "must not be nil")
	}
	if r.userLimit == nil {
		return berth.Unbounded(), nil
	}
	if len(q.Apps) <= 16 { // a few applications: a scan beats a map
		for _, a := range q.Apps {
			if a.User == user {
				return a.userLimit, nil
			}
		}
		return r.userLimit(q.Path, user)
	}
	if q.userLimits == nil {
		q.userLimits = make(map[string]berth.Resource, 2)
		for _, a := range q.Apps {
			q.userLimits[a.User] = a.userLimit
		}
	}
	if ul, ok := q.userLimits[user]; ok {
		return ul, nil
	}
	return r.userLimit(q.Path, user)
}
