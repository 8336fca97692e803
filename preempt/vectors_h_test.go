package preempt_test

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/preempt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mockResource parses the mock framework's resource: "m" is YARN's
// createResource(m) (vcores 1 when m > 0), "m:v[:res1]" is explicit.
func mockResource(t *testing.T, s string) berth.Resource {
	t.Helper()
	parts := strings.Split(s, ":")
	var vals []int64
	for _, p := range parts {
		v, err := strconv.ParseInt(p, 10, 64)
		require.NoError(t, err, s)
		vals = append(vals, v)
	}
	switch len(vals) {
	case 1:
		return berth.FromMemory(vals[0])
	case 2:
		return berth.New(vals[0], vals[1])
	default:
		return berth.NewWithExtras(vals[0], vals[1], berth.Quantity{Name: "res1", Value: vals[2]})
	}
}

type hVector struct {
	id, name, rc, conf, nodes, queues, apps string
	want                                    map[string]int
	labels                                  string // H.1 only
}

// loadVectors reads a vector file: lines of fields separated by " | ",
// the last "appN=count,...", the partitions after conf when labelled.
func loadVectors(t *testing.T, file string, labelled bool) []hVector {
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	fields := 8
	if labelled {
		fields = 9
	}
	var out []hVector
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		fs := strings.Split(line, " | ")
		require.Len(t, fs, fields, line)
		v := hVector{id: fs[0], name: fs[1], rc: fs[2], conf: fs[3], want: map[string]int{}}
		if labelled {
			v.labels, fs = fs[4], append(fs[:4:4], fs[5:]...)
		}
		v.nodes, v.queues, v.apps = fs[4], fs[5], fs[6]
		for _, w := range strings.Split(fs[7], ",") {
			k, n, _ := strings.Cut(w, "=")
			c, err := strconv.Atoi(n)
			require.NoError(t, err)
			v.want[k] = c
		}
		out = append(out, v)
	}
	require.NoError(t, sc.Err())
	return out
}

// partEntry is one partition's "[guaranteed max used pending [reserved]]"
// in a queue of the mock framework ("" the default partition).
var partEntry = regexp.MustCompile(`(\w*)=\[([^\]]*)\]`)

// newWorld is the mock framework's world (YARN's
// ProportionalCapacityPreemptionPolicyMockFramework) as a real scheduler:
// queues with absolute guarantees and maximums per partition, each app's
// containers placed on the named nodes in order with their labels
// (reservations made by heartbeats on a node too small; an unlabelled
// container on a labelled node borrows it), and each leaf's pending beyond
// its reservations, per partition, asked for by carrier applications. The
// caller adds the nodes.
func (v hVector) newWorld(t *testing.T) *capWorld {
	w := &capWorld{rc: berth.MemoryCalculator{}}
	if v.rc == "drc" {
		w.rc = berth.DominantCalculator{}
	}
	_, memOnly := w.rc.(berth.MemoryCalculator)
	type qrow struct {
		q                *capQueue
		depth            int
		pending, reserve map[string]berth.Resource
	}
	var rows []qrow
	byName := map[string]*capQueue{}
	for _, item := range strings.Split(v.queues, ";") {
		d := len(item) - len(strings.TrimLeft(item, "-"))
		item = item[d:]
		name, _, _ := strings.Cut(item, "(")
		q := &capQueue{path: name, parts: map[string]capPart{}}
		r := qrow{q: q, depth: d, pending: map[string]berth.Resource{}, reserve: map[string]berth.Resource{}}
		entries := partEntry.FindAllStringSubmatch(item, -1)
		require.NotEmpty(t, entries, item)
		for _, m := range entries {
			label, vals := m[1], strings.Fields(m[2])
			require.GreaterOrEqual(t, len(vals), 4, item)
			guar, max, used := mockResource(t, vals[0]), mockResource(t, vals[1]), mockResource(t, vals[2])
			r.pending[label] = mockResource(t, vals[3])
			if len(vals) > 4 {
				r.reserve[label] = mockResource(t, vals[4])
			}
			if memOnly {
				// The mock framework's createResource(m) has one vcore;
				// capacities then do not add up in vcores, which the
				// memory calculator ignores but the configuration checks.
				guar.VCores, max.VCores, used.VCores = guar.Memory, max.Memory, used.Memory
			}
			if label == "" {
				q.guar, q.max = guar, max
			} else if !guar.IsZero() || !max.IsZero() {
				q.parts[label] = capPart{guar: guar, max: max, used: used}
			}
		}
		if d > 0 {
			for i := len(rows) - 1; i >= 0; i-- {
				if rows[i].depth == d-1 {
					q.path = rows[i].q.path + "." + name
					rows[i].q.children = append(rows[i].q.children, q)
					break
				}
			}
		}
		byName[name] = q
		byName[q.path] = q
		rows = append(rows, r)
	}
	w.root = rows[0].q
	for i, a := range strings.Split(v.apps, ";") {
		qn, tuples, _ := strings.Cut(strings.TrimSpace(a), " ")
		q := byName[qn]
		require.NotNil(t, q, qn)
		app := capApp{id: fmt.Sprintf("app%d", i+1), queue: q.path}
		for j, tu := range strings.Split(strings.Trim(tuples, "()"), ")(") {
			f := strings.Split(tu, ",")
			require.Len(t, f, 6, tu)
			prio, err := strconv.Atoi(f[0])
			require.NoError(t, err)
			n, err := strconv.Atoi(f[4])
			require.NoError(t, err)
			g := capGroup{node: f[2], size: mockResource(t, f[1]), count: n, label: f[3], reserved: f[5] == "true"}
			if j == 0 && !g.reserved {
				app.am = true
			}
			app.priority = int32(prio)
			app.groups = append(app.groups, g)
		}
		w.apps = append(w.apps, app)
	}
	for _, r := range rows {
		if len(r.q.children) > 0 {
			continue
		}
		labels := make([]string, 0, len(r.pending))
		for l := range r.pending {
			labels = append(labels, l)
		}
		slices.Sort(labels) // carriers in a fixed order
		for _, l := range labels {
			if extra := r.pending[l].Sub(r.reserve[l]); !extra.IsZero() && !extra.AnyNegative() {
				w.carriers = append(w.carriers, capCarrier{queue: r.q.path, total: extra, label: l})
			}
		}
	}
	return w
}

