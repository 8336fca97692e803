// Command sim replays YARN workload traces through Berth's schedulers on a
// virtual clock.
//
// It is Berth's answer to YARN's Scheduler Load Simulator (SLS), with the
// reservation system in the loop, at thousands of times real time and
// identically on every run. With no flags it runs the embedded default
// scenario (a simulated day on 300 nodes, three tenants and a reservable
// queue under the capacity scheduler, a rack failure at noon) and writes
// its report:
//
//	go run ./examples/sim
//	go run ./examples/sim --scheduler fair
//
// With a trace it takes SLS's flags, slsrun.sh's spellings or
// SLSRunner's (-inputsls, -output, -trackjobs, ...):
//
//	go run ./examples/sim --tracetype=SLS --tracelocation=jobs.json \
//	    --nodes=nodes.json --conf=yarn-site.xml,sls-runner.xml --output-dir=out
//
// The --conf files load in order as Hadoop's Configuration loads them
// (later files override earlier ones unless final; -D name=value wins);
// yarn.resourcemanager.scheduler.class names the scheduler unless
// --scheduler does, and the scheduler's own file is --scheduler-conf or
// found as the ResourceManager finds it, beside the --conf file that
// names it (see --help).
//
// The output directory receives report.html, jobruntime.csv (SLS's
// columns), jobs.csv, cluster.csv, queues.csv, reservations.csv and
// timeline.csv. --help says more.
//
// --compare runs the same trace under several configurations at once and
// writes compare.html beside one directory per configuration; --shard
// runs a part of them and --merge builds the comparison from the parts
// (package compare, and README.md for running the parts on a batch
// engine):
//
//	go run ./examples/sim --compare=capacity,fair --output-dir=cmp
//
// Preemption under the fair scheduler runs when
// yarn.scheduler.fair.preemption is true; under the capacity scheduler a
// trace run turns the preemption monitor on whatever the configuration
// says, as SLS's RMRunner does (--sls-monitor=false follows
// yarn.resourcemanager.scheduler.monitor.enable, as a ResourceManager
// does), with the policy's yarn.resourcemanager.monitor.capacity.preemption.*
// keys from the site files or capacity-scheduler.xml. The exit status
// tells a script whether the run finished (0), failed (1), was given bad
// flags (2) or stalled (3).
//
// What the configuration files (the scheduler's file and the --conf site
// file) say that Berth does not model, or that no one knows (with the
// closest known key), is printed to stderr and listed in the report;
// --strict-config refuses to run on it. Site keys outside the simulator's
// namespaces (fs.*, hadoop.*, other daemons' yarn.* keys) are ignored
// without a note (see scenario.SiteReport). Every
// input is validated before the run starts; the outputs are written to a
// new directory beside the output directory, which replaces it whole, so
// a failed run leaves the output directory as it was.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/berthsched/berth/examples/sim/report"
	"github.com/berthsched/berth/examples/sim/scenario"
	"github.com/berthsched/berth/queue"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	if err != nil && !errors.Is(err, flag.ErrHelp) && !errors.Is(err, errStalled) && !errors.Is(err, errFlags) {
		fmt.Fprintln(os.Stderr, "sim:", err)
	}
	os.Exit(exitStatus(err))
}

// Exit statuses a script can test (see usageNotes).
const (
	exitOK      = 0 // the run finished (or stopped at --end-ms); outputs written
	exitError   = 1 // bad input, or the run or the writing failed; the output directory is as it was
	exitUsage   = 2 // bad flags
	exitStalled = 3 // the run stalled: nothing could progress; outputs written
)

// errStalled is run's answer for a run that stalled: its outputs are
// written and the summary says so.
var errStalled = errors.New("the run stalled: nothing could progress")

// usageError is a mistake in the flags.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

func exitStatus(err error) int {
	var ue *usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errStalled):
		return exitStalled
	case errors.As(err, &ue), errors.Is(err, errFlags):
		return exitUsage
	}
	return exitError
}

// errFlags marks the flag package's own parse errors (it printed them).
var errFlags = errors.New("bad flags")

