package preempt

import (
	"fmt"
	"io"
	"slices"

	"github.com/berthsched/berth"
)

// Durable state of the proportional policy. SaveState
// writes one snapshot of kind "preempt.Proportional", body version 1:
//
//	config     every ProportionalConfig field in declaration order, the
//	           per-queue switches by path (each unset, false or true)
//	selectors  whether the chain is the host's (ProportionalSetup.Selectors), and the
//	           names of its selectors in order
//	marks      the marked containers by id, each with the time it was
//	           first marked
//
// A round keeps nothing else from one call to the next: the built-in
// selectors are plain values and every round reads the scheduler afresh.

const (
	proportionalKind    = "preempt.Proportional"
	proportionalVersion = 1
	// maxStateRecords bounds a count read from either preemptor's
	// snapshot, so a corrupt count fails fast.
	maxStateRecords = 1 << 28
)

// SaveState writes the policy's configuration, its selector chain's names
// and its marks to w as one snapshot. The policy is driven by one host
// loop, so the caller must not run a round at the same time.
func (p *Proportional) SaveState(w io.Writer) error {
	e := berth.NewStateEncoder(w, proportionalKind, proportionalVersion)
	c := &p.cfg
	e.Varint(c.MonitoringInterval)
	e.Varint(c.MaxWaitBeforeKill)
	e.Float64(c.TotalPreemptionPerRound)
	e.Float64(c.MaxIgnoredOverCapacity)
	e.Float64(c.NaturalTerminationFactor)
	e.Bool(c.ObserveOnly)
	e.Bool(c.SelectBasedOnReservedContainers)
	e.Bool(c.AdditionalBalanceBasedOnReserved)
	e.Bool(c.IntraQueueEnabled)
	e.Float64(c.IntraQueueMinimumThreshold)
	e.Float64(c.IntraQueueMaxAllowableLimit)
	e.Uvarint(uint64(c.IntraQueueOrder))
	e.Bool(c.ConservativeDRF)
	e.Bool(c.IntraQueueConservativeDRF)
	e.Bool(c.BalanceAfterSatisfied)
	e.Varint(c.BalanceMaxWaitBeforeKill)
	e.Bool(c.PriorityPreemption)
	e.Varint(c.PriorityReservedContainerDelay)
	e.Bool(c.PriorityAllowMoveReservation)
	e.Bool(c.ForgetUnselected)
	paths := sortedKeys(c.Queues)
	e.Len(len(paths))
	for _, q := range paths {
		e.String(q)
		sw := c.Queues[q]
		writeSwitch(e, sw.DisablePreemption)
		writeSwitch(e, sw.DisableIntraQueuePreemption)
	}
	e.Bool(p.custom)
	e.Len(len(p.selectors))
	for _, s := range p.selectors {
		e.String(s.Name())
	}
	ids := sortedKeys(p.marked)
	e.Len(len(ids))
	for _, id := range ids {
		e.Uvarint(uint64(id))
		e.Varint(p.marked[id])
	}
	return e.Finish()
}

func writeSwitch(e *berth.StateEncoder, b *bool) {
	switch {
	case b == nil:
		e.Uvarint(0)
	case !*b:
		e.Uvarint(1)
	default:
		e.Uvarint(2)
	}
}

func readSwitch(d *berth.StateDecoder) *bool {
	switch v := d.Uvarint(); v {
	case 0:
		return nil
	case 1, 2:
		b := v == 2
		return &b
	default:
		d.Fail(fmt.Errorf("%w: switch value %d", berth.ErrCorruptState, v))
		return nil
	}
}

// RestoreProportional reads a snapshot written by
// [Proportional.SaveState] and returns a policy with the saved
// configuration and marks over setup's scheduler: its next rounds decide
// as the saved policy's would have on the same scheduler state.
// setup.Config is not read (the snapshot's is restored); the host passes
// its collaborators again (State, Actor, a Logger), and a snapshot of a
// policy with the host's own selector chain needs that chain again in
// setup.Selectors, with the same names in the same order, and is refused
// otherwise (berth.ErrInvalidArgument). A damaged snapshot is an error
// wrapping berth.ErrCorruptState and returns no policy.
func RestoreProportional(r io.Reader, setup ProportionalSetup) (*Proportional, error) {
	if setup.State == nil || setup.Actor == nil {
		return newProportional(setup) // the typed error naming the field
	}
	d, err := berth.NewStateDecoder(r, proportionalKind, proportionalVersion)
	if err != nil {
		return nil, err
	}
	c := readProportionalConfig(d)
	custom, names := readSelectorNames(d)
	marked := readMarks(d)
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, &berth.StateError{Kind: proportionalKind, Offset: -1, Field: "config",
			Err: fmt.Errorf("%w: %w", berth.ErrCorruptState, err)}
	}
	setup.Config = c
	p, err := newProportional(setup)
	if err != nil {
		return nil, err
	}
	if err := p.checkSelectors(custom, names); err != nil {
		return nil, err
	}
	p.marked = marked
	return p, nil
}

