package journal

import (
	"errors"
	"fmt"
	"strings"

	"github.com/berthsched/berth"
)

// ErrLocked is what [Open] reports when another Journal, in this process
// or another, has the directory open: a journal has one writer.
var ErrLocked = errors.New("journal: directory in use")

// LockedError names the directory another opener holds and, when the
// holder wrote them into the directory's LOCK file, its process id and
// host. It wraps [ErrLocked].
type LockedError struct {
	Dir  string
	PID  int    // 0 when unknown
	Host string // "" when unknown
}

// Error names the directory and the holder.
func (e *LockedError) Error() string {
	who := "another process or Journal"
	if e.PID != 0 {
		who = fmt.Sprintf("process %d", e.PID)
		if e.Host != "" {
			who += " on " + e.Host
		}
	}
	return fmt.Sprintf("journal: %s is in use by %s (the directory is locked)", e.Dir, who)
}

// Unwrap returns ErrLocked.
func (e *LockedError) Unwrap() error { return ErrLocked }

// ErrLostRecords is what [Open] reports when the directory shows that
// records it had made durable are gone: a segment file cut shorter than
// it was created or deleted, or fewer records than the manifest or a
// segment's synced mark says were synced. It is never a crash's doing (a crash loses only records not yet
// synced); something outside the journal damaged the directory.
var ErrLostRecords = errors.New("journal: records lost")

// LossError says which records are gone and why Open knows. It wraps
// [ErrLostRecords] and [berth.ErrCorruptState]. [Options.AcceptTruncation]
// lets Open keep what is left instead, and [Recovery.Lost] then holds it.
type LossError struct {
	// Last is the last record still readable in order: recovery can
	// keep records up to it.
	Last uint64
	// Synced is the last record the journal recorded as durable (in its
	// manifest or a segment's synced mark); when it is above Last,
	// records Last+1 to Synced are proven lost. 0 when neither says
	// anything beyond Last.
	Synced uint64
	// Problems names each damaged or missing file and what is wrong.
	Problems []string
}

// Error says what is lost and lists the problems.
func (e *LossError) Error() string {
	var b strings.Builder
	switch {
	case e.Synced == e.Last+1:
		fmt.Fprintf(&b, "journal: record %d was synced and is lost", e.Synced)
	case e.Synced > e.Last:
		fmt.Fprintf(&b, "journal: records %d to %d were synced and are lost", e.Last+1, e.Synced)
	default:
		fmt.Fprintf(&b, "journal: records after %d may be lost", e.Last)
	}
	b.WriteString(": ")
	b.WriteString(strings.Join(e.Problems, "; "))
	return b.String()
}

// Unwrap returns ErrLostRecords and berth.ErrCorruptState.
func (e *LossError) Unwrap() []error { return []error{ErrLostRecords, berth.ErrCorruptState} }

// ErrSyncFailed marks a failed write or fsync of records: each of them
// may or may not be on disk, and only a reopening tells (it recovers
// them in order, a prefix of them, or none). The Journal stops: every
// later call fails with [ErrFailed] until it is reopened.
var ErrSyncFailed = errors.New("journal: records may not be durable")

// SyncError is a failed write or fsync: records First to Last were
// handed to the journal and their fate is unknown until a reopening. It
// wraps [ErrSyncFailed] and the operating system's error.
type SyncError struct {
	Op          string // "write" or "fsync"
	Segment     string // the segment file
	First, Last uint64
	Err         error
}

// Error names the records, the file and the cause.
func (e *SyncError) Error() string {
	return fmt.Sprintf("journal: %s of records %d to %d in %s failed, they may or may not be durable (reopen to find out): %v",
		e.Op, e.First, e.Last, e.Segment, e.Err)
}

// Unwrap returns ErrSyncFailed and the cause.
func (e *SyncError) Unwrap() []error { return []error{ErrSyncFailed, e.Err} }

// ErrFailed is what a Journal returns after a failed write (a
// [SyncError]): the end of its file is no longer known, and it refuses
// everything but Close until it is reopened, which recovers.
var ErrFailed = errors.New("journal: stopped after a failed write, reopen to recover")

// ErrReadOnly is what a read-only Journal returns from calls that write:
// one opened with [Options.ReadOnly], or one whose recovery needed to
// write and could not ([Recovery.ReadOnly] says why; the error wraps the
// cause too).
var ErrReadOnly = errors.New("journal: read-only")
