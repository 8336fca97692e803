package preempt

import (
	"fmt"
	"io"
	"math"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
)

// Durable state of the fair preemptor. SaveState writes one
// snapshot of kind "preempt.FairPreemptor", body version 1, in the berth
// framing. The body, in order:
//
//	config   FairConfig, every field
//	seq      the last round's sequence number
//	marks    the containers marked and not yet killed or released, in the
//	         preemptor's own order (the order later rounds walk them in):
//	         the container as last seen (id, application, node, queue,
//	         user, size, priority, locality, AM, time), the starved
//	         application it serves and when it was marked
//	owed     by node, then application, both by name: what was preempted
//	         there for the application and not yet handed over, and from
//	         when allocations pay it back
//	backoff  by application name: the end of its starvation back-off
//
// The index of marks by container id is rebuilt on demand as in normal
// operation; the round's scratch buffers and the selector's per-round
// cache hold nothing a later round decides with. The scheduler and the
// victim selector are Go values the host supplies again.

const (
	fairStateKind    = "preempt.FairPreemptor"
	fairStateVersion = 1
)

// SaveState writes the preemptor's state to w as one snapshot. Like
// Round, it must not run concurrently with the preemptor's other methods.
// Save the scheduler in the same quiet moment (between rounds), so that
// the two snapshots are one cut.
func (p *FairPreemptor) SaveState(w io.Writer) error {
	e := berth.NewStateEncoder(w, fairStateKind, fairStateVersion)
	writeFairConfig(e, p.cfg)
	e.Uvarint(p.seq)
	e.Len(len(p.marks))
	for i := range p.marks {
		m := &p.marks[i]
		writeFairContainer(e, &m.c)
		e.String(m.forApp)
		e.Varint(m.markedAt)
	}
	nodes := sortedKeys(p.owed)
	e.Len(len(nodes))
	for _, n := range nodes {
		apps := sortedKeys(p.owed[n])
		e.String(n)
		e.Len(len(apps))
		for _, a := range apps {
			o := p.owed[n][a]
			e.String(a)
			e.Resource(o.res)
			e.Varint(o.since)
		}
	}
	apps := sortedKeys(p.backoff)
	e.Len(len(apps))
	for _, a := range apps {
		e.String(a)
		e.Varint(p.backoff[a])
	}
	return e.Finish()
}

func writeFairConfig(e *berth.StateEncoder, c FairConfig) {
	e.Bool(c.Enabled)
	e.Float64(c.UtilizationThreshold)
	e.Varint(c.WaitTimeBeforeKill)
	e.Varint(c.WaitBeforeNextStarvationCheck)
	e.Bool(c.ContinuousScheduling)
	e.Varint(c.ContinuousSchedulingSleep)
	e.Varint(c.NMHeartbeatInterval)
	e.Bool(c.KillUnneeded)
}

func writeFairContainer(e *berth.StateEncoder, c *fair.Container) {
	e.Uvarint(uint64(c.ID))
	e.String(c.App)
	e.String(c.Node)
	e.String(c.Queue)
	e.String(c.User)
	e.Resource(c.Resource)
	e.Varint(int64(c.Priority))
	e.Uvarint(uint64(c.Locality))
	e.Bool(c.AM)
	e.Varint(c.Time)
}

// RestoreFairPreemptor reads a snapshot written by
// [FairPreemptor.SaveState] and returns a preemptor over setup's
// scheduler (the restored one, or the host's wrapper of it) that decides
// exactly as the saved one would have. setup.Config is not read (the
// snapshot's is restored); setup.Selector is the victim selector, as for
// [NewFairPreemptor]; an observer is set again with SetObserver. Nothing
// is returned unless the whole snapshot verified: damage is an error
// wrapping berth.ErrCorruptState, another kind or a newer version
// berth.ErrInvalidArgument or berth.ErrUnsupportedVersion.
func RestoreFairPreemptor(r io.Reader, setup FairPreemptorSetup) (*FairPreemptor, error) {
	setup.Config = FairConfig{} // valid; the snapshot's replaces it
	p, err := newFairPreemptor(setup)
	if err != nil {
		return nil, err // a missing side, named
	}
	d, err := berth.NewStateDecoder(r, fairStateKind, fairStateVersion)
	if err != nil {
		return nil, err
	}
	d.Field("config")
	p.cfg = readFairConfig(d)
	if d.Err() == nil {
		if err := p.cfg.Validate(); err != nil {
			d.Fail(fmt.Errorf("config: %w", err))
		}
	}
	d.Field("seq")
	p.seq = d.Uvarint()
	d.Field("marks")
	n := d.Len(maxStateRecords)
	seen := map[fair.ContainerID]bool{}
	for i := 0; i < n && d.Err() == nil; i++ {
		var m fairPending
		m.c = readFairContainer(d)
		m.forApp = d.String()
		m.markedAt = d.Varint()
		if d.Err() != nil {
			break
		}
		if seen[m.c.ID] {
			d.Fail(fmt.Errorf("container %d marked twice", m.c.ID))
			break
		}
		seen[m.c.ID] = true
		p.marks = append(p.marks, m)
	}
	d.Field("owed")
	n = d.Len(maxStateRecords)
	for i := 0; i < n && d.Err() == nil; i++ {
		node := d.String()
		k := d.Len(maxStateRecords)
		if d.Err() == nil && (k == 0 || p.owed[node] != nil) {
			d.Fail(fmt.Errorf("node %q: empty or repeated", node))
		}
		m := map[string]*fairOwed{}
		for j := 0; j < k && d.Err() == nil; j++ {
			app := d.String()
			o := &fairOwed{res: d.Resource(), since: d.Varint()}
			if d.Err() == nil && (m[app] != nil || o.res.AnyNegative()) {
				d.Fail(fmt.Errorf("node %q, application %q: repeated or negative", node, app))
			}
			m[app] = o
		}
		p.owed[node] = m
	}
	d.Field("backoff")
	n = d.Len(maxStateRecords)
	for i := 0; i < n && d.Err() == nil; i++ {
		app := d.String()
		t := d.Varint()
		if _, ok := p.backoff[app]; ok && d.Err() == nil {
			d.Fail(fmt.Errorf("application %q repeated", app))
		}
		p.backoff[app] = t
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	return p, nil
}

func readFairConfig(d *berth.StateDecoder) FairConfig {
	var c FairConfig
	c.Enabled = d.Bool()
	c.UtilizationThreshold = d.Float64()
	c.WaitTimeBeforeKill = d.Varint()
	c.WaitBeforeNextStarvationCheck = d.Varint()
	c.ContinuousScheduling = d.Bool()
	c.ContinuousSchedulingSleep = d.Varint()
	c.NMHeartbeatInterval = d.Varint()
	c.KillUnneeded = d.Bool()
	return c
}

func readFairContainer(d *berth.StateDecoder) fair.Container {
	var c fair.Container
	c.ID = fair.ContainerID(d.Uvarint())
	c.App = d.String()
	c.Node = d.String()
	c.Queue = d.String()
	c.User = d.String()
	c.Resource = d.Resource()
	prio := d.Varint()
	c.Locality = fair.Locality(d.Uvarint())
	c.AM = d.Bool()
	c.Time = d.Varint()
	if d.Err() == nil && (prio < math.MinInt32 || prio > math.MaxInt32 || c.Locality > fair.OffSwitch || c.Resource.AnyNegative()) {
		d.Fail(fmt.Errorf("container %d: priority %d, locality %d or size %v out of range", c.ID, prio, c.Locality, c.Resource))
	}
	c.Priority = int32(prio)
	return c
}
