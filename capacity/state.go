package capacity

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// Durable state. SaveState writes one snapshot of kind
// "capacity.Scheduler", body version 3, in the berth framing; the body is:
//
//	YARN 3.x     optional: the state of YARN 3.x's features, one block
//	             (state_features.go) read before the rest
//	config       the global settings, the calculator (built-in tag, or
//	             "host's"), the placement, the groups flag, the
//	             reservation-system settings, then the configured queue
//	             tree depth first (name, capacities, state, ACLs, kind
//	             flags, settings with ordering policies as built-in tags or
//	             host names, the reservation settings and the label
//	             settings, children), the cluster's node labels
//	partitions   the labels in the scheduler's partition order (the
//	             indexes below refer to it)
//	reservation  every reservation queue, plans in tree order, each with
//	  queues     its plan's path, name, entitlement and own settings
//	nodes        by id: id, rack, capability, label
//	apps         by submission: id, sequence, queue path, user, groups,
//	             priority, active, start, reservation id, AM resource,
//	             AM-next flag, headroom, label expressions and AM
//	             partition, and the request table (every key with its ANY,
//	             rack and host entries, its delay, re-reservation,
//	             reservation and non-partitioned counters and its partition)
//	containers   by id: app and node (indexes into the lists above),
//	             resource, priority, locality, AM, time, preemption mark,
//	             borrowed flag
//	reservations by id: app, node, request priority, resource, locality,
//	             time
//	counters     the next container id and submission sequence
//	leaf caches  per leaf in tree order: the limits handed down at the last
//	             update and walk, and the incrementally kept usage ratios
//	             (per partition) and user weights (float sums whose
//	             rounding depends on history, so they are not recomputed)
//
// Version 2 is version 3 without the node-label fields (label settings,
// node labels, partitions, nodes' labels, applications' expressions and
// partitions, keys' partitions and non-partitioned counters, borrowed
// flags, per-partition usage ratios); version 1 is version 2 without the
// reservation-system and reservation settings. RestoreScheduler reads all
// three (what an older snapshot lacks restores as unset: YARN's defaults,
// every node and ask on the default partition). The YARN 3.x block may
// open a body of any version (it came before version 3, at the start of
// version 2's body) and holds, for each queue settings record and each
// auto-created queue, what the body's version holds; a body without it
// restores with YARN's defaults for it. A weight capacity holds its
// weight in the percentage's place.
//
// Everything else (queue, user and node usage, active users, the child
// and application orders, the id index, the queue tree's accounting) is
// rebuilt on restore through the code paths normal operation uses, and the
// restored scheduler is then checked (checkRestored). The application
// orders are rebuilt from the applications' current values, as Reconfigure
// rebuilds them: a host ordering policy whose Compare is not a strict weak
// order (or whose keys read anything but the AppView) may therefore visit
// applications in another order after a restore; the built-ins and any
// consistent policy come back exactly.
//
// The files follow the body: this one holds the entry points, whose
// SaveState and restore name the records in body order; state_config.go
// the configuration records (config, partitions, reservation queues),
// state_cluster.go the cluster's (nodes to leaf caches) and
// state_features.go the YARN 3.x block. Each record's writer sits beside
// its reader, so a change to the layout is one place.

const (
	stateKind    = "capacity.Scheduler"
	stateVersion = 3
	// versionReservations added the reservation-system and reservation
	// settings, versionLabels the node labels and partitions.
	versionReservations = 2
	versionLabels       = 3
	// maxStateCount bounds any record count read from a snapshot.
	maxStateCount = 1 << 28
)

// Policy tags of the body.
const (
	tagNone    = 0 // no policy value set: the enum setting applies
	tagBuiltin = 1 // a built-in, with its parameters
	tagHost    = 2 // a host's policy, by name
)

// RestoreEnv is what a snapshot cannot hold and the host supplies to
// [RestoreScheduler]: the clock, the groups provider and the host's own
// policies, looked up by the name they reported when saved. Built-in
// calculators and ordering policies need nothing.
type RestoreEnv struct {
	// Clock is required, as for [New].
	Clock berth.Clock
	// Groups becomes Config.Groups; required when the saved configuration
	// had one, ignored when it had none (the restored scheduler must
	// resolve groups as the saved one did).
	Groups queue.Groups
	// Calculator is required when the saved configuration used a
	// calculator other than berth.MemoryCalculator or
	// berth.DominantCalculator, and ignored otherwise.
	Calculator berth.Calculator
	// AppOrderings and ChildOrderings resolve host ordering policies
	// (QueueSettings.AppOrderingPolicy, ChildOrderingPolicy) by the Name
	// they reported when saved; the registries [XMLOptions] uses serve.
	AppOrderings   *AppOrderings
	ChildOrderings *ChildOrderings
	// NodeSortings resolves host multi-node sorting policies by Name.
	NodeSortings *NodeSortings
}

