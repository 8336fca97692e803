package follower

import (
	"errors"
	"fmt"
	"io"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/queue"
)

// Durable state. A Follower keeps almost nothing between runs: each run
// compares the plan with the scheduler's queues (see the package
// documentation). What it holds is its configuration, of which only the
// flavor is a value a snapshot can record (the scheduler, the plan source
// and the logger are the host's Go values), and the results of the
// publications the host has not taken yet ([Follower.Publish]). SaveState
// writes one snapshot of kind "follower.Follower", body version 2: the
// flavor's name (String: "capacity" or "fair", or a host flavor's own),
// then the untaken results, each with every field of [Result], and the
// text of their errors. Version 1 (the flavor alone) is still read. The
// reservation queues and entitlements the follower published live in the
// scheduler and are saved with it.

const (
	// StateKind is the kind of the snapshot [Follower.SaveState] writes.
	StateKind    = "follower.Follower"
	stateVersion = 2
	// maxStateRecords bounds every count read from a snapshot.
	maxStateRecords = 1 << 24
)

// SaveState writes the follower as one snapshot of kind
// "follower.Follower": its flavor's name and the results of the
// publications not yet taken (see above), so that a restored follower
// hands them to the host as the saved one would. It takes the follower's
// lock, so it waits for a run in progress.
func (f *Follower) SaveState(w io.Writer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	e := berth.NewStateEncoder(w, StateKind, stateVersion)
	e.String(f.cfg.Flavor.String())
	e.Len(len(f.published))
	for i := range f.published {
		writeResult(e, &f.published[i])
	}
	e.Len(len(f.pubErrs))
	for _, err := range f.pubErrs {
		e.String(err.Error())
	}
	return e.Finish()
}

// RestoreFollower reads a snapshot written by [Follower.SaveState] and
// returns a follower for cfg, which supplies the scheduler, the plan
// source and the logger as for [New]. A nil cfg.Flavor is the built-in
// flavor the snapshot names ([CapacityFlavor] or [FairFlavor]); a set one
// must carry the saved name. The untaken publication results come back as
// saved; their errors come back as their text (errors.New), since the
// scheduler's error values do not survive a snapshot. Errors are
// *berth.StateError values wrapping berth.ErrCorruptState (truncated or
// corrupted), berth.ErrUnsupportedVersion, or berth.ErrInvalidArgument
// (another kind of snapshot, a missing scheduler, a host flavor not
// supplied or named differently).
func RestoreFollower(r io.Reader, cfg Config) (*Follower, error) {
	d, err := berth.NewStateDecoder(r, StateKind, stateVersion)
	if err != nil {
		return nil, err
	}
	d.Field("flavor")
	name := d.String()
	var published []Result
	var pubErrs []error
	if d.Version() >= 2 {
		d.Field("published")
		n := d.Len(maxStateRecords)
		for i := 0; i < n && d.Err() == nil; i++ {
			d.Field(fmt.Sprintf("published[%d]", i))
			published = append(published, readResult(d))
		}
		d.Field("published errors")
		n = d.Len(maxStateRecords)
		for i := 0; i < n && d.Err() == nil; i++ {
			pubErrs = append(pubErrs, errors.New(d.String()))
		}
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	fail := func(err error) (*Follower, error) {
		return nil, &berth.StateError{Kind: StateKind, Field: "flavor", Err: err}
	}
	switch {
	case cfg.Flavor != nil && cfg.Flavor.String() != name:
		return fail(berth.InvalidField("follower.flavor", cfg.Flavor.String(), fmt.Sprintf("the follower was saved with flavor %q", name)))
	case cfg.Flavor != nil:
	case builtinFlavor(name) != nil:
		cfg.Flavor = builtinFlavor(name)
	default:
		return fail(berth.InvalidField("follower.flavor", name, "a host's flavor: supply it in the configuration"))
	}
	f, err := New(cfg)
	if err != nil {
		return fail(err)
	}
	f.published, f.pubErrs = published, pubErrs
	return f, nil
}

// ---- results ----

func writeResult(e *berth.StateEncoder, r *Result) {
	e.String(r.PlanQueue)
	e.Varint(r.Now)
	e.Resource(r.PlanResources)
	e.Resource(r.Reserved)
	writeIDs(e, r.Active)
	e.Bool(r.Replanned)
	e.Bool(r.Resized)
	writeStrings(e, r.Created)
	writeStrings(e, r.Expired)
	e.Len(len(r.Moved))
	for _, m := range r.Moved {
		e.String(m.App)
		e.String(m.From)
		e.String(m.To)
	}
	writeStrings(e, r.Killed)
	writeStrings(e, r.Removed)
	e.Len(len(r.Ended))
	for i := range r.Ended {
		c := &r.Ended[i]
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
		e.Uvarint(uint64(c.Status))
	}
	e.Len(len(r.Assignments))
	for _, a := range r.Assignments {
		e.String(a.Queue)
		e.Float32(a.Capacity)
		e.Float32(a.MaxCapacity)
	}
	writeIDs(e, r.Archived)
}

func readResult(d *berth.StateDecoder) Result {
	var r Result
	r.PlanQueue = d.String()
	r.Now = d.Varint()
	r.PlanResources = d.Resource()
	r.Reserved = d.Resource()
	r.Active = readIDs(d)
	r.Replanned = d.Bool()
	r.Resized = d.Bool()
	r.Created = readStrings(d)
	r.Expired = readStrings(d)
	n := d.Len(maxStateRecords)
	for i := 0; i < n && d.Err() == nil; i++ {
		r.Moved = append(r.Moved, Move{App: d.String(), From: d.String(), To: d.String()})
	}
	r.Killed = readStrings(d)
	r.Removed = readStrings(d)
	n = d.Len(maxStateRecords)
	for i := 0; i < n && d.Err() == nil; i++ {
		var c Ended
		c.ID = queue.ContainerID(d.Uvarint())
		c.App, c.Node, c.Queue, c.User = d.String(), d.String(), d.String(), d.String()
		c.Resource = d.Resource()
		c.Priority = int32(d.Varint())
		c.Locality = queue.Locality(d.Uvarint())
		c.AM = d.Bool()
		c.Time = d.Varint()
		c.Status = queue.ExitStatus(d.Uvarint())
		r.Ended = append(r.Ended, c)
	}
	n = d.Len(maxStateRecords)
	for i := 0; i < n && d.Err() == nil; i++ {
		r.Assignments = append(r.Assignments, Assignment{Queue: d.String(),
			Entitlement: Entitlement{Capacity: d.Float32(), MaxCapacity: d.Float32()}})
	}
	r.Archived = readIDs(d)
	return r
}

func writeStrings(e *berth.StateEncoder, ss []string) {
	e.Len(len(ss))
	for _, s := range ss {
		e.String(s)
	}
}

func readStrings(d *berth.StateDecoder) []string {
	var out []string
	n := d.Len(maxStateRecords)
	for i := 0; i < n && d.Err() == nil; i++ {
		out = append(out, d.String())
	}
	return out
}

func writeIDs(e *berth.StateEncoder, ids []plan.ReservationID) {
	e.Len(len(ids))
	for _, id := range ids {
		e.Varint(id.ClusterTimestamp)
		e.Varint(id.Sequence)
	}
}

func readIDs(d *berth.StateDecoder) []plan.ReservationID {
	var out []plan.ReservationID
	n := d.Len(maxStateRecords)
	for i := 0; i < n && d.Err() == nil; i++ {
		out = append(out, plan.ReservationID{ClusterTimestamp: d.Varint(), Sequence: d.Varint()})
	}
	return out
}