// capWorld builds a default-partition vector's world: nodes with their
// totals (the root's guarantee when none is given).
func (v hVector) capWorld(t *testing.T) *capWorld {
	w := v.newWorld(t)
	for _, n := range strings.Split(strings.TrimSuffix(v.nodes, ";"), ";") {
		id, rest, _ := strings.Cut(n, "=")
		capRes := w.root.guar
		if _, res, ok := strings.Cut(rest, "res="); ok {
			capRes = mockResource(t, res)
		}
		if _, ok := w.rc.(berth.MemoryCalculator); ok {
			capRes.VCores = capRes.Memory // room for <m,1> containers
		}
		w.nodes = append(w.nodes, capacity.NodeSpec{ID: strings.TrimSpace(id), Rack: "/r", Capability: capRes})
	}
	return w
}

// TestVectorsH runs the default-partition mock-framework vectors against
// the real capacity scheduler.
func TestVectorsH(t *testing.T) {
	vs := loadVectors(t, "testdata/h_vectors.txt", false)
	require.Len(t, vs, 8)
	for _, v := range vs {
		t.Run(v.id+"_"+v.name, func(t *testing.T) { v.run(t, v.capWorld(t)) })
	}
}

// run builds w, runs one round of the policy as the mock framework
// configures it (conf "reserved": the reserved-container selector;
// "disable=<queue>": that queue's preemption disabled), and checks the
// containers marked per application and per application and node.
func (v hVector) run(t *testing.T, w *capWorld) {
	s, _ := w.build(t)
	cfg := preempt.DefaultProportionalConfig()
	cfg.TotalPreemptionPerRound = 1
	cfg.NaturalTerminationFactor = 1
	cfg.MaxWaitBeforeKill = 10000
	cfg.SelectBasedOnReservedContainers = v.conf == "reserved"
	if q, ok := strings.CutPrefix(v.conf, "disable="); ok {
		yes := true
		cfg.Queues = map[string]preempt.QueuePreemption{q: {DisablePreemption: &yes}}
	}
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
	require.NoError(t, err)
	rep, err := p.Round(0)
	require.NoError(t, err)
	got := map[string]int{}
	for _, d := range rep.Decisions {
		got[d.App]++
		got[d.App+"@"+d.Node]++
	}
	for k, n := range v.want {
		assert.Equal(t, n, got[k], k)
	}
	require.NoError(t, s.Check())
}
