package durable

import (
	"bufio"
	"errors"
	"fmt"
	"io"

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
// serialises its calls. One Store at a time has a directory open.
type Store struct {
	c   *Cluster
	j   *journal.Journal
	buf []byte
}

// Open opens the journal in dir and recovers the Cluster it records: the
// latest snapshot (or genesis from cfg), then every record after it, each
// applied as it was the first time. What the journal's Open refuses, Open
// refuses: a directory another Store has open ([journal.ErrLocked]),
// corruption of a record or of the snapshot (berth.ErrCorruptState, even
// where the damaged bytes would decode as a Config that does not match),
// acknowledged commands gone missing ([journal.ErrLostRecords], unless
// opts.AcceptTruncation). A torn last record is dropped: it was never
// acknowledged. [Store.Recovery] reports what was recovered.
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
	c, err := restoreSnapshot(j, cfg)
	if err != nil {
		return nil, err
	}
	err = j.Replay(func(seq uint64, rec []byte) error {
		if seq != c.seq+1 {
			return fmt.Errorf("durable: %w: record %d follows command %d", berth.ErrCorruptState, seq, c.seq)
		}
		cmd, err := DecodeCommand(rec)
		if err != nil {
			return err
		}
		c.Apply(cmd) // the call's own error was the host's answer then too
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("durable: replaying the journal: %w", err)
	}
	if j.Next() != c.Seq()+1 {
		return nil, fmt.Errorf("durable: %w: journal continues at %d after command %d", berth.ErrCorruptState, j.Next(), c.Seq())
	}
	return c, nil
}

// restoreSnapshot restores the journal's latest snapshot, or builds
// genesis from cfg when there is none.
func restoreSnapshot(j *journal.Journal, cfg Config) (*Cluster, error) {
	rc, seq, ok, err := j.OpenSnapshot()
	if err != nil {
		return nil, fmt.Errorf("durable: %w", err)
	}
	if !ok {
		return New(cfg)
	}
	defer rc.Close()
	name := j.Recovery().SnapshotFile
	br := bufio.NewReaderSize(rc, 256<<10)
	c, err := Restore(br, cfg)
	// Read the file to its end whatever Restore said: the journal's
	// checksum of it has the last word, so damage reads as damage even
	// where the bytes decoded into something else (a Config mismatch).
	if _, verr := io.Copy(io.Discard, br); verr != nil {
		return nil, fmt.Errorf("durable: %w", verr)
	}
	if err != nil {
		return nil, fmt.Errorf("durable: restoring snapshot %s: %w", name, err)
	}
	if c.Seq() != seq {
		return nil, fmt.Errorf("durable: %w: snapshot %s holds the state after command %d", berth.ErrCorruptState, name, c.Seq())
	}
	return c, nil
}

// Cluster returns the recovered Cluster, for reading. Change it only
// through [Store.Apply], or the journal no longer records it.
func (s *Store) Cluster() *Cluster { return s.c }

// Journal returns the store's journal (for Tick, Sync and metrics).
func (s *Store) Journal() *journal.Journal { return s.j }

// Recovery reports what Open recovered: the snapshot, the commands
// replayed after it, a torn tail cut, an accepted loss, and whether the
// Store is read-only (a full disk during recovery).
func (s *Store) Recovery() journal.Recovery { return s.j.Recovery() }

// Synced returns the sequence number of the last durable command.
func (s *Store) Synced() uint64 { return s.j.Synced() }

// Apply journals cmd, then applies it, and returns the Cluster's result
// and the call's own error.
//
// A journal error is returned without applying the command, and says
// what became of it. Most mean it was not recorded and never will be (a
// full disk when a new segment was needed, a read-only Store). One
// wrapping [journal.ErrSyncFailed] means the write or fsync of the
// record failed: the command may or may not be on disk, so its outcome is
// unknown, as after a timeout. The Cluster does not hold it, but a
// reopened Store may (the journal recovers whatever reached the disk);
// with batching, the Cluster also holds earlier commands that may not
// survive. The Store then refuses every command ([journal.ErrFailed])
// until it is closed and reopened, which settles the question: a host
// answers the client only after that.
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
		if errors.Is(err, journal.ErrSyncFailed) {
			return Result{}, fmt.Errorf("durable: command %d (%s): outcome unknown until the Store is reopened: %w", s.c.Seq()+1, cmd.Kind(), err)
		}
		return Result{}, err
	}
	return s.c.Apply(cmd)
}

// Checkpoint writes a snapshot of the Cluster and truncates the journal
// to the records after it.
func (s *Store) Checkpoint() error {
	return s.j.WriteSnapshot(s.c.Seq(), s.c.WriteSnapshot)
}

// Close syncs and closes the journal, and releases the directory.
func (s *Store) Close() error { return s.j.Close() }