type options struct {
	traceType, traceLocation, inputRumen, inputSLS string
	outputDir, nodes, trackJobs                    string
	printSimulation                                bool
	scheduler, schedulerConf, nodeEvents           string
	conf                                           listFlag
	defines                                        defineFlag
	slsMonitor                                     bool
	seed                                           int64
	endMS                                          int64
	quiet                                          bool
	writeDefault                                   string
	strictConfig                                   bool
	// --compare, --shard, --merge, --workers (main_compare.go).
	compare, shard string
	merge          bool
	workers        int
}

// listFlag collects a repeatable flag whose values may also be
// comma-separated lists, in order.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// defineFlag collects -D name=value overrides, in order.
type defineFlag []scenario.Property

func (d *defineFlag) String() string {
	var parts []string
	for _, p := range *d {
		parts = append(parts, p.Name+"="+p.Value)
	}
	return strings.Join(parts, " ")
}

func (d *defineFlag) Set(v string) error {
	name, value, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(name) == "" {
		return fmt.Errorf("expected name=value, got %q", v)
	}
	*d = append(*d, scenario.Property{Name: strings.TrimSpace(name), Value: value})
	return nil
}

func parseFlags(args []string, stderr io.Writer) (*options, *flag.FlagSet, error) {
	o := &options{}
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.traceType, "tracetype", "", "trace type: SLS, RUMEN or SYNTH (SLS's --tracetype)")
	fs.StringVar(&o.traceLocation, "tracelocation", "", "trace files, comma-separated (SLS's --tracelocation)")
	fs.StringVar(&o.inputRumen, "input-rumen", "", "Rumen trace files: --tracetype=RUMEN --tracelocation=FILES (slsrun.sh's --input-rumen; SLSRunner's -inputrumen)")
	fs.StringVar(&o.inputRumen, "inputrumen", "", "same as --input-rumen (SLSRunner's spelling)")
	fs.StringVar(&o.inputSLS, "input-sls", "", "SLS trace files: --tracetype=SLS --tracelocation=FILES (slsrun.sh's --input-sls; SLSRunner's -inputsls)")
	fs.StringVar(&o.inputSLS, "inputsls", "", "same as --input-sls (SLSRunner's spelling)")
	fs.StringVar(&o.outputDir, "output-dir", "sim-output", "output directory (slsrun.sh's --output-dir; SLSRunner's -output)")
	fs.StringVar(&o.outputDir, "output", "sim-output", "same as --output-dir (SLSRunner's spelling)")
	fs.StringVar(&o.nodes, "nodes", "", "node (topology) file (SLS's --nodes)")
	fs.StringVar(&o.trackJobs, "track-jobs", "", "job ids to report in detail, comma-separated (slsrun.sh's --track-jobs; SLSRunner's -trackjobs)")
	fs.StringVar(&o.trackJobs, "trackjobs", "", "same as --track-jobs (SLSRunner's spelling)")
	fs.BoolVar(&o.printSimulation, "print-simulation", false, "print the nodes and jobs before running (slsrun.sh's --print-simulation; SLSRunner's -printsimulation)")
	fs.BoolVar(&o.printSimulation, "printsimulation", false, "same as --print-simulation (SLSRunner's spelling)")
	fs.StringVar(&o.scheduler, "scheduler", "", "scheduler: capacity or fair (default: yarn.resourcemanager.scheduler.class from the --conf files, else capacity, as YARN)")
	fs.StringVar(&o.schedulerConf, "scheduler-conf", "",
		"the scheduler's file: capacity-scheduler.xml, or the fair scheduler's allocation file. Default: as the ResourceManager finds it, "+
			"capacity-scheduler.xml or yarn.scheduler.fair.allocation.file (default fair-scheduler.xml); where YARN looks a relative name up on "+
			"its classpath, the simulator tries the directory of the --conf file that set it (for a default name, of each --conf file, the "+
			"last first), then the working directory. Without an allocation file the fair scheduler runs on YARN's defaults (said on stderr)")
	fs.Var(&o.conf, "conf", "Hadoop configuration `files` (yarn-site.xml, sls-runner.xml, ...): repeat the flag or give a comma-separated list; "+
		"later files override earlier ones, except properties an earlier file marks <final>true</final>, as Hadoop's Configuration loads them "+
		"(SLS loads yarn-site.xml, then sls-runner.xml)")
	fs.Var(&o.defines, "D", "override a configuration property (repeatable; wins over every --conf file, final or not, as Hadoop's -D `name=value`)")
	fs.BoolVar(&o.slsMonitor, "sls-monitor", true, "with a trace, run the capacity scheduler's preemption monitor (ProportionalCapacityPreemptionPolicy) "+
		"whatever the configuration says, as SLS's RMRunner does for every run; --sls-monitor=false follows "+
		"yarn.resourcemanager.scheduler.monitor.enable as a ResourceManager does")
	fs.StringVar(&o.nodeEvents, "node-events", "", `node losses and returns: JSON [{"time.ms":..,"node"|"rack":..,"state":"down"|"up"}]`)
	fs.Int64Var(&o.seed, "seed", 0, "the run's seed: a SYNTH trace's rand_seed (0: the file's), the nodes' heartbeat phases and the jobs' submission offsets")
	fs.Int64Var(&o.endMS, "end-ms", 0, "stop the simulation at this simulated time in ms (0: when every job finished)")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress display")
	fs.BoolVar(&o.strictConfig, "strict-config", false, "refuse to run when the scheduler's file or the site files have keys Berth does not model or that no one knows")
	fs.StringVar(&o.writeDefault, "write-default-scenario", "", "write the embedded default scenario's files to this directory and exit")
	fs.StringVar(&o.compare, "compare", "", "run the trace under several configurations and compare them: a comparison file (JSON), or a comma-separated list of schedulers (capacity, fair) or scheduler files")
	fs.StringVar(&o.shard, "shard", "", "with --compare: run only part i/n of the configurations (0 ≤ i < n), for --merge")
	fs.BoolVar(&o.merge, "merge", false, "build the comparison from the output directories of --shard runs, given as arguments")
	fs.IntVar(&o.workers, "workers", 0, "with --compare: configurations run at once (0: one per core)")
	fs.Usage = func() {
		usage(fs)
		usageNotes(fs.Output())
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("%w: %w", errFlags, err)
	}
	if fs.NArg() > 0 && !o.merge {
		return nil, nil, usagef("unexpected arguments: %v", fs.Args())
	}
	if o.endMS < 0 {
		return nil, nil, usagef("--end-ms must not be negative, got %d", o.endMS)
	}
	return o, fs, nil
}

