// Package journal is a file-backed write-ahead log of opaque records for
// one process, the storage under package durable's Store: records are
// appended with sequence numbers 1, 2, …, made durable as the host's
// [SyncMode] says (every record, in batches driven by a count or by the
// host's clock, or only when asked), written in segment files that rotate
// at a size, and truncated by snapshots the host writes through
// [Journal.WriteSnapshot].
//
// Each record is framed by its length and a CRC-32C of its sequence
// number and payload (see [ReadSegment] for the layout and for how a read
// tells a torn tail from corruption). [Open] recovers a directory: it
// checks every segment, cuts a torn last record off (keeping its bytes in a
// .torn file beside the segment) and refuses a journal that lost records
// in the middle, so that nothing acknowledged is silently dropped.
//
// Like the library, the journal starts no goroutine and reads no clock:
// SyncBatch's interval is checked against the times the host passes to
// Append and Tick. A Journal is not safe for concurrent use.
//
// # Differences from YARN
//
// YARN's FileSystemRMStateStore writes one file per application and
// reservation and renames it into place; it has no log of calls. This
// journal logs the calls themselves, which a deterministic Berth replays
// into exactly the state it had.
package journal
