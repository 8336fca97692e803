package compare

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/berthsched/berth/examples/sim/scenario"
)

// Shard is one part of a comparison run on its own machine: variants
// whose index is Index modulo Count. The zero Shard is the whole.
type Shard struct {
	Index, Count int
}

// ParseShard reads "i/n" (0 ≤ i < n), as a Kubernetes Indexed Job's
// JOB_COMPLETION_INDEX or a Slurm array's SLURM_ARRAY_TASK_ID gives i.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, &scenario.InputError{File: "flags", Field: "shard", Value: s, Reason: "must be i/n with 0 ≤ i < n"}
	}
	return Shard{Index: i, Count: n}, nil
}

// Select returns the shard's variants (all for the zero Shard).
func (s Shard) Select(vs []Variant) []Variant {
	if s.Count <= 1 {
		return vs
	}
	var out []Variant
	for _, v := range vs {
		if v.Index%s.Count == s.Index {
			out = append(out, v)
		}
	}
	return out
}

// String writes the shard as ParseShard reads it.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Outcome is one variant's run.
type Outcome struct {
	Variant
	Run *metrics.Run
	// Wall is how long the run took (host time, not part of any output).
	Wall time.Duration
}

// Options tune Run.
type Options struct {
	// Workers runs this many variants at once (default GOMAXPROCS: one
	// per core). Each run is single-threaded and independent.
	Workers int
	// Scenario is passed to every run (its Progress is not: runs are
	// concurrent).
	Scenario scenario.Options
	// Done, when set, is called after each run, from one goroutine at a
	// time.
	Done func(o *Outcome)
}

// Run runs the variants on Workers goroutines and returns their outcomes
// in the variants' order. The runs share nothing (each builds its own
// clock, scheduler and plans), so every outcome is the one a run alone
// gives. The first error stops further runs and is returned, naming its
// variant.
func Run(vs []Variant, o Options) ([]Outcome, error) {
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(vs))
	so := o.Scenario
	so.Progress = nil
	out := make([]Outcome, len(vs))
	next := make(chan int)
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	failed := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return firstErr != nil
	}
	for range workers {
		wg.Go(func() {
			for i := range next {
				start := time.Now()
				r, err := vs[i].Scenario.Run(so)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("variant %q: %w", vs[i].Name, err)
				}
				out[i] = Outcome{Variant: vs[i], Run: r, Wall: time.Since(start)}
				if err == nil && o.Done != nil {
					o.Done(&out[i])
				}
				mu.Unlock()
			}
		})
	}
	for i := range vs {
		if failed() {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}
