package durable

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/berthsched/berth"
)

// SnapshotKind is the kind of the header snapshot a [Cluster] writes
// first in its snapshot stream.
const SnapshotKind = "durable.Cluster"

// snapshotVersion is the header's body version.
const snapshotVersion = 1

// The snapshot stream of a Cluster is a header, itself a Berth snapshot
// of kind "durable.Cluster" (version 1):
//
//	scheduler  uvarint  the SchedulerKind
//	plans      uvarint  the number of plans (checked against the Config)
//	preemption bool     whether the preemption policy is on
//	seq        uvarint  commands applied since genesis
//	now        varint   the clock
//	mode       uvarint  0: the parts' snapshots follow; 1: history follows
//	history    bytes    (mode 1) every command since genesis, each a
//	                    uvarint length and its encoding
//
// In mode 0 the header is followed by the parts' own snapshots one after
// another (berth.NewStateDecoder reads each and nothing past it): the
// reservation system (when there are plans), the scheduler, the follower
// (when there are plans) and the preemption policy (when it is on).
const (
	modeParts   = 0
	modeHistory = 1
)

// partsSnapshot reports whether every part can write its own snapshot.
func (c *Cluster) partsSnapshot() bool { return false }

// WriteSnapshot writes the Cluster's state to w as one stream (see the
// format above). It holds the Cluster's lock while writing, so the
// snapshot is a consistent cut between two commands.
func (c *Cluster) WriteSnapshot(w io.Writer) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := berth.NewStateEncoder(w, SnapshotKind, snapshotVersion)
	e.Uvarint(uint64(c.cfg.Scheduler))
	e.Len(len(c.cfg.Plans))
	e.Bool(c.cfg.Preemption)
	e.Uvarint(c.seq)
	e.Varint(c.clock.Now())
	if c.history != nil || !c.partsSnapshot() {
		e.Uvarint(modeHistory)
		e.Bytes(c.history)
		return e.Finish()
	}
	e.Uvarint(modeParts)
	if err := e.Finish(); err != nil {
		return err
	}
	return c.saveParts(w)
}

func (c *Cluster) saveParts(io.Writer) error {
	return fmt.Errorf("durable: %w: the parts cannot write snapshots", berth.ErrInvalidArgument)
}

// Restore reads a snapshot written by [Cluster.WriteSnapshot] and returns
// a Cluster in that state, built from cfg (the same Config the snapshot's
// Cluster was built from: what a snapshot cannot hold, such as agents,
// policies and the groups mapping, comes from it). It reads nothing past
// the snapshot when r is a [*bufio.Reader]. Nothing is returned unless the
// whole snapshot checked out; errors wrap [berth.ErrCorruptState],
// [berth.ErrUnsupportedVersion] or [berth.ErrInvalidArgument] (a Config
// that does not match).
func Restore(r io.Reader, cfg Config) (*Cluster, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	d, err := berth.NewStateDecoder(br, SnapshotKind, snapshotVersion)
	if err != nil {
		return nil, err
	}
	d.Field("scheduler")
	kind := SchedulerKind(d.Uvarint())
	d.Field("plans")
	nplans := d.Len(1 << 20)
	d.Field("preemption")
	pre := d.Bool()
	d.Field("seq")
	seq := d.Uvarint()
	d.Field("now")
	now := d.Varint()
	d.Field("mode")
	mode := d.Uvarint()
	var history []byte
	switch mode {
	case modeHistory:
		d.Field("history")
		history = d.Bytes()
	case modeParts:
	default:
		d.Fail(fmt.Errorf("%w: mode %d", berth.ErrCorruptState, mode))
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if kind != cfg.Scheduler || nplans != len(cfg.Plans) || pre != cfg.Preemption {
		return nil, fmt.Errorf("durable: %w: snapshot of a %s cluster with %d plans (preemption %t), Config has %s with %d plans (preemption %t)",
			berth.ErrInvalidArgument, kind, nplans, pre, cfg.Scheduler, len(cfg.Plans), cfg.Preemption)
	}
	if mode == modeParts {
		return restoreParts(br, cfg, seq, now)
	}
	c, err := New(cfg)
	if err != nil {
		return nil, err
	}
	c.history = []byte{}
	for b := history; len(b) > 0; {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return nil, fmt.Errorf("durable: snapshot history: %w", errShort)
		}
		cmd, err := DecodeCommand(b[k : k+int(n)])
		if err != nil {
			return nil, fmt.Errorf("durable: snapshot history, command %d: %w", c.seq+1, err)
		}
		c.Apply(cmd) // a call's own error is part of the history
		b = b[k+int(n):]
	}
	if c.seq != seq || c.clock.Now() != now {
		return nil, fmt.Errorf("durable: %w: snapshot history replays to command %d at %d, header says %d at %d",
			berth.ErrCorruptState, c.seq, c.clock.Now(), seq, now)
	}
	return c, nil
}

func restoreParts(*bufio.Reader, Config, uint64, berth.Time) (*Cluster, error) {
	return nil, fmt.Errorf("durable: %w: this build restores no part snapshots", berth.ErrUnsupportedVersion)
}