// usageNotes ends --help: how metrics are sampled and the exit statuses
// a script can test.
func usageNotes(w io.Writer) {
	fmt.Fprintf(w, `
Metrics are sampled every yarn.sls.metrics.record.interval.ms of simulated time when a --conf
file sets it (as SLS); otherwise every second (SLS's default), thinned to 1,000-2,000 evenly
spaced points over a long run. The output directory is replaced whole, once every file is
written: a failed run leaves it as it was (files of its own that the run does not write are kept).

Exit status:
  %d  the run finished, or stopped at --end-ms; the outputs are written
  %d  bad input, or the run or the writing failed; the output directory is left as it was
  %d  bad flags
  %d  the run stalled: jobs were unfinished and nothing could progress for an hour of simulated
     time (no submission, node event or task end to come); the outputs are written and say so
`, exitOK, exitError, exitUsage, exitStalled)
}

func readFile(name string) (scenario.File, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return scenario.File{}, err
	}
	return scenario.File{Name: name, Data: b}, nil
}

// trace returns the trace type and files the flags name: --tracetype and
// --tracelocation, or slsrun.sh's --input-sls / --input-rumen (one of
// them).
func (o *options) trace() (typ, loc string, err error) {
	given := 0
	for _, set := range []bool{o.traceLocation != "" || o.traceType != "", o.inputSLS != "", o.inputRumen != ""} {
		if set {
			given++
		}
	}
	if given > 1 {
		return "", "", usagef("give the trace once: --tracetype with --tracelocation, --input-sls or --input-rumen")
	}
	switch {
	case o.inputSLS != "":
		return "SLS", o.inputSLS, nil
	case o.inputRumen != "":
		return "RUMEN", o.inputRumen, nil
	}
	return o.traceType, o.traceLocation, nil
}