// SaveState writes the scheduler's state to w as one snapshot (see the
// package documentation, "Durable state"). It holds the scheduler's lock
// for the whole write, so the snapshot is a consistent cut, and streams:
// besides the output buffer it allocates only indexes of the nodes and
// applications.
func (s *Scheduler) SaveState(w io.Writer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := berth.NewStateEncoder(w, stateKind, stateVersion)
	nodeIDs := sortedKeys(s.nodes)
	apps := s.appsBySeq()
	// The indexes by which containers and reservations name their node
	// and application, filled as those are written (made here, they stay
	// off the heap).
	nodeIx := make(map[*node]int, len(nodeIDs))
	appIx := make(map[*app]int, len(apps))
	s.writeFeatures(e, nodeIDs, apps)
	s.writeConfig(e)
	s.writePartitions(e)
	s.writeReservationQueues(e)
	s.writeNodes(e, nodeIDs, nodeIx)
	writeApps(e, apps, appIx)
	s.writeContainers(e, appIx, nodeIx)
	s.writeReservations(e, appIx, nodeIx)
	s.writeCounters(e)
	s.writeLeafCaches(e)
	return e.Finish()
}

// appsBySeq returns the applications in submission order.
func (s *Scheduler) appsBySeq() []*app {
	apps := make([]*app, 0, len(s.apps))
	for _, a := range s.apps {
		apps = append(apps, a)
	}
	slices.SortFunc(apps, bySeq)
	return apps
}

func eachQueue(q *qnode, f func(*qnode)) {
	f(q)
	for _, c := range q.children {
		eachQueue(c, f)
	}
}

// restorer carries a restore's decoder, the host's environment and, once
// the configuration records are read, the scheduler being rebuilt with
// the records the later ones refer to. A value the environment lacks (a
// policy, calculator, rule or groups provider the snapshot names) is
// reported through the decoder's Defer, so a damaged snapshot is still
// reported as corrupt.
type restorer struct {
	d    *berth.StateDecoder
	env  RestoreEnv
	v    uint64   // the body version
	feat features // the YARN 3.x state, read first

	s      *Scheduler // built from the configuration records
	nodes  []*node    // in the body's order (by id)
	apps   []*app     // in the body's order (by submission)
	active []bool     // per application: active when saved
	// the largest container and reservation ids read, which the
	// counters may not fall below
	lastContainer, lastReservation ContainerID
}

func (r *restorer) fail(format string, args ...any) {
	r.d.Fail(fmt.Errorf("%w: "+format, append([]any{berth.ErrCorruptState}, args...)...))
}

// RestoreScheduler reads a snapshot written by [Scheduler.SaveState] and
// returns a new scheduler in the same state, which decides exactly as the
// saved one would have. What a snapshot cannot hold comes from env (see
// [RestoreEnv]). Nothing is returned unless the whole snapshot verified:
// a damaged snapshot is an error wrapping berth.ErrCorruptState, one of
// another kind or a newer version berth.ErrInvalidArgument or
// berth.ErrUnsupportedVersion, and a policy, calculator or groups provider
// env lacks berth.ErrInvalidArgument naming it.
func RestoreScheduler(rd io.Reader, env RestoreEnv) (*Scheduler, error) {
	if berth.CheckNotNil("clock", env.Clock) != nil {
		return nil, berth.InvalidField("clock", nil, "a clock is required")
	}
	d, err := berth.NewStateDecoder(rd, stateKind, stateVersion)
	if err != nil {
		return nil, err
	}
	r := &restorer{d: d, env: env, v: d.Version()}
	s := r.restore()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if s == nil {
		// only reachable through an error already reported
		return nil, fmt.Errorf("%w: scheduler not restored", berth.ErrCorruptState)
	}
	if err := s.checkRestored(); err != nil {
		return nil, &berth.StateError{Kind: stateKind, Offset: -1, Field: "consistency",
			Err: fmt.Errorf("%w: %w", berth.ErrCorruptState, err)}
	}
	return s, nil
}

// restore reads the body, record by record in the order SaveState writes
// them, into a new scheduler: the configuration records build it through
// New and the calls a host makes, the cluster's records are then placed
// in it. It returns nil after an error, which the decoder holds.
func (r *restorer) restore() *Scheduler {
	maxApps := r.readFeatures()
	cfg := r.readConfig(maxApps)
	partitions := r.readPartitions()
	resvQueues := r.readReservationQueues()
	r.checkSettingsUsed()
	switch {
	case r.d.Err() != nil:
		return nil
	case r.d.Deferred() != nil:
		// The configuration cannot be built without the host's policies:
		// read on only to verify the checksum.
		r.skipRest()
		return nil
	}
	if !r.build(cfg, partitions, resvQueues) ||
		!r.readNodes() ||
		!r.readApps() ||
		!r.readContainers() ||
		!r.readReservations() ||
		!r.readCounters() {
		return nil
	}
	r.startApps()
	if !r.readLeafCaches() || !r.restoreRounds(r.s, r.nodes, len(r.apps)) {
		return nil
	}
	return r.s
}

