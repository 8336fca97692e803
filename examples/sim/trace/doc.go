// Package trace reads the workload inputs of YARN's Scheduler Load Simulator
// (SLS, hadoop-tools/hadoop-sls) into typed Go values for the simulator of
// package engine: SLS's own JSON job format, Rumen job-history traces,
// SLS's SYNTH generator format (workloads, job classes, distributions,
// chance of reservation and deadline factors) and SLS's node (topology)
// file. Field names, defaults and units follow SLS field by field
// (SLSConfiguration, TaskContainerDefinition, AMDefinitionSLS,
// AMDefinitionRumen, SynthTraceJobProducer, SynthJob), so an SLS user's
// files load unchanged.
//
// Every reader validates its whole input before returning: a bad input
// gives a *Error naming the file, the record (1-based, and its id when
// known) and the field as the file spells it, with the offending value;
// it unwraps to berth.ErrInvalidArgument. Nothing is returned on error.
//
// # Differences from SLS
//
//   - SLS builds its SYNTH jobs with Java's JDKRandomGenerator; Berth draws
//     from math/rand/v2's PCG seeded with rand_seed. The same file and
//     seed give the same jobs on every run, but not SLS's jobs.
//   - SYNTH task times are read in seconds, as SLS's documentation states
//     for dur/mtime/rtime; SLS 3.x hands the sampled number to its
//     container simulator as milliseconds.
//   - SLS accepts a task without any duration and fails later in the run,
//     or a job without a queue and fails when submitting; these readers
//     reject them up front with the record and field named.
//   - Values SLS parses with Integer.parseInt/Long.parseLong may be JSON
//     numbers or numeric strings here too; fractional or out-of-range
//     values are errors (Java throws NumberFormatException).
package trace
