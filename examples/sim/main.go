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
// With a trace it takes SLS's flags:
//
//	go run ./examples/sim --tracetype=SLS --tracelocation=jobs.json \
//	    --nodes=nodes.json --scheduler=capacity --scheduler-conf=capacity-scheduler.xml \
//	    --conf=sls-runner.xml --output-dir=out
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
// Preemption runs as the configuration says, as in YARN: under the
// capacity scheduler when yarn.resourcemanager.scheduler.monitor.enable is
// true (the policy's yarn.resourcemanager.monitor.capacity.preemption.*
// keys from the site file or capacity-scheduler.xml), under the fair
// scheduler when yarn.scheduler.fair.preemption is true.
//
// What the configuration files (the scheduler's file and the --conf site
// file) say that Berth does not model, or that no one knows (with the
// closest known key), is printed to stderr and listed in the report;
// --strict-config refuses to run on it. Site keys outside the simulator's
// namespaces (fs.*, hadoop.*, other daemons' yarn.* keys) are ignored
// without a note (see scenario.SiteReport). Every
// input is validated before the run starts; files are written to a
// temporary directory and moved into place, so a failed run leaves nothing
// half-written.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "sim:", err)
		os.Exit(1)
	}
}

type options struct {
	traceType, traceLocation, inputRumen, inputSLS string
	outputDir, nodes, trackJobs                    string
	printSimulation                                bool
	scheduler, schedulerConf, conf, nodeEvents     string
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

func parseFlags(args []string, stderr io.Writer) (*options, *flag.FlagSet, error) {
	o := &options{}
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.traceType, "tracetype", "", "trace type: SLS, RUMEN or SYNTH (SLS's --tracetype)")
	fs.StringVar(&o.traceLocation, "tracelocation", "", "trace files, comma-separated (SLS's --tracelocation)")
	fs.StringVar(&o.inputRumen, "input-rumen", "", "deprecated: --tracetype=RUMEN --tracelocation=FILES")
	fs.StringVar(&o.inputSLS, "input-sls", "", "deprecated: --tracetype=SLS --tracelocation=FILES")
	fs.StringVar(&o.outputDir, "output-dir", "sim-output", "output directory (SLS's --output-dir)")
	fs.StringVar(&o.nodes, "nodes", "", "node (topology) file (SLS's --nodes)")
	fs.StringVar(&o.trackJobs, "track-jobs", "", "job ids to report in detail, comma-separated (SLS's --track-jobs)")
	fs.BoolVar(&o.printSimulation, "print-simulation", false, "print the nodes and jobs before running (SLS's --print-simulation)")
	fs.StringVar(&o.scheduler, "scheduler", "capacity", "scheduler: capacity or fair")
	fs.StringVar(&o.schedulerConf, "scheduler-conf", "", "capacity-scheduler.xml or fair-scheduler.xml (required with a trace)")
	fs.StringVar(&o.conf, "conf", "", "yarn-site / sls-runner keys (Hadoop configuration XML)")
	fs.StringVar(&o.nodeEvents, "node-events", "", `node losses and returns: JSON [{"time.ms":..,"node"|"rack":..,"state":"down"|"up"}]`)
	fs.Int64Var(&o.seed, "seed", 0, "override a SYNTH trace's rand_seed (0: the file's)")
	fs.Int64Var(&o.endMS, "end-ms", 0, "stop the simulation at this simulated time in ms (0: when every job finished)")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress display")
	fs.BoolVar(&o.strictConfig, "strict-config", false, "refuse to run when the scheduler's file or the site file has keys Berth does not model or that no one knows")
	fs.StringVar(&o.writeDefault, "write-default-scenario", "", "write the embedded default scenario's files to this directory and exit")
	fs.StringVar(&o.compare, "compare", "", "run the trace under several configurations and compare them: a comparison file (JSON), or a comma-separated list of schedulers (capacity, fair) or scheduler files")
	fs.StringVar(&o.shard, "shard", "", "with --compare: run only part i/n of the configurations (0 ≤ i < n), for --merge")
	fs.BoolVar(&o.merge, "merge", false, "build the comparison from the output directories of --shard runs, given as arguments")
	fs.IntVar(&o.workers, "workers", 0, "with --compare: configurations run at once (0: one per core)")
	fs.Usage = func() { usage(fs) }
	if err := fs.Parse(args); err != nil {
		return nil, nil, err
	}
	if fs.NArg() > 0 && !o.merge {
		return nil, nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	return o, fs, nil
}

func readFile(name string) (scenario.File, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return scenario.File{}, err
	}
	return scenario.File{Name: name, Data: b}, nil
}

// inputs turns the flags into the scenario's inputs, reading every file.
func (o *options) inputs() (scenario.Inputs, string, error) {
	loc, typ := o.traceLocation, o.traceType
	if o.inputRumen != "" {
		loc, typ = o.inputRumen, "RUMEN"
	}
	if o.inputSLS != "" {
		loc, typ = o.inputSLS, "SLS"
	}
	if loc == "" {
		if o.schedulerConf != "" || o.nodes != "" || typ != "" {
			return scenario.Inputs{}, "", errors.New("--scheduler-conf, --nodes and --tracetype need --tracelocation (without it the default scenario runs)")
		}
		in := scenario.Default(o.scheduler)
		if o.seed != 0 {
			in.Seed = &o.seed
		}
		in.End = o.endMS
		return in, "Berth simulator: default scenario", nil
	}
	if typ == "" {
		return scenario.Inputs{}, "", errors.New("--tracelocation needs --tracetype (SLS, RUMEN or SYNTH)")
	}
	if o.schedulerConf == "" {
		return scenario.Inputs{}, "", errors.New("a trace needs --scheduler-conf (capacity-scheduler.xml or fair-scheduler.xml)")
	}
	in := scenario.Inputs{Scheduler: o.scheduler, TraceType: typ, End: o.endMS}
	var err error
	if in.SchedulerConf, err = readFile(o.schedulerConf); err != nil {
		return in, "", err
	}
	for _, name := range strings.Split(loc, ",") {
		f, err := readFile(strings.TrimSpace(name))
		if err != nil {
			return in, "", err
		}
		in.Traces = append(in.Traces, f)
	}
	for _, opt := range []struct {
		name string
		dst  **scenario.File
	}{{o.conf, &in.Site}, {o.nodes, &in.Nodes}, {o.nodeEvents, &in.NodeEvents}} {
		if opt.name == "" {
			continue
		}
		f, err := readFile(opt.name)
		if err != nil {
			return in, "", err
		}
		*opt.dst = &f
	}
	if o.seed != 0 {
		in.Seed = &o.seed
	}
	return in, "Berth simulator: " + loc, nil
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
		return errors.New("--shard and --workers go with --compare")
	}
	in, title, err := o.inputs()
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
	printConfigReport(stderr, in.SchedulerConf.Name, sc.ConfigReport)
	if in.Site != nil {
		printConfigReport(stderr, in.Site.Name, sc.SiteReport)
	}
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

// writeFiles writes the files into dir (created if missing), all or
// nothing: see writeTree.
func writeFiles(dir string, files map[string][]byte) error { return writeTree(dir, files) }

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
	fmt.Fprintf(w, "jobs %d (finished %d), containers %d, marked for preemption %d, preempted %d, lost %d\n", s.Jobs, s.Finished, s.Containers, s.Marked, s.Preempted, s.Lost)
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
