package follower

import (
	"fmt"
	"io"

	"github.com/berthsched/berth"
)

// Durable state. A Follower keeps no state between runs:
// each run compares the plan with the scheduler's queues (see the package
// documentation). What it holds is its configuration, and of that only
// the flavor is a value a snapshot can record; the scheduler, the plan
// source and the logger are the host's Go values. SaveState therefore
// writes one snapshot of kind "follower.Follower", body version 1, whose
// body is the flavor's name (String: "capacity" or "fair", or a host
// flavor's own), and [RestoreFollower] takes the rest from the host. The
// reservation queues and entitlements the follower published live in the
// scheduler and are saved with it.

const (
	// StateKind is the kind of the snapshot [Follower.SaveState] writes.
	StateKind    = "follower.Follower"
	stateVersion = 1
)

// SaveState writes the follower as one snapshot of kind
// "follower.Follower": its flavor's name (see above). It takes the
// follower's lock, so it waits for a run in progress.
func (f *Follower) SaveState(w io.Writer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	e := berth.NewStateEncoder(w, StateKind, stateVersion)
	e.String(f.cfg.Flavor.String())
	return e.Finish()
}

// RestoreFollower reads a snapshot written by [Follower.SaveState] and
// returns a follower for cfg, which supplies the scheduler, the plan
// source and the logger as for [New]. A nil cfg.Flavor is the built-in
// flavor the snapshot names ([CapacityFlavor] or [FairFlavor]); a set one
// must carry the saved name. Errors are *berth.StateError values wrapping
// berth.ErrCorruptState (truncated or corrupted),
// berth.ErrUnsupportedVersion, or berth.ErrInvalidArgument (another kind
// of snapshot, a missing scheduler, a host flavor not supplied or named
// differently).
func RestoreFollower(r io.Reader, cfg Config) (*Follower, error) {
	d, err := berth.NewStateDecoder(r, StateKind, stateVersion)
	if err != nil {
		return nil, err
	}
	d.Field("flavor")
	name := d.String()
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
	return f, nil
}
