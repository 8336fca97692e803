package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/examples/sim/engine"
	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/berthsched/berth/examples/sim/trace"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/queue"
)

// KeyAMTypePrefix starts SLS's keys naming the AM simulator class of each
// am.type: yarn.sls.am.type.<type> = <class> (SLSConfiguration.AM_TYPE_PREFIX).
const KeyAMTypePrefix = "yarn.sls.am.type."

// SLS's AM simulator classes, and the built-in AM each runs as.
const (
	classMRAM     = "org.apache.hadoop.yarn.sls.appmaster.MRAMSimulator"
	classStreamAM = "org.apache.hadoop.yarn.sls.appmaster.StreamAMSimulator"
	classDAGAM    = "org.apache.hadoop.yarn.sls.appmaster.DAGAMSimulator"
)

// amTypes returns the am.type → AM class map: SLS's sls-runner.xml
// defaults (mapreduce and stream), overridden and extended by the site's
// yarn.sls.am.type.<type> keys.
func amTypes(site *Site) map[string]string {
	m := map[string]string{trace.AMMapReduce: classMRAM, trace.AMStream: classStreamAM}
	if site != nil {
		for k, v := range site.Values {
			if t, ok := strings.CutPrefix(k, KeyAMTypePrefix); ok && t != "" {
				m[t] = v
			}
		}
	}
	return m
}

// resolveAMTypes maps each job's am.type to the AM it runs as, through
// the site's classes, as SLS's AMRunner does. A type no key names is
// dropped (SLS cannot create its AM: it logs the failure and goes on); a
// class Berth does not model (DAGAMSimulator, a user's own) refuses the
// run, so no job silently runs as another kind of AM.
func (sc *Scenario) resolveAMTypes(site *Site) error {
	types := amTypes(site)
	siteName := "the default AM types (no --conf)"
	if site != nil {
		siteName = site.File
	}
	kept := sc.Jobs[:0]
	for _, j := range sc.Jobs {
		class, ok := types[j.AMType]
		switch {
		case !ok:
			sc.drop(j, fmt.Errorf("am.type %q: no %s%s key in %s names its AM simulator", j.AMType, KeyAMTypePrefix, j.AMType, siteName))
			continue
		case class == classMRAM:
			j.AMType = trace.AMMapReduce
		case class == classStreamAM:
			j.AMType = trace.AMStream
		case class == classDAGAM:
			return &InputError{File: siteName, Field: KeyAMTypePrefix + j.AMType, Value: class,
				Reason: fmt.Sprintf("job %s: SLS's DAG AM (container.allocation.id and container.request.delay ordering) is not modelled; map the type to MRAMSimulator or StreamAMSimulator to run it as one", j.ID)}
		default:
			return &InputError{File: siteName, Field: KeyAMTypePrefix + j.AMType, Value: class,
				Reason: fmt.Sprintf("job %s: the AM simulator class is not one Berth models (MRAMSimulator, StreamAMSimulator)", j.ID)}
		}
		if j.AMType == trace.AMStream && j.End <= j.Start {
			sc.drop(j, fmt.Errorf("a stream job runs until its end time, which must follow its start (start %d ms, end %d ms)", j.Start, j.End))
			continue
		}
		kept = append(kept, j)
	}
	sc.Jobs = kept
	return nil
}

// drop leaves a job out with the reason.
func (sc *Scenario) drop(j trace.Job, reason error) {
	sc.Dropped = append(sc.Dropped, trace.Drop{Job: j.ID, Queue: j.Queue, Reason: reason})
}

// admitJobs leaves out the jobs YARN would refuse, as SLS's runs lose
// them: a queue the scheduler does not know, a parent queue, a queue the
// user may not submit to, an AM or task ask larger than the maximum
// allocation. Each job is submitted, and its asks made, on a scheduler
// built from the same configuration and nodes that nothing else uses; a
// job for a reservable (plan) queue is left to the reservation system.
func (sc *Scenario) admitJobs() error {
	clock := berth.NewManualClock(0)
	var s engine.Scheduler
	plans := map[string]bool{}
	switch sc.in.Scheduler {
	case "capacity":
		probe := sc.capCfg // the probe's own clock, not left in the scenario's configuration
		probe.Clock = clock
		cs, err := capacity.New(probe)
		if err != nil {
			return &InputError{File: sc.in.SchedulerConf.Name, Reason: "capacity scheduler refused the configuration", Err: err}
		}
		for _, q := range cs.Snapshot().Queues.Queues {
			if q.Kind == queue.KindPlan {
				p := q.Path.String()
				plans[p], plans[p[strings.LastIndexByte(p, '.')+1:]] = true, true
			}
		}
		s = cs
	case "fair":
		cfg := fair.DefaultConfig()
		cfg.Allocation = sc.fairAF
		cfg.Clock = clock
		fs, err := fair.New(cfg)
		if err != nil {
			return &InputError{File: sc.in.SchedulerConf.Name, Reason: "fair scheduler refused the allocation file", Err: err}
		}
		for _, q := range fs.Snapshot().Queues {
			if q.Plan {
				plans[q.Path], plans[strings.TrimPrefix(q.Path, "root.")] = true, true
			}
		}
		s = fs
	}
	for _, n := range sc.Nodes {
		if err := s.AddNode(queue.NodeSpec{ID: n.ID, Rack: n.Rack, Capability: n.Resource, Label: n.Partition()}); err != nil {
			return &InputError{File: "nodes", Field: "node", Value: n.ID, Reason: "the scheduler refused the node", Err: err}
		}
	}
	verdicts := map[string]error{} // by queue, user and asks: one probe each
	kept := sc.Jobs[:0]
	for _, j := range sc.Jobs {
		if plans[j.Queue] {
			kept = append(kept, j)
			continue
		}
		asks := probeAsks(j)
		key := fmt.Sprint(j.Queue, "\x00", j.User, "\x00", j.AMResource, "\x00", j.LabelExpression, asks)
		err, seen := verdicts[key]
		if !seen {
			err = probe(s, fmt.Sprintf("probe_%d", len(verdicts)), j, asks)
			verdicts[key] = err
		}
		if err != nil {
			sc.drop(j, err)
			continue
		}
		kept = append(kept, j)
	}
	sc.Jobs = kept
	if cs, ok := s.(*capacity.Scheduler); ok {
		sc.autoLeaves = createdLeaves(cs, sc.capCfg)
	}
	return nil
}

