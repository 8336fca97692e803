package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/berthsched/berth/examples/sim/compare"
	"github.com/berthsched/berth/examples/sim/scenario"
)

// loadSweep reads --compare: a comparison file (.json), or a list of
// schedulers and scheduler files. It returns the sweep and the directory
// its file paths are relative to.
func loadSweep(spec string) (*compare.Sweep, string, error) {
	if strings.HasSuffix(strings.ToLower(spec), ".json") {
		b, err := os.ReadFile(spec)
		if err != nil {
			return nil, "", err
		}
		s, err := compare.ParseSweep(b, spec)
		return s, filepath.Dir(spec), err
	}
	s := &compare.Sweep{}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		switch {
		case item == "capacity" || item == "fair":
			s.Variants = append(s.Variants, compare.VariantSpec{Name: item, Scheduler: item})
		case strings.HasSuffix(strings.ToLower(item), ".xml"):
			b, err := os.ReadFile(item)
			if err != nil {
				return nil, "", err
			}
			sched := "capacity"
			if bytes.Contains(b, []byte("<allocations")) {
				sched = "fair"
			}
			name := strings.TrimSuffix(filepath.Base(item), filepath.Ext(item))
			s.Variants = append(s.Variants, compare.VariantSpec{Name: name, Scheduler: sched, SchedulerConf: item})
		default:
			return nil, "", &scenario.InputError{File: "flags", Field: "compare", Value: item,
				Reason: "give a comparison file (.json), or schedulers (capacity, fair) and scheduler files (.xml), comma-separated"}
		}
	}
	// Through ParseSweep's checks (names, duplicates).
	b, err := json.Marshal(s)
	if err != nil {
		return nil, "", err
	}
	s, err = compare.ParseSweep(b, "--compare")
	return s, ".", err
}

// runCompare runs the trace under every configuration of --compare (or
// the --shard's part of them) on --workers cores and writes one
// directory per configuration and, unless sharded, the comparison.
func runCompare(o *options, stdout, stderr io.Writer) error {
	sweep, dir, err := loadSweep(o.compare)
	if err != nil {
		return err
	}
	var shard compare.Shard
	if o.shard != "" {
		if shard, err = compare.ParseShard(o.shard); err != nil {
			return err
		}
	}
	first, title, _, err := o.inputs()
	if err != nil {
		return err
	}
	base := func(sched string) (scenario.Inputs, error) {
		b := *o
		if sched != "" {
			b.scheduler = sched
		}
		if sched != "" && sched != first.Scheduler {
			// The flags' file is the other scheduler's: find this one's as
			// the configuration says.
			b.schedulerConf = ""
		}
		in, _, _, err := b.inputs()
		in.StrictConfig = o.strictConfig
		return in, err
	}
	open := func(path string) (scenario.File, error) {
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		return readFile(path)
	}
	vs, fp, err := sweep.Resolve(base, open)
	if err != nil {
		return err
	}
	h := compare.Header{Comparison: fp, Title: title, Description: sweep.Description, Total: len(vs)}
	mine := shard.Select(vs)
	workers := o.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	fmt.Fprintf(stderr, "running %d of %d configurations on %d workers\n", len(mine), len(vs), min(workers, len(mine)))
	start := time.Now()
	outs, err := compare.Run(mine, compare.Options{Workers: workers, Done: func(oc *compare.Outcome) {
		fmt.Fprintf(stderr, "  %s: %.1f s\n", oc.Name, oc.Wall.Seconds())
	}})
	if err != nil {
		return err
	}
	wall := time.Since(start)
	files, err := comparisonFiles(h, outs, o.shard == "")
	if err != nil {
		return err
	}
	if err := writeTree(o.outputDir, files); err != nil {
		return err
	}
	printComparison(stdout, outs, wall, min(workers, len(mine)))
	if o.shard != "" {
		fmt.Fprintf(stdout, "\npart %s written to %s; build the comparison with: sim --merge --output-dir=DIR <the parts' directories>\n", shard, o.outputDir)
		return nil
	}
	fmt.Fprintf(stdout, "\ncomparison: %s\n", filepath.Join(o.outputDir, compare.ReportFile))
	return nil
}

// runMerge builds the comparison from the parts --shard runs wrote.
func runMerge(o *options, dirs []string, stdout io.Writer) error {
	if len(dirs) == 0 {
		return errors.New("--merge needs the output directories of the --shard runs as arguments")
	}
	if o.compare != "" || o.shard != "" {
		return errors.New("--merge takes the parts' directories only (not --compare or --shard)")
	}
	h, outs, err := compare.ReadParts(dirs)
	if err != nil {
		return err
	}
	files, err := comparisonFiles(h, outs, true)
	if err != nil {
		return err
	}
	if err := writeTree(o.outputDir, files); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %d configurations from %d directories\ncomparison: %s\n", len(outs), len(dirs), filepath.Join(o.outputDir, compare.ReportFile))
	return nil
}

// comparisonFiles renders each configuration's outputs and part in its
// directory and, with whole, the comparison's report.
func comparisonFiles(h compare.Header, outs []compare.Outcome, whole bool) (map[string][]byte, error) {
	files := map[string][]byte{}
	for i := range outs {
		oc := &outs[i]
		fs, err := outputs(oc.Run, h.Title+": "+oc.Name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", oc.Name, err)
		}
		for name, b := range fs {
			files[oc.Name+"/"+name] = b
		}
		var b bytes.Buffer
		if err := compare.EncodePart(&b, h, oc); err != nil {
			return nil, err
		}
		files[oc.Name+"/"+compare.PartFile] = b.Bytes()
	}
	if whole {
		var b bytes.Buffer
		if err := compare.WriteReport(&b, h, outs); err != nil {
			return nil, fmt.Errorf("%s: %w", compare.ReportFile, err)
		}
		files[compare.ReportFile] = b.Bytes()
	}
	return files, nil
}

// printComparison prints each configuration's run and the wall time
// against the runs' sum.
func printComparison(w io.Writer, outs []compare.Outcome, wall time.Duration, workers int) {
	var sum, longest time.Duration
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "configuration\trun s\tjobs\tfinished\tpreempted\tlost\t")
	for _, oc := range outs {
		sum += oc.Wall
		longest = max(longest, oc.Wall)
		finished, preempted, lost := 0, 0, 0
		for _, j := range oc.Run.Jobs {
			if j.Finished > 0 {
				finished++
			}
			preempted += j.Preempted
			lost += j.Lost
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%d\t%d\t%d\t%d\t\n", oc.Name, oc.Wall.Seconds(), len(oc.Run.Jobs), finished, preempted, lost)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d configurations on %d workers: %.1f s wall for %.1f s of runs (longest %.1f s), %.2f× faster than one after another\n",
		len(outs), workers, wall.Seconds(), sum.Seconds(), longest.Seconds(), sum.Seconds()/max(wall.Seconds(), 1e-9))
}
