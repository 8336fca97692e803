package trace

import (
	"fmt"

	"github.com/berthsched/berth"
)

// AM types, SLS's am.type values (yarn.sls.am.type.<name> in sls-runner.xml).
const (
	AMMapReduce = "mapreduce"
	AMStream    = "stream"
)

// Task types of the MapReduce AM (SLS's MRAMSimulator.MAP_TYPE and
// REDUCE_TYPE).
const (
	TypeMap    = "map"
	TypeReduce = "reduce"
)

// SLS defaults (SLSConfiguration, TaskContainerDefinition).
const (
	DefaultUser           = "default"
	DefaultMapPriority    = 20
	DefaultReducePriority = 10
	DefaultExecutionType  = "GUARANTEED"
)

// Defaults are the sls-runner.xml values the readers fill in where a trace
// leaves a field out.
type Defaults struct {
	// Container is a task's resource (yarn.sls.container.memory.mb and
	// .vcores, default <1024, 1>).
	Container berth.Resource
	// AM is the AM container's resource (yarn.sls.am.container.memory and
	// .vcores, default <1024, 1>).
	AM berth.Resource
	// Node is a node's resource (yarn.sls.nm.memory.mb and .vcores,
	// default <10240, 10>).
	Node berth.Resource
}

// DefaultDefaults returns SLS's defaults.
func DefaultDefaults() Defaults {
	return Defaults{
		Container: berth.New(1024, 1),
		AM:        berth.New(1024, 1),
		Node:      berth.New(10240, 10),
	}
}

// Task is one container of a job: SLS's TaskContainerDefinition, one per
// container (a task with "count": n becomes n Tasks).
type Task struct {
	// Host is the host the container asks for, "/rack/host" as in
	// container.host; "" asks for any host.
	Host string
	// Duration is how long the container runs once started, ms
	// (container.duration.ms, duration.ms, or container.end.ms −
	// container.start.ms).
	Duration berth.Duration
	// Resource is the container's size (container.memory-mb,
	// container.vcores; the default container otherwise).
	Resource berth.Resource
	// Priority is the request priority (container.priority, default 20).
	Priority int32
	// Type is "map" or "reduce" for the MapReduce AM (container.type,
	// default "map").
	Type string
	// ExecutionType is GUARANTEED or OPPORTUNISTIC
	// (container.execution.type); carried, the simulator runs all as
	// GUARANTEED.
	ExecutionType string
	// AllocationID is container.allocation.id (default −1).
	AllocationID int64
	// RequestDelay delays the ask after the AM starts, ms
	// (container.request.delay, default 0).
	RequestDelay berth.Duration
}

// Job is one application of a trace: SLS's AMDefinition.
type Job struct {
	// ID is the job id (job.id, Rumen's jobID, SYNTH's generated name).
	ID string
	// AMType is "mapreduce" or "stream" (am.type).
	AMType string
	// User submitting (job.user, default "default").
	User string
	// Queue the job is submitted to (job.queue.name).
	Queue string
	// Start is the trace submission time, ms from the trace's start
	// (job.start.ms).
	Start berth.Time
	// End is the trace finish time (job.end.ms), 0 when unknown; the
	// streaming AM runs for End − Start.
	End berth.Time
	// AMResource is the AM container (am.memory-mb, am.vcores; the
	// default AM container otherwise).
	AMResource berth.Resource
	// LabelExpression is job.label.expression: the application's node
	// label expression, for its AM and its tasks.
	LabelExpression string
	// Tasks are the job's containers in trace order.
	Tasks []Task
	// Deadline, when positive, makes the job a deadline job: the host
	// reserves its tasks between Start and Deadline through the
	// reservation system before running it (SYNTH's chance_of_reservation
	// and deadline_factor).
	Deadline berth.Time
	// Params are SYNTH's free job parameters.
	Params map[string]string
}

// Node is one node of a node file.
type Node struct {
	// ID is the host name (the "node" field).
	ID string
	// Rack is the network location, "/" + the "rack" field.
	Rack string
	// Resource is the node's capability ("resource", or the default node).
	Resource berth.Resource
	// Labels are the node's labels ("labels", see ParseLabels); the
	// node's partition is Partition's.
	Labels []Label
}

// Partition is the node label the node joins the cluster with: its only
// label, or "" (the default partition) when it lists none or several
// (YARN puts a node in one partition and refuses several labels on a
// host, YARN-2694; the node then runs unlabelled).
func (n Node) Partition() string {
	if len(n.Labels) == 1 {
		return n.Labels[0].Name
	}
	return ""
}

// Topology is the size of a generated cluster: SLS's "num.nodes" /
// "num.racks" header record, or SYNTH's num_nodes / nodes_per_rack.
type Topology struct {
	Nodes int
	Racks int
}

// Trace is what a job reader returns.
type Trace struct {
	// Jobs in the order of the file (SYNTH: by submission time).
	Jobs []Job
	// Topology is set when the trace describes a generated cluster.
	Topology *Topology
	// Dropped are the jobs left out, as SLS leaves them out (a Rumen job
	// with a task without attempts, a generated job SLS cannot run).
	Dropped []Drop
	// Notes tell how the input was read where a user may not expect it.
	Notes []Note
}

// Hosts returns the distinct "/rack/host" names the trace's tasks ask for,
// in first-seen order: the cluster SLS builds when no node file is given.
func (t *Trace) Hosts() []string {
	seen := map[string]bool{}
	var out []string
	for _, j := range t.Jobs {
		for _, k := range j.Tasks {
			if k.Host != "" && !seen[k.Host] {
				seen[k.Host] = true
				out = append(out, k.Host)
			}
		}
	}
	return out
}

// Containers counts the trace's task containers.
func (t *Trace) Containers() int {
	n := 0
	for _, j := range t.Jobs {
		n += len(j.Tasks)
	}
	return n
}

// Drop is a job a reader or the simulator left out, as SLS leaves it out,
// and why.
type Drop struct {
	// Job is the job's id ("" when its record has none); Queue its queue
	// when known.
	Job, Queue string
	// Reason says why, naming the file, the record and the field where
	// they are known.
	Reason error
}

// Note is something a reader did that the user should know of: an input
// read as SLS reads it that a user may not expect, or one the simulation
// does not model.
type Note struct {
	File   string
	Record int    // 1-based; 0 for the file as a whole
	Field  string // as the file spells it
	Text   string
}

// String formats the note as "file: record N: field: text".
func (n Note) String() string {
	s := n.File + ": "
	if n.Record > 0 {
		s += fmt.Sprintf("record %d: ", n.Record)
	}
	if n.Field != "" {
		s += n.Field + ": "
	}
	return s + n.Text
}