// createdLeaves lists, in tree order, the leaves of s that cfg does not
// configure: those the probes' submissions auto-created, which the run's
// scheduler will create too.
func createdLeaves(s *capacity.Scheduler, cfg capacity.Config) []string {
	configured := map[string]bool{}
	var walk func(path string, q *capacity.QueueConfig)
	walk = func(path string, q *capacity.QueueConfig) {
		configured[path] = true
		for i := range q.Children {
			walk(path+"."+q.Children[i].Name, &q.Children[i])
		}
	}
	walk(cfg.Root.Name, &cfg.Root)
	var out []string
	for _, q := range s.Snapshot().Queues.Queues {
		if p := q.Path.String(); q.Kind == queue.KindLeaf && !configured[p] {
			out = append(out, p)
		}
	}
	return out
}

// probeAsks lists a job's distinct task asks, one container each.
func probeAsks(j trace.Job) []queue.Ask {
	var asks []queue.Ask
	for _, t := range j.Tasks {
		a := queue.Ask{Priority: t.Priority, ResourceName: queue.AnyResource, Capability: t.Resource, Count: 1}
		if !slices.ContainsFunc(asks, func(b queue.Ask) bool {
			return b.Priority == a.Priority && b.Capability.Equal(a.Capability)
		}) {
			asks = append(asks, a)
		}
	}
	return asks
}

// probe submits the job as id, makes its asks and finishes it, returning
// the scheduler's refusal, if any.
func probe(s engine.Scheduler, id string, j trace.Job, asks []queue.Ask) error {
	if _, err := s.SubmitApp(queue.AppSpec{ID: id, Queue: j.Queue, User: j.User, AMResource: j.AMResource,
		NodeLabelExpression: j.LabelExpression}); err != nil {
		return fmt.Errorf("queue %s refused the job: %w", j.Queue, err)
	}
	defer s.FinishApp(id) //nolint:errcheck // the probe scheduler is thrown away
	if _, err := s.Allocate(id, asks, nil); err != nil {
		return fmt.Errorf("ask refused: %w", err)
	}
	return nil
}

// clusterLabels declares the node file's labels as the cluster's
// partitions (YARN's addToClusterNodeLabels, with the exclusivity the file
// gives) beside those the capacity scheduler's configuration names, and
// notes the nodes YARN would refuse a label list (several labels on one
// host, YARN-2694: such a node runs unlabelled) and, for the fair
// scheduler, that it has no partitions.
func clusterLabels(declared []capacity.NodeLabel, nodes []trace.Node, file, scheduler string) ([]capacity.NodeLabel, []trace.Note) {
	var notes []trace.Note
	out := slices.Clone(declared)
	byName := map[string]int{}
	for i, l := range out {
		byName[l.Name] = i
	}
	fromFile := map[string]bool{}
	perPart := map[string]int{}
	var several []string
	for _, nd := range nodes {
		for _, l := range nd.Labels {
			nl := capacity.NodeLabel{Name: l.Name, NonExclusive: !l.Exclusive}
			i, ok := byName[l.Name]
			switch {
			case !ok:
				byName[l.Name] = len(out)
				out = append(out, nl)
			case !fromFile[l.Name]:
				out[i] = nl // the file says the exclusivity; the configuration cannot
			case out[i] != nl:
				notes = append(notes, trace.Note{File: file, Field: "labels", Text: fmt.Sprintf(
					"node %s gives label %s another exclusivity than an earlier node: the first is kept", nd.ID, l)})
			}
			fromFile[l.Name] = true
		}
		if len(nd.Labels) > 1 {
			several = append(several, nd.ID)
		}
		if p := nd.Partition(); p != "" {
			perPart[p]++
		}
	}
	if len(several) > 0 {
		notes = append(notes, trace.Note{File: file, Field: "labels", Text: fmt.Sprintf(
			"%d nodes list several labels (%s): YARN puts a node in one partition and refuses several labels on a host, so they run unlabelled",
			len(several), strings.Join(several, ", "))})
	}
	if len(perPart) > 0 {
		var parts []string
		for _, p := range sortedNames(perPart) {
			parts = append(parts, fmt.Sprintf("%s: %d", p, perPart[p]))
		}
		text := "nodes in labelled partitions (" + strings.Join(parts, ", ") + ")"
		if scheduler == "fair" {
			text += "; the fair scheduler has no partitions (as YARN's): they run as any node"
		}
		notes = append(notes, trace.Note{File: file, Field: "labels", Text: text})
	}
	return out, notes
}

func sortedNames(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// InputNotes are the inputs' notes and the dropped jobs as the metrics
// record them (in the report's configuration table).
func (sc *Scenario) InputNotes() []metrics.ConfigNote {
	var out []metrics.ConfigNote
	for _, n := range sc.Notes {
		out = append(out, metrics.ConfigNote{File: n.File, Kind: "input", Key: n.Field, Detail: n.Text})
	}
	for _, d := range sc.Dropped {
		out = append(out, metrics.ConfigNote{Kind: "dropped job", Key: d.Job, Value: d.Queue, Detail: d.Reason.Error()})
	}
	return out
}