// inputs turns the flags into the scenario's inputs, reading every file;
// notes are what the user should know about how the files were found.
func (o *options) inputs() (in scenario.Inputs, title string, notes []string, err error) {
	typ, loc, err := o.trace()
	if err != nil {
		return in, "", nil, err
	}
	var sites []scenario.File
	for _, name := range o.conf {
		f, err := readFile(name)
		if err != nil {
			return in, "", nil, err
		}
		sites = append(sites, f)
	}
	site, err := scenario.LoadSites(sites, o.defines)
	if err != nil {
		return in, "", nil, err
	}
	scheduler := o.scheduler
	if scheduler == "" {
		if scheduler, err = site.SchedulerName(); err != nil {
			return in, "", nil, err
		}
	}
	if loc == "" {
		if o.schedulerConf != "" || o.nodes != "" || typ != "" {
			return in, "", nil, usagef("--scheduler-conf, --nodes and --tracetype need --tracelocation (without it the default scenario runs)")
		}
		in = scenario.Default(scheduler)
		// The user's files load after the scenario's own.
		in.Sites = append(in.Sites, sites...)
		in.Overrides = o.defines
		if o.seed != 0 {
			in.Seed = &o.seed
		}
		in.End = o.endMS
		return in, "Berth simulator: default scenario", nil, nil
	}
	if typ == "" {
		return in, "", nil, usagef("--tracelocation needs --tracetype (SLS, RUMEN or SYNTH)")
	}
	in = scenario.Inputs{Scheduler: scheduler, TraceType: typ, End: o.endMS, Sites: sites, Overrides: o.defines,
		SLSMonitor: o.slsMonitor && scheduler == "capacity"}
	if in.SchedulerConf, notes, err = o.findSchedulerConf(site, scheduler); err != nil {
		return in, "", nil, err
	}
	for _, name := range strings.Split(loc, ",") {
		f, err := readFile(strings.TrimSpace(name))
		if err != nil {
			return in, "", nil, err
		}
		in.Traces = append(in.Traces, f)
	}
	for _, opt := range []struct {
		name string
		dst  **scenario.File
	}{{o.nodes, &in.Nodes}, {o.nodeEvents, &in.NodeEvents}} {
		if opt.name == "" {
			continue
		}
		f, err := readFile(opt.name)
		if err != nil {
			return in, "", nil, err
		}
		*opt.dst = &f
	}
	if o.seed != 0 {
		in.Seed = &o.seed
	}
	if in.SLSMonitor {
		notes = append(notes, "the capacity scheduler's preemption monitor runs (ProportionalCapacityPreemptionPolicy), "+
			"as SLS's RMRunner turns it on for every run; --sls-monitor=false follows "+scenario.KeyMonitorEnable)
	}
	return in, "Berth simulator: " + loc, notes, nil
}

// findSchedulerConf reads the scheduler's file: --scheduler-conf, else
// the first of the places the configuration points to that exists (see
// the flag's help). The fair scheduler runs without one, on YARN's
// defaults; the capacity scheduler cannot (YARN refuses to start).
func (o *options) findSchedulerConf(site *scenario.Site, scheduler string) (scenario.File, []string, error) {
	if o.schedulerConf != "" {
		f, err := readFile(o.schedulerConf)
		return f, nil, err
	}
	tried := site.SchedulerFile(scheduler)
	for _, p := range tried {
		st, err := os.Stat(p)
		switch {
		case err == nil && !st.IsDir():
			f, err := readFile(p)
			return f, []string{fmt.Sprintf("the %s scheduler's file is %s (found from the configuration; --scheduler-conf names another)", scheduler, p)}, err
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return scenario.File{}, nil, err
		}
	}
	if scheduler == "fair" {
		return scenario.File{}, []string{fmt.Sprintf("no fair scheduler allocation file (looked for %s): the fair scheduler runs on YARN's defaults, "+
			"as YARN does; --scheduler-conf names one", strings.Join(tried, ", "))}, nil
	}
	return scenario.File{}, nil, usagef("no capacity scheduler configuration: looked for %s; give --scheduler-conf", strings.Join(tried, ", "))
}

