// Package trace reads the workload inputs of YARN's Scheduler Load Simulator
// into Go values.
//
// The inputs are those of SLS (hadoop-tools/hadoop-sls), read for the
// simulator of package engine: SLS's own JSON job format, Rumen job-history
// traces, SLS's SYNTH generator format (workloads, job classes,
// distributions, chance of reservation and deadline factors) and SLS's node
// (topology) file. Field names, defaults and units follow SLS field by field
// (SLSConfiguration, TaskContainerDefinition, AMDefinitionSLS,
// AMDefinitionRumen, SynthTraceJobProducer, SynthJob), so an SLS user's
// files load unchanged.
//
// Every reader validates its whole input before returning: a bad input
// gives a *Error naming the file, the record (1-based, and its id when
// known) and the field as the file spells it, with the offending value;
// it unwraps to berth.ErrInvalidArgument. Nothing is returned on error.
//
// A job SLS would leave out while running the others (a Rumen job with a
// task without attempts, a generated job with a task time SLS refuses) is
// listed in Trace.Dropped with the reason; what a user may not expect (a
// node record {} read as host "null", as SLS reads it) is a Note.
//
// SYNTH jobs are SLS's: Synth.Generate replays SynthTraceJobProducer and
// SynthJob's draws on java.util.Random and on commons-math's Well19937c
// and its log-normal and normal samplers, in SLS's order, so the same file
// and seed give the same submission times, classes, task counts, sizes,
// times and reservations.
//
// # Differences from SLS
//
//   - Go's exp, log, sin and cos stand in for commons-math's FastMath,
//     which differ in the last bit for about one call in five: a SYNTH
//     sample may differ from SLS's by an ulp, which changes the integer
//     SLS rounds it to only when it lies within about 1e-15 of a half
//     (no sample of the tests does).
//   - SLS 3.4's Rumen and SYNTH builders shift every job by its own start
//     time, so all start at 0; Berth keeps the first Rumen job at 0 and
//     the others at their offsets from it (SLS's earlier behaviour), and
//     SYNTH jobs at their drawn times.
//   - SLS's node set keeps two nodes when one host name comes on two
//     racks; Berth names nodes by host and keeps the first (a Note).
//   - SLS accepts a task without any duration and fails later in the run,
//     or a job without a queue and fails when submitting, or a SYNTH class
//     without deadline_factor, duration or reservation and fails on it;
//     these readers reject the first two up front with the record and
//     field named, and give the third constants (1, 0 and 0).
//   - SLS reads only SYNTH's first file; every file given is generated.
//   - Values SLS parses with Integer.parseInt/Long.parseLong may be JSON
//     numbers or numeric strings here too; fractional or out-of-range
//     values are errors (Java throws NumberFormatException). Times past
//     MaxTime (ten years) are refused: the run would not end.
package trace
