// Package compare runs one workload under several configurations and puts them side by side.
//
// It answers a simulator user's "what if": what if analytics had 30 % of
// the cluster, what if preemption were off, what would the fair scheduler
// do with the same jobs. A Sweep (a comparison file, see Sweep's JSON)
// lists the configurations as changes to a base one — keys of
// capacity-scheduler.xml or of the site file, another scheduler or file —
// and may multiply them along dimensions of values. Resolve loads and
// checks every variant before anything runs; Run runs them, each on its
// own goroutine up to Options.Workers, with the same trace and seeds;
// WriteReport renders the comparison (package report's WriteComparison):
// each queue's wait and runtime percentiles and their differences from
// the first variant, the configuration keys that differ, charts per
// variant.
//
// When a sweep outgrows one machine, a Shard runs every n-th variant;
// each variant's outputs include a Part (run.json) that carries its whole
// run, and ReadParts gathers the parts of all shards into the outcomes
// WriteReport takes, checking that they belong to one comparison and that
// none is missing. The merged report is the one a single machine writes,
// byte for byte. A Kubernetes Indexed Job or a Slurm job array runs the
// shards; the recipe is in the simulator's README.
//
// Trade-offs: the library packages the runs drive start no goroutine and
// read no clock; this package is host code, and starts one goroutine per
// worker and times each run (Outcome.Wall, never written to a report, so
// that reports stay reproducible). Runs share nothing, so a comparison
// costs one run's memory per worker and its wall time is close to one
// run × variants ÷ workers; a variant's runs are the ones a run alone
// gives. Keys are overridden by rewriting the configuration file, so any
// key Berth reads can vary; the fair scheduler's allocation file is not a
// list of keys and varies whole (scheduler-conf). Differences are shown
// key by key as Berth reads the files (an allocation file flattened to
// element paths).
package compare