// skipRest reads the rest of a body whose configuration could not be
// built, so that Finish can still tell damage from a missing host policy.
// The layout is fixed, so the records are read, through the decoders
// restore uses, and dropped.
func (r *restorer) skipRest() {
	d := r.d
	// the partitions were read with the configuration
	r.skipRecords(func() { r.readNode() })
	r.skipRecords(func() {
		r.readAppFields()
		queue.ReadRequests(d, readKeyState)
	})
	r.skipRecords(func() { r.readContainer(-1, -1) })
	r.skipRecords(func() { r.readReservation(-1, -1) })
	d.Uvarint() // the counters
	d.Uvarint()
	r.skipRecords(func() { r.readLeafCache() })
}

// skipRecords reads a count of records, and the records with read.
func (r *restorer) skipRecords(read func()) {
	n := r.d.Len(maxStateCount)
	for i := 0; i < n && r.d.Err() == nil; i++ {
		read()
	}
}

// index reads an index into a list of n records; any index when n is
// negative.
func (r *restorer) index(n int, what string) int {
	v := r.d.Uvarint()
	if n < 0 {
		return int(min(v, math.MaxInt))
	}
	if r.d.Err() == nil && v >= uint64(n) {
		r.fail("%s index %d of %d", what, v, n)
	}
	return int(min(v, uint64(max(n-1, 0))))
}

// small reads an enumeration's value, at most max.
func (r *restorer) small(max uint64, what string) uint64 {
	v := r.d.Uvarint()
	if v > max {
		r.fail("%s %d", what, v)
		return 0
	}
	return v
}

// int32 reads a varint that must fit an int32.
func (r *restorer) int32(what string) int32 {
	v := r.d.Varint()
	if v < math.MinInt32 || v > math.MaxInt32 {
		r.fail("%s %d out of range", what, v)
		return 0
	}
	return int32(v)
}

// optionalLen reads the presence flag and length of a list or table that
// may be nil; absent is the error when a nil one claims items.
func (r *restorer) optionalLen(absent string) (present bool, n int) {
	present = r.d.Bool()
	n = r.d.Len(maxStateCount)
	if !present && n > 0 {
		r.fail("%s", absent)
		return false, 0
	}
	return present, n
}

// writeOptionalStrings writes a list that may be nil: whether it is
// non-nil, then its items. readOptionalStrings reads it back.
func writeOptionalStrings(e *berth.StateEncoder, list []string) {
	e.Bool(list != nil)
	e.Len(len(list))
	for _, x := range list {
		e.String(x)
	}
}

func (r *restorer) readOptionalStrings(absent string) []string {
	present, n := r.optionalLen(absent)
	if !present {
		return nil
	}
	list := make([]string, 0, min(n, 64))
	for i := 0; i < n && r.d.Err() == nil; i++ {
		list = append(list, r.d.String())
	}
	return list
}

// checkRestored verifies what restore cannot guarantee by construction
// from a well-formed but inconsistent body (the aggregates are built
// through the normal paths, so they agree with the records): the queue
// tree accepted every charge, no node is over its capability, and each
// request key's reservation count matches its reservations. It is linear,
// unlike [Scheduler.Check].
func (s *Scheduler) checkRestored() error {
	s.flushAccounts() // so that a charge the tree refuses shows in s.bug
	if s.bug != nil {
		return s.bug
	}
	for _, n := range s.nodes {
		if !s.calculator.FitsIn(n.allocated, n.total) {
			return fmt.Errorf("node %s over its capability: %v > %v", n.id, n.allocated, n.total)
		}
	}
	for _, q := range s.byPath {
		if err := checkLeafSums(q); err != nil {
			return err
		}
	}
	held := make(map[*skey]int, len(s.resvByID))
	for _, r := range s.resvByID {
		held[r.key]++
	}
	for _, a := range s.apps {
		for _, k := range a.asks.Keys() {
			if k.Payload.nRes != held[k] {
				return fmt.Errorf("application %s priority %d counts %d reservations, holds %d", a.id, k.Priority(), k.Payload.nRes, held[k])
			}
		}
	}
	return nil
}

// checkLeafSums compares a leaf's restored running sums with the sums of
// its users: equal up to the rounding a history of increments can leave.
func checkLeafSums(q *qnode) error {
	lf := q.leaf
	if lf == nil {
		return nil
	}
	var all, active float64
	var ratio float32
	for _, u := range lf.users {
		all += u.weight
		if u.activeApps > 0 {
			active += u.weight
		}
		ratio += u.ratio
	}
	// Check's tolerance for the weights; the ratio is a float32 sum.
	near := func(a, b, tol float64) bool { return math.Abs(a-b) <= tol }
	switch {
	case !near(lf.allWeights, all, 1e-9) || !near(lf.activeWeights, active, 1e-9):
		return fmt.Errorf("leaf %s user weights %v/%v, users say %v/%v", q.path, lf.allWeights, lf.activeWeights, all, active)
	case !near(float64(lf.usageRatio), float64(ratio), 1e-3*max(1, float64(ratio))):
		return fmt.Errorf("leaf %s usage ratio %v, users say %v", q.path, lf.usageRatio, ratio)
	}
	return nil
}
