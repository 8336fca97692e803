// Package journaltest provides a journal.FS that fails on demand.
//
// It is for testing a host's handling of a full disk, failing writes and
// fsyncs, and crashes of its process or its machine.
//
// FaultFS works on the real file system (a test's temporary directory)
// and adds the faults the operating system would produce: ENOSPC where
// a full disk stops a write, an error from fsync, and two crashes. A
// process crash closes every file the FS opened (as the kernel does when
// the process dies, releasing the journal's lock) and loses nothing
// written. A machine crash also loses what was written since each file's
// last fsync, keeping only some of its sectors, as a power cut leaves a
// write the disk was in the middle of, and undoes the directory changes
// (files created, renamed, removed) made since their directory was last
// fsynced, all or the newest of them.
//
// A test can also stop the process at any change it makes to the disk:
// [FaultFS.Ops] counts the changes (writes, fsyncs, allocations, files
// created, renamed, removed), [FaultFS.CrashAfter] makes every call fail
// with [ErrCrashed] from the nth change on, as if the process had died
// there, and a crash then settles what reached the disk. Running an
// operation once per change enumerates its crash points.
//
// It keeps the undo log for a machine crash in memory: it is for tests of
// modest size.
package journaltest