func run(args []string, stdout, stderr io.Writer) error {
	o, fs, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if o.writeDefault != "" {
		return writeFiles(o.writeDefault, scenario.DefaultFiles())
	}
	switch {
	case o.merge:
		return runMerge(o, fs.Args(), stdout)
	case o.compare != "":
		return runCompare(o, stdout, stderr)
	case o.shard != "" || o.workers != 0:
		return usagef("--shard and --workers go with --compare")
	}
	in, title, notes, err := o.inputs()
	if err != nil {
		return err
	}
	in.StrictConfig = o.strictConfig
	sc, err := scenario.Load(in)
	if err != nil {
		var re *queue.ConfigReportError
		if errors.As(err, &re) {
			printConfigReport(stderr, re.File, re.Report)
		}
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(stderr, "note:", n)
	}
	confName := in.SchedulerConf.Name
	if confName == "" {
		confName = sc.Scheduler + " scheduler (no allocation file)"
	}
	printConfigReport(stderr, confName, sc.ConfigReport)
	printSiteReport(stderr, sc)
	printInputNotes(stderr, sc)
	if o.printSimulation {
		printSimulation(stdout, sc)
	}
	var end berth.Time
	for _, j := range sc.Jobs {
		end = max(end, j.Start, j.End)
	}
	if in.End > 0 {
		end = in.End
	}
	prog := newProgress(stderr, end, o.quiet)
	res, err := sc.Run(scenario.Options{Progress: prog.update})
	prog.done()
	if err != nil {
		return err
	}
	files, err := outputs(res, title)
	if err != nil {
		return err
	}
	if err := writeFiles(o.outputDir, files); err != nil {
		return err
	}
	printSummary(stdout, res, o.trackJobs, prog.elapsed())
	if len(sc.Dropped) > 0 {
		fmt.Fprintf(stdout, "dropped jobs %d (not run, as SLS and YARN leave them out; listed on stderr and in the report)\n", len(sc.Dropped))
	}
	fmt.Fprintf(stdout, "\nreport: %s\n", filepath.Join(o.outputDir, "report.html"))
	if res.Stalled {
		return errStalled
	}
	return nil
}

// outputs renders every output file in memory.
func outputs(r *metrics.Run, title string) (map[string][]byte, error) {
	files := map[string][]byte{}
	for name, w := range map[string]func(io.Writer, *metrics.Run) error{
		"jobruntime.csv": metrics.WriteJobRuntime, "jobs.csv": metrics.WriteJobs, "cluster.csv": metrics.WriteCluster,
		"queues.csv": metrics.WriteQueues, "reservations.csv": metrics.WriteReservations, "timeline.csv": metrics.WriteTimeline,
	} {
		var b strings.Builder
		if err := w(&b, r); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		files[name] = []byte(b.String())
	}
	var b strings.Builder
	if err := report.Write(&b, r, title); err != nil {
		return nil, fmt.Errorf("report.html: %w", err)
	}
	files["report.html"] = []byte(b.String())
	return files, nil
}

// printConfigReport tells the user what the scheduler's configuration
// says that the simulation does not model or that no one knows:
// a prediction built on ignored keys is silently wrong otherwise. Keys
// other components read are listed too, as information.
func printConfigReport(w io.Writer, file string, r queue.ConfigReport) {
	if len(r.Notes) == 0 {
		return
	}
	fmt.Fprintf(w, "configuration report for %s:\n", file)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  %s\n", n)
	}
	if !r.Clean() {
		fmt.Fprintln(w, "  (--strict-config refuses to run on such a configuration)")
	}
}

// writeFiles writes the files into dir (created if missing), all or
// nothing: see writeTree.
func writeFiles(dir string, files map[string][]byte) error { return writeTree(dir, files) }

// printInputNotes says how the inputs were read where a user may not
// expect it, and which jobs are left out and why.
func printInputNotes(w io.Writer, sc *scenario.Scenario) {
	for _, n := range sc.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, d := range sc.Dropped {
		fmt.Fprintf(w, "dropped job %s (queue %s): %v\n", d.Job, d.Queue, d.Reason)
	}
}