// readProportionalConfig decodes the config record: every field in
// declaration order, then the per-queue switches.
func readProportionalConfig(d *berth.StateDecoder) ProportionalConfig {
	var c ProportionalConfig
	d.Field("config")
	c.MonitoringInterval = d.Varint()
	c.MaxWaitBeforeKill = d.Varint()
	c.TotalPreemptionPerRound = d.Float64()
	c.MaxIgnoredOverCapacity = d.Float64()
	c.NaturalTerminationFactor = d.Float64()
	c.ObserveOnly = d.Bool()
	c.SelectBasedOnReservedContainers = d.Bool()
	c.AdditionalBalanceBasedOnReserved = d.Bool()
	c.IntraQueueEnabled = d.Bool()
	c.IntraQueueMinimumThreshold = d.Float64()
	c.IntraQueueMaxAllowableLimit = d.Float64()
	c.IntraQueueOrder = IntraQueueOrder(min(d.Uvarint(), 255))
	c.ConservativeDRF = d.Bool()
	c.IntraQueueConservativeDRF = d.Bool()
	c.BalanceAfterSatisfied = d.Bool()
	c.BalanceMaxWaitBeforeKill = d.Varint()
	c.PriorityPreemption = d.Bool()
	c.PriorityReservedContainerDelay = d.Varint()
	c.PriorityAllowMoveReservation = d.Bool()
	c.ForgetUnselected = d.Bool()
	c.Queues = readQueueSwitches(d)
	return c
}

// readQueueSwitches decodes the per-queue switches, by path in order.
func readQueueSwitches(d *berth.StateDecoder) map[string]QueuePreemption {
	d.Field("config.queues")
	nq := d.Len(maxStateRecords)
	if nq == 0 {
		return nil
	}
	qs := make(map[string]QueuePreemption, min(nq, 1024))
	prev := ""
	for i := 0; i < nq && d.Err() == nil; i++ {
		path := d.String()
		sw := QueuePreemption{DisablePreemption: readSwitch(d), DisableIntraQueuePreemption: readSwitch(d)}
		if d.Err() == nil && i > 0 && path <= prev {
			d.Fail(fmt.Errorf("%w: queue %q out of order", berth.ErrCorruptState, path))
		}
		qs[path] = sw
		prev = path
	}
	return qs
}

// readSelectorNames decodes the selectors record: whether the chain was
// the host's, and its selectors' names in order.
func readSelectorNames(d *berth.StateDecoder) (custom bool, names []string) {
	d.Field("selectors")
	custom = d.Bool()
	ns := d.Len(maxStateRecords)
	names = make([]string, 0, min(ns, 64))
	for i := 0; i < ns && d.Err() == nil; i++ {
		names = append(names, d.String())
	}
	return custom, names
}

// readMarks decodes the marks record: container ids in increasing order,
// each with the time it was first marked.
func readMarks(d *berth.StateDecoder) map[ContainerID]berth.Time {
	d.Field("marks")
	nm := d.Len(maxStateRecords)
	marked := make(map[ContainerID]berth.Time, min(nm, 1<<16))
	var last ContainerID
	for i := 0; i < nm && d.Err() == nil; i++ {
		id := ContainerID(d.Uvarint())
		t := d.Varint()
		if d.Err() == nil && i > 0 && id <= last {
			d.Fail(fmt.Errorf("%w: container %d out of order", berth.ErrCorruptState, id))
		}
		marked[id], last = t, id
	}
	return marked
}

// checkSelectors refuses a restored policy whose selector chain is not
// the snapshot's: the host's where the saved one was built in, or the
// other way, or other names.
func (p *Proportional) checkSelectors(custom bool, names []string) error {
	got := make([]string, len(p.selectors))
	for i, sel := range p.selectors {
		got[i] = sel.Name()
	}
	switch {
	case custom != p.custom:
		return berth.InvalidField("selectors", got,
			fmt.Sprintf("the snapshot's policy had %s selector chain", map[bool]string{true: "the host's", false: "the built-in"}[custom]))
	case !slices.Equal(got, names):
		return berth.InvalidField("selectors", got, fmt.Sprintf("the snapshot's chain is %v", names))
	}
	return nil
}
