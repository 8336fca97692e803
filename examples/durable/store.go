package durable

import (
	"bufio"
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/durable/journal"
)

// Store is a [Cluster] with a write-ahead [journal.Journal]: every command
// is appended to the journal before it is applied, so after a crash
// [Open] rebuilds the Cluster from the latest snapshot and the records
// after it. With journal.SyncAlways a command is durable when Apply
// returns; with the batching modes a host acknowledges a command only
// once [Store.Synced] reaches its [Result.Seq].
//
// A Store is not safe for concurrent use (its journal is not); a host
// serialises its calls.
type Store struct {
	c   *Cluster
	j   *journal.Journal
	buf []byte
}

// Open opens the journal in dir and recovers the Cluster it records: the
// latest snapshot (or genesis from cfg), then every record after it, each
// applied as it was the first time. A torn last record is dropped (it was
// never acknowledged: Apply had not returned); corruption anywhere else is
// an error.
func Open(dir string, cfg Config, opts journal.Options) (*Store, error) {
	j, err := journal.Open(dir, opts)
	if err != nil {
		return nil, err
	}
	c, err := recoverCluster(j, cfg)
	if err != nil {
		j.Close()
		return nil, err
	}
	return &Store{c: c, j: j}, nil
}

func recoverCluster(j *journal.Journal, cfg Config) (*Cluster, error) {
	var c *Cluster
	rc, seq, ok, err := j.OpenSnapshot()
	if err != nil {
		return nil, err
	}
	if ok {
		c, err = Restore(bufio.NewReaderSize(rc, 256<<10), cfg)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("durable: snapshot %d: %w", seq, err)
		}
		if c.Seq() != seq {
			return nil, fmt.Errorf("durable: %w: snapshot file %d holds the state after command %d", berth.ErrCorruptState, seq, c.Seq())
		}
	} else if c, err = New(cfg); err != nil {
		return nil, err
	}
	err = j.Replay(func(seq uint64, rec []byte) error {
		if seq != c.seq+1 {
			return fmt.Errorf("durable: %w: journal record %d follows command %d", berth.ErrCorruptState, seq, c.seq)
		}
		cmd, err := DecodeCommand(rec)
		if err != nil {
			return fmt.Errorf("durable: journal record %d: %w", seq, err)
		}
		c.Apply(cmd) // the call's own error was the host's answer then too
		return nil
	})
	if err != nil {
		return nil, err
	}
	if j.Next() != c.Seq()+1 {
		return nil, fmt.Errorf("durable: %w: journal continues at %d after command %d", berth.ErrCorruptState, j.Next(), c.Seq())
	}
	return c, nil
}

// Cluster returns the recovered Cluster, for reading. Change it only
// through [Store.Apply], or the journal no longer records it.
func (s *Store) Cluster() *Cluster { return s.c }

// Journal returns the store's journal (for Tick, Sync and metrics).
func (s *Store) Journal() *journal.Journal { return s.j }

// Synced returns the sequence number of the last durable command.
func (s *Store) Synced() uint64 { return s.j.Synced() }

// Apply journals cmd, then applies it. A journal error is returned
// without applying the command (the Cluster stays as the journal says);
// otherwise the result and the call's own error are the Cluster's.
func (s *Store) Apply(cmd Command) (Result, error) {
	if cmd == nil {
		return Result{}, errInvalid(0, "command", "nil command")
	}
	var err error
	s.buf, err = cmd.AppendBinary(s.buf[:0])
	if err != nil {
		return Result{}, err
	}
	if _, err := s.j.Append(s.buf, s.c.Now()); err != nil {
		return Result{}, err
	}
	return s.c.Apply(cmd)
}

// Checkpoint writes a snapshot of the Cluster and truncates the journal
// to the records after it.
func (s *Store) Checkpoint() error {
	return s.j.WriteSnapshot(s.c.Seq(), s.c.WriteSnapshot)
}

// Close syncs and closes the journal.
func (s *Store) Close() error { return s.j.Close() }