// printSiteReport prints the site files' report, each note under the
// file whose value stands, and the overrides of final keys that were
// ignored.
func printSiteReport(w io.Writer, sc *scenario.Scenario) {
	if sc.Site == nil {
		return
	}
	byFile := map[string]*queue.ConfigReport{}
	for _, n := range sc.SiteReport.Notes {
		f := sc.Site.Source[n.Key]
		if byFile[f] == nil {
			byFile[f] = &queue.ConfigReport{}
		}
		byFile[f].Add(n)
	}
	for _, f := range append(slices.Clone(sc.Site.Files), scenario.OverrideSource) {
		if r := byFile[f]; r != nil {
			printConfigReport(w, f, *r)
		}
	}
	for _, o := range sc.Site.Ignored {
		fmt.Fprintf(w, "%s: %s=%s ignored: %s marks it final (Hadoop's Configuration keeps the final value)\n", o.File, o.Key, o.Value, o.KeptFrom)
	}
}

func printSimulation(w io.Writer, sc *scenario.Scenario) {
	tasks := 0
	for _, j := range sc.Jobs {
		tasks += len(j.Tasks)
	}
	fmt.Fprintf(w, "nodes %d, applications %d, tasks %d\n", len(sc.Nodes), len(sc.Jobs), tasks)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "job\tam\tqueue\tuser\tstart ms\ttasks\tdeadline ms")
	for _, j := range sc.Jobs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\n", j.ID, j.AMType, j.Queue, j.User, j.Start, len(j.Tasks), j.Deadline)
	}
	tw.Flush()
}

func printSummary(w io.Writer, r *metrics.Run, track string, wall time.Duration) {
	s := report.Summarize(r)
	rate := 0.0
	if wall > 0 {
		rate = float64(r.End) / 1000 / wall.Seconds()
	}
	fmt.Fprintf(w, "%s scheduler: %.1f simulated hours in %.1f s wall (%.0f simulated s per wall s), %d events\n",
		s.Scheduler, s.SimulatedHours, wall.Seconds(), rate, s.Events)
	if r.Stalled {
		fmt.Fprintf(w, "STALLED: nothing could progress after %s (simulated); the run stopped at %s with %d jobs unfinished\n",
			clock(r.StalledSince), clock(r.End), r.Unfinished)
	}
	fmt.Fprintf(w, "jobs %d (finished %d), containers %d, marked for preemption %d, preempted %d, lost %d", s.Jobs, s.Finished, s.Containers, s.Marked, s.Preempted, s.Lost)
	if r.LostWithAM > 0 {
		fmt.Fprintf(w, " (%d of them with their application's AM)", r.LostWithAM)
	}
	fmt.Fprintln(w)
	if n, list := report.NeverLaunched(r); n > 0 {
		fmt.Fprintf(w, "jobs whose AM never launched (not in jobruntime.csv): %s\n", list)
	}
	fmt.Fprintf(w, "reservations %d: accepted %d, removed by replanning %d (follower runs that replanned or resized %d); deadlines met %d\n\n",
		s.Reservations, s.Accepted, s.Removed, s.Replans, s.DeadlinesMet)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "queue\tjobs\tfinished\twait mean s\twait p95 s\truntime mean s\truntime p95 s\tused GB\t%s GB\tmarked\tpreempted\t\n", s.ShareLabel)
	for _, q := range s.Queues {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t%d\t\n", q.Queue, q.Jobs, q.Finished, q.WaitMean, q.WaitP95, q.RunMean, q.RunP95, q.MeanUsedGB, q.MeanGuaranteedGB, q.Marked, q.Preempted)
	}
	tw.Flush()
	if track == "" {
		return
	}
	fmt.Fprintln(w, "\ntracked jobs:")
	want := map[string]bool{}
	for _, id := range strings.Split(track, ",") {
		want[strings.TrimSpace(id)] = true
	}
	for _, j := range r.Jobs {
		if want[j.ID] {
			fmt.Fprintf(w, "  %s queue %s ran in %s: submitted %d, AM %d, first task %d, finished %d, containers %d, preempted %d, lost %d, reservation %q\n",
				j.ID, j.Queue, j.RanIn, j.Submitted, j.AMStarted, j.FirstTask, j.Finished, j.Containers, j.Preempted, j.Lost, j.Reservation)
			delete(want, j.ID)
		}
	}
	for id := range want {
		fmt.Fprintf(w, "  %s: no such job\n", id)
	}
}
