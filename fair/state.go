package fair

import (
	"fmt"
	"io"
	"log/slog"
	"math"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// Durable state. SaveState writes one snapshot of kind
// "fair.Scheduler", body version 2, in the berth framing. The body, in
// order (resources, strings and floats as the framing writes them):
//
//	config        Config without Groups and Logger, then whether it had
//	              Groups, then the reservation-system settings
//	allocations   the AllocationFile in force: the queue tree as written
//	              (every field, host policies by name), user limits,
//	              defaults, the reservation settings, the placement policy
//	              (host rules by name)
//	scalars       next container id, next submission sequence, last update
//	              time, whether an update ran, the first PolicyError
//	nodes         in id order: id, rack, capability
//	queues        pre-order, children in creation order: path, parent,
//	              leaf, dynamic, plan, reservation, entitlement, whether
//	              the file or the shared tree holds it as configured, its
//	              policy (built-in number or host name), and the results of
//	              the last update (demand, fair and steady fair shares,
//	              active) and its min-share starvation clock
//	type changes  leaf/parent changes deferred by a reload
//	apps          leaf by leaf in queue order, runnable then waiting, each
//	              list in its order: id, user, leaf, runnable, sequence,
//	              priority, reservation id, start time, the last update's
//	              demand, fair share and weight, AM state, starvation state
//	              (last time at fair share, fair and min-share starvation,
//	              back-off end) and its request table with each key's
//	              delay-scheduling state
//	users         each user's waiting applications in order
//	containers    in id order: id, application, node, size, priority,
//	              locality, AM, time, marked for preemption
//	reservations  id, node, application, priority, size, time
//	earmarks      per node, what it owes starved applications, in order
//
// Everything else is derived and rebuilt on restore through the same
// helpers normal operation uses: queue settings and maximum shares
// (applySettings), the shared queue tree and its books (syncTree and
// account), usage of applications, queues and nodes, runnable counts, AM
// usage, the container index and the intrusive per-application and
// per-node lists (containers are re-linked in id order, which is the
// order the lists keep), rack counts and the walk's kept orders (re-keyed
// before the first walk). A restored scheduler is checked with
// [Scheduler.Check] before it is returned.
//
// Fair shares are saved, not recomputed: they are those of the last
// update, computed from demands that later asks have since changed.
//
// The files follow the body: this one holds the entry points, whose
// saveState and restore name the records in body order; state_config.go
// the configuration records (config and allocation file), state_queues.go
// the queues, type changes, applications and users, and state_cluster.go
// the rest (scalars and nodes, containers, reservations, earmarks). Each
// record's writer sits beside its reader, so a change to the layout is one
// place.

const (
	stateKind    = "fair.Scheduler"
	stateVersion = 2

	// bounds on counts read from a snapshot (a corrupt count fails fast)
	maxStateItems = 1 << 28
	maxStateDepth = 256
)

// RestoreEnv is what a snapshot cannot hold and the host supplies to
// [RestoreScheduler].
type RestoreEnv struct {
	// Clock is the host's clock (required).
	Clock berth.Clock
	// Groups becomes Config.Groups: required when the saved scheduler had
	// one (placement and ACLs must see the same groups), ignored when it
	// had none.
	Groups queue.Groups
	// Logger becomes Config.Logger (nil: silent).
	Logger *slog.Logger
	// Rules resolves the host's placement rules saved in the allocation
	// file's placement policy, by the name their Name method reported.
	Rules *queue.Registry[Rule]
	// Policies resolves the host's scheduling policies (of queues and of
	// the allocation file), by the name their Name method reported.
	Policies *queue.Registry[SchedulingPolicy]
}

// RestoreOptions is the first name of [RestoreEnv], kept so that hosts
// written against it still build.
//
// Deprecated: use RestoreEnv, the name packages plan and capacity use too.
type RestoreOptions = RestoreEnv

// policy tags of the body
const (
	polNone    = 0
	polBuiltin = 1
	polHost    = 2
)

// SaveState writes the scheduler's state to w as one snapshot (see
// "Durable state" in the package documentation). It holds the scheduler's
// lock for the whole write, so the snapshot is a consistent cut, and
// streams: besides the output buffer it allocates only an index of the
// applications and nodes.
func (s *Scheduler) SaveState(w io.Writer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.saveState(w)
}

// saveState is SaveState with the lock held.
func (s *Scheduler) saveState(w io.Writer) error {
	e := berth.NewStateEncoder(w, stateKind, stateVersion)
	queues := s.queuesPreOrder()
	// The indexes by which the later records name nodes, queues and
	// applications, filled as those are written (made here, they stay off
	// the heap).
	nodeIx := make(map[*node]int, len(s.byID))
	queueIx := make(map[*fsQueue]int, len(queues))
	appIx := make(map[*app]int, len(s.apps))
	writeConfig(e, &s.cfg)
	writeAllocationFile(e, s.alloc)
	s.writeScalars(e)
	s.writeNodes(e, nodeIx)
	writeQueues(e, queues, queueIx)
	s.writeTypeChanges(e)
	s.writeApps(e, queues, queueIx, appIx)
	s.writeUsers(e, appIx)
	s.writeContainers(e, appIx, nodeIx)
	s.writeReservations(e, appIx, nodeIx)
	s.writeEarmarks(e, appIx, nodeIx)
	return e.Finish()
}

// restorer carries a restore's decoder, the host's environment and, once
// the configuration records are read, the scheduler being rebuilt with
// the records the later ones refer to. A value the environment lacks (a
// policy, calculator, rule or groups provider the snapshot names) is
// reported through the decoder's Defer, so a damaged snapshot is still
// reported as corrupt.
type restorer struct {
	d   *berth.StateDecoder
	env RestoreEnv

	s      *Scheduler   // made from the configuration records
	polErr *PolicyError // the scalars' PolicyError, set by settleQueues
	queues []*fsQueue   // in the body's order (pre-order)
	saved  []queueState // per queue: the last update's results
	apps   []*app       // in the body's order (queue by queue)
}

func (r *restorer) fail(format string, args ...any) {
	r.d.Fail(fmt.Errorf(format, args...))
}

// RestoreScheduler reads a snapshot written by [Scheduler.SaveState] and
// returns a new scheduler in the same state, which decides exactly as the
// saved one would have. What a snapshot cannot hold comes from env (see
// [RestoreEnv]). Nothing is returned unless the whole snapshot
// verified: a damaged snapshot is an error wrapping berth.ErrCorruptState,
// one of another kind or a newer version berth.ErrInvalidArgument or
// berth.ErrUnsupportedVersion, and a host rule, policy or groups provider env cannot
// resolve (or a nil clock) berth.ErrInvalidArgument naming it.
func RestoreScheduler(rd io.Reader, env RestoreEnv) (*Scheduler, error) {
	if berth.CheckNotNil("clock", env.Clock) != nil {
		return nil, berth.InvalidField("clock", nil, "a clock is required")
	}
	d, err := berth.NewStateDecoder(rd, stateKind, stateVersion)
	if err != nil {
		return nil, err
	}
	r := &restorer{d: d, env: env}
	s := r.restore()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if err := s.Check(); err != nil {
		return nil, &berth.StateError{Kind: stateKind, Field: "books", Err: fmt.Errorf("%w: %w", berth.ErrCorruptState, err)}
	}
	return s, nil
}

// restore reads the body, record by record in the order saveState writes
// them, into a new scheduler, through the helpers normal operation uses.
// It stops early at a damaged record, and its result is then discarded
// (the decoder holds the error), but it always returns a scheduler.
func (r *restorer) restore() *Scheduler {
	cfg := r.readConfig()
	af := r.readAllocationFile()
	s := r.newScheduler(cfg, af)
	r.readScalars()
	r.readNodes()
	if !r.readQueues() || !r.settleQueues() {
		return s
	}
	r.readTypeChanges()
	if !r.readApps() {
		return s
	}
	r.readUsers()
	r.readContainers()
	r.readReservations()
	r.readEarmarks()
	// The delay-state and shares are as saved; nothing above may leave
	// the walk's orders stale.
	s.ordStale = true
	return s
}

// newScheduler makes the scheduler the configuration records describe,
// without queues or nodes.
func (r *restorer) newScheduler(cfg Config, af *AllocationFile) *Scheduler {
	s := &Scheduler{sortSmall: smallSet,
		clock: r.env.Clock, cfg: cfg, alloc: af, unbounded: Unbounded(cfg.ResourceTypes...),
		queues: map[string]*fsQueue{}, pendingTypeChange: map[string]bool{},
		nodes: map[string]*node{},
		apps:  map[string]*app{}, users: map[string]*userApps{},
		resvByID: map[ContainerID]*reservation{},
	}
	if af.Placement != nil {
		s.placement = af.Placement
	} else {
		s.placement = ImplicitPlacementPolicy(cfg.UserAsDefaultQueue, cfg.AllowUndeclaredPools)
	}
	r.s = s
	return s
}

// int32 reads a priority.
func (r *restorer) int32() int32 {
	v := r.d.Varint()
	if r.d.Err() == nil && (v < math.MinInt32 || v > math.MaxInt32) {
		r.fail("%d out of int32 range", v)
		return 0
	}
	return int32(v)
}

// index reads an index into a list of n records; -1 after an error.
func (r *restorer) index(n int, what string) int {
	i := r.d.Int()
	if r.d.Err() != nil {
		return -1
	}
	if i < 0 || i >= n {
		r.fail("%s index %d out of range [0, %d)", what, i, n)
		return -1
	}
	return i
}

// app and node read an index and return the record, nil after an error.
func (r *restorer) app() *app {
	if i := r.index(len(r.apps), "application"); i >= 0 {
		return r.apps[i]
	}
	return nil
}

func (r *restorer) node() *node {
	if i := r.index(len(r.s.byID), "node"); i >= 0 {
		return r.s.byID[i]
	}
	return nil
}
