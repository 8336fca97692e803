package preempt_test

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/preempt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// h1Vector is a node-partition vector of YARN's mock framework: hVector's
// strings plus the labels.
type h1Vector struct {
	hVector
	labels string
}

func loadH1Vectors(t *testing.T) []h1Vector {
	f, err := os.Open("testdata/h1_vectors.txt")
	require.NoError(t, err)
	defer f.Close()
	var out []h1Vector
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		fs := strings.Split(line, " | ")
		require.Len(t, fs, 9, line)
		v := h1Vector{hVector: hVector{id: fs[0], name: fs[1], rc: fs[2], conf: fs[3], nodes: fs[5], queues: fs[6], apps: fs[7],
			want: map[string]int{}}, labels: fs[4]}
		for _, w := range strings.Split(fs[8], ",") {
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

// partEntry is one partition's "[guaranteed max used pending [reserved]]".
var partEntry = regexp.MustCompile(`(\w*)=\[([^\]]*)\]`)

// capWorld builds the vector's world: partitions of the given sizes with
// one node each (a node is its partition's size), queues with absolute
// guarantees and maximums per partition, each application's containers
// placed on the named nodes with their labels (an unlabelled container on a
// labelled node borrows it), and each leaf's extra demand per partition
// asked for by carrier applications.
func (v h1Vector) capWorld(t *testing.T) *capWorld {
	w := &capWorld{rc: berth.MemoryCalculator{}, zeroAMShare: true}
	if v.rc == "drc" {
		w.rc = berth.DominantCalculator{}
	}
	sizes := map[string]berth.Resource{}
	for _, l := range strings.Split(strings.TrimSuffix(v.labels, ";"), ";") {
		name, rest, _ := strings.Cut(l, "=")
		res, excl, _ := strings.Cut(rest, ",")
		sizes[name] = mockResource(t, res)
		if name != "" {
			w.labels = append(w.labels, capacity.NodeLabel{Name: name, NonExclusive: excl == "false"})
		}
	}
	for _, n := range strings.Split(strings.TrimSuffix(v.nodes, ";"), ";") {
		id, label, _ := strings.Cut(n, "=")
		capRes := sizes[label]
		if _, ok := w.rc.(berth.MemoryCalculator); ok {
			capRes.VCores = capRes.Memory
		}
		w.nodes = append(w.nodes, capacity.NodeSpec{ID: id, Rack: "/r", Capability: capRes, Label: label})
	}
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
		for _, m := range partEntry.FindAllStringSubmatch(item, -1) {
			label, vals := m[1], strings.Fields(m[2])
			require.GreaterOrEqual(t, len(vals), 4, item)
			guar, max := mockResource(t, vals[0]), mockResource(t, vals[1])
			if _, ok := w.rc.(berth.MemoryCalculator); ok {
				// The mock framework's createResource(m) has one vcore;
				// capacities then do not add up in vcores, which the
				// memory calculator ignores but the configuration checks.
				guar.VCores, max.VCores = guar.Memory, max.Memory
			}
			r.pending[label] = mockResource(t, vals[3])
			if len(vals) > 4 {
				r.reserve[label] = mockResource(t, vals[4])
			}
			used := mockResource(t, vals[2])
			if _, ok := w.rc.(berth.MemoryCalculator); ok {
				used.VCores = used.Memory
			}
			switch {
			case label == "":
				q.guar, q.max = guar, max
			case !guar.IsZero() || !max.IsZero():
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
		app := capApp{id: fmt.Sprintf("app%d", i+1), queue: q.path, am: true}
		for _, tu := range strings.Split(strings.Trim(tuples, "()"), ")(") {
			f := strings.Split(tu, ",")
			require.Len(t, f, 6, tu)
			prio, err := strconv.Atoi(f[0])
			require.NoError(t, err)
			n, err := strconv.Atoi(f[4])
			require.NoError(t, err)
			app.priority = int32(prio)
			app.groups = append(app.groups, capGroup{node: f[2], size: mockResource(t, f[1]), count: n, label: f[3], reserved: f[5] == "true"})
		}
		w.apps = append(w.apps, app)
	}
	for _, r := range rows {
		if len(r.q.children) > 0 {
			continue
		}
		for label, p := range r.pending {
			if extra := p.Sub(r.reserve[label]); !extra.IsZero() && !extra.AnyNegative() {
				w.carriers = append(w.carriers, capCarrier{queue: r.q.path, total: extra, label: label})
			}
		}
	}
	// Carriers in a fixed order: the map above has none.
	sortCarriers(w.carriers)
	return w
}

func sortCarriers(cs []capCarrier) {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].queue+"\x00"+cs[j].label < cs[j-1].queue+"\x00"+cs[j-1].label; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

// TestVectorsH1 runs the node-partition vectors (YARN's
// TestProportionalCapacityPreemptionPolicyForNodePartitions) against the
// real capacity scheduler with partitions.
func TestVectorsH1(t *testing.T) {
	vs := loadH1Vectors(t)
	require.Len(t, vs, 10)
	for _, v := range vs {
		t.Run(v.id+"_"+v.name, func(t *testing.T) {
			w := v.capWorld(t)
			s, _ := w.build(t)
			cfg := preempt.DefaultProportionalConfig()
			cfg.TotalPreemptionPerRound = 1
			cfg.NaturalTerminationFactor = 1
			cfg.MaxWaitBeforeKill = 10000
			if q, ok := strings.CutPrefix(v.conf, "disable="); ok {
				yes := true
				cfg.Queues = map[string]preempt.QueuePreemption{q: {DisablePreemption: &yes}}
			}
			p, err := preempt.NewProportional(s, cfg)
			require.NoError(t, err)
			rep, err := p.Round(0)
			require.NoError(t, err)
			got := markedPerApp(rep)
			for k, n := range v.want {
				assert.Equal(t, n, got[k], k)
			}
			require.NoError(t, s.Check())
		})
	}
}
