package main

import (
	"flag"
	"fmt"
)

// helpText is --help: what the simulator is, an example per kind of
// input, the files it writes, and where it differs from SLS. The flags
// follow it.
const helpText = `sim replays a YARN workload through Berth's schedulers and reservation
system on a simulated clock, to predict what a cluster will do with it: how
long each queue's jobs wait and run, who gets preempted, what a rack failure
or a reservation costs. It reads what YARN's Scheduler Load Simulator (SLS)
reads — SLS and Rumen traces, SYNTH generator files, node files,
capacity-scheduler.xml or fair-scheduler.xml, sls-runner.xml and
yarn-site.xml — and decides as YARN's schedulers do, but a simulated day
takes seconds rather than a day, and two runs of the same inputs give the
same bytes. --compare runs one trace under several configurations at once
and puts them side by side ("what if this queue had 30 %?").

Usage:
  sim [flags]                         the default scenario
  sim --tracetype=TYPE --tracelocation=FILES [--scheduler-conf=FILE] [flags]
  sim --compare=SPEC [--shard=i/n] [trace flags]
  sim --merge --output-dir=DIR PART-DIR...

Examples:
  # The embedded default scenario: a day on 300 nodes, three tenants and a
  # reservable queue, three racks failing at noon (see --write-default-scenario).
  sim --output-dir=out
  sim --scheduler=fair --output-dir=out-fair

  # An SLS trace (SLS's own format, as its sample inputsls.json) on a node file.
  sim --tracetype=SLS --tracelocation=inputsls.json --nodes=nodes.json \
      --scheduler-conf=capacity-scheduler.xml --conf=sls-runner.xml --output-dir=out

  # A Rumen trace (job history turned into JSON by Rumen's TraceBuilder).
  sim --tracetype=RUMEN --tracelocation=2jobs2min-rumen-jh.json \
      --scheduler-conf=capacity-scheduler.xml --conf=sls-runner.xml --output-dir=out

  # SLS's fair-scheduler run: the site file names the scheduler (and may name
  # its allocation file); the files load in order, as Hadoop loads them.
  sim --input-sls=inputsls.json --conf=yarn-site.xml,sls-runner.xml \
      --scheduler-conf=fair-scheduler-allocation.xml --output-dir=out

  # A SYNTH generator file under the fair scheduler, with another seed.
  sim --tracetype=SYNTH --tracelocation=syn.json --scheduler=fair \
      --scheduler-conf=fair-scheduler.xml --conf=sls-runner.xml --seed=2 --output-dir=out

  # What if: the default scenario under both schedulers, or a trace under
  # the configurations a comparison file lists (see examples/sim/README.md).
  sim --compare=capacity,fair --output-dir=cmp
  sim --compare=whatif.json --tracetype=SLS --tracelocation=inputsls.json \
      --scheduler-conf=capacity-scheduler.xml --output-dir=cmp

  # The same comparison across machines (a Kubernetes Indexed Job, a Slurm
  # array): each runs a part, one merges.
  sim --compare=whatif.json --shard=$JOB_COMPLETION_INDEX/8 ... --output-dir=parts/$JOB_COMPLETION_INDEX
  sim --merge --output-dir=cmp parts/*

Files written to --output-dir (each whole or not at all):
  report.html       the report: what happened in words and on a timeline,
                    the cluster, queues and plans over time, waits and
                    runtimes per queue; one self-contained HTML page
  jobruntime.csv    SLS's: JobID, real_start_time, real_end_time,
                    simulate_start_time, simulate_end_time
  jobs.csv          per job: queue, wait, runtime, containers, preempted,
                    lost, attempts, reservation, deadline
  cluster.csv       the cluster over time: capacity, allocated, pending,
                    running applications and containers, each plan's load
  queues.csv        each queue over time: guaranteed or fair share, used,
                    pending, applications, preemptions
  reservations.csv  each reservation request and what became of it
  timeline.csv      what happened: nodes lost and back, preemption rounds,
                    reservations accepted, refused and removed, replanning,
                    reconfiguration, a stall
With --compare: compare.html, and these files in one directory per
configuration with run.json, the part --merge reads.

Differences from SLS:
  - Simulated time: SLS runs in wall-clock time on thread pools; sim runs
    events in (time, sequence) order, deterministically, thousands of times
    faster. Metrics are sampled every yarn.sls.metrics.record.interval.ms of
    simulated time when a --conf file sets it, else adaptively (below).
  - The nodes' heartbeat phases and each job's submission offset within a
    heartbeat are drawn from --seed; SLS's come from an unseeded Random and
    its threads' timing, so its runs differ.
  - Application masters are SLS's MapReduce and streaming models
    (yarn.sls.am.type.*); a type Berth does not model (dag) is refused.
  - Application masters act on a heartbeat's containers at once (no
    yarn.sls.am.heartbeat.interval.ms delay); a container starts when it is
    allocated.
  - Tasks of one job with the same priority are asked for at the largest of
    their sizes: asks are keyed by (priority, resource name), as YARN's are.
  - An AM whose container is lost restarts as a new application
    "<job>_attempt<n>" that keeps the finished tasks.
  - Preemption: as SLS, a trace run turns the capacity scheduler's
    preemption monitor on whatever the configuration says
    (--sls-monitor=false follows it, as a ResourceManager does); the fair
    scheduler's follows yarn.scheduler.fair.preemption.
  - Reservation plans use YARN's defaults (AlignedPlannerWithGreedy,
    CapacityOverTimePolicy, SimpleCapacityReplanner); the per-queue
    reservation keys of capacity-scheduler.xml are not read.
  - Node labels are carried but not scheduled on (partitions are not
    modelled).
  - Additions: node losses and returns (--node-events), the report and its
    timeline, --compare, --shard and --merge.
  - No web UI or metrics server: the outputs are files.

Flags:
`

func usage(fs *flag.FlagSet) {
	fmt.Fprint(fs.Output(), helpText)
	fs.PrintDefaults()
}
