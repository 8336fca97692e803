// Package journal is a file-backed write-ahead log of opaque records for
// one process.
//
// It is the storage under package durable's Store: records are appended
// with sequence numbers 1, 2, …, made durable as the host's [SyncMode]
// says (every record, in batches driven by a count or by the host's
// clock, or only when asked), written in segment files that rotate at a
// size, and truncated by snapshots the host writes through
// [Journal.WriteSnapshot].
//
// # What it promises
//
// A record is acknowledged once [Journal.Synced] reaches it (with
// SyncAlways, when Append returns). [Open] then either recovers every
// acknowledged record, in order, or refuses with a typed error; it never
// gives back fewer without saying so:
//
//   - One writer: Open takes an exclusive lock on the directory (flock
//     on the directory itself, so deleting its LOCK file, which names
//     the holder's process and host, lets no one in); a second opener,
//     in this process or another, gets a [*LockedError].
//   - A crash (of the process or the machine) loses only records not yet
//     synced. A torn write, the last record incomplete or with a sector
//     never written, is cut off; its bytes are kept in a .torn file
//     beside the segment and counted in [Recovery].
//   - Damage is not a crash: a record that is there and fails its
//     checksum (a flipped bit, even in the last record) is corruption,
//     refused with an error wrapping berth.ErrCorruptState. So is a
//     damaged snapshot file: each carries a checksum of its own.
//   - Lost records are noticed: segments are created at their full size,
//     so one cut short was cut by something other than a crash; a
//     MANIFEST written at every rotation, checkpoint and Close records
//     the newest segment, the snapshot and how far records were synced;
//     and each segment carries a synced mark, written after every fsync
//     and made durable by the next, so that between rotations too the
//     records of every group commit but the last are vouched for. A cut
//     segment, a deleted one, or fewer records than were synced is
//     refused with a [*LossError] (wrapping [ErrLostRecords]) that says
//     which records and why, unless the host passes
//     Options.AcceptTruncation to keep what is left.
//   - A failed write or fsync is a [*SyncError]: the records it names may
//     or may not be on disk, and the journal stops until it is reopened,
//     which tells.
//   - A full disk shows when a segment is created (its space is
//     allocated then), before any record of it is written: Append fails
//     cleanly and works again once there is room. A recovery that must
//     write and cannot recovers read-only and says why in [Recovery].
//
// What it does not promise: records not yet synced survive a crash only
// by luck; a checksum catches damage, it does not repair it; a torn write
// is told from damage by its shape (sectors of zeros, nothing readable
// after it), so damage that zeros whole sectors of the records of the
// last group commit (those above every durable mark) reads as a torn
// write, and the loss of that commit's records as a crash's; a segment
// replaced whole by an older copy of itself after a crash carries older
// marks and is not noticed (after a Close, the manifest notices it); a
// journal an older build wrote is read, and its tail checked, as that
// build did (format 1 has no manifest, format 2 no marks), and continues
// in a new segment; the lock is advisory, and a network file system may
// not honour it. A reader (Options.ReadOnly) cannot open a journal while
// its writer runs.
//
// See record.go for the on-disk format. Like the library, the journal
// starts no goroutine and reads no clock: SyncBatch's interval is checked
// against the times the host passes to Append and Tick. A Journal is not
// safe for concurrent use.
//
// # Differences from YARN
//
// YARN's FileSystemRMStateStore writes one file per application and
// reservation and renames it into place; it has no log of calls. This
// journal logs the calls themselves, which a deterministic Berth replays
// into exactly the state it had.
package journal
