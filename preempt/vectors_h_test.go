package preempt_test

import (
	"bufio"
	"fmt"
	"os"
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
}

func loadHVectors(t *testing.T) []hVector {
	f, err := os.Open("testdata/h_vectors.txt")
	require.NoError(t, err)
	defer f.Close()
	var out []hVector
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		fs := strings.Split(line, " | ")
		require.Len(t, fs, 8, line)
		v := hVector{id: fs[0], name: fs[1], rc: fs[2], conf: fs[3], nodes: fs[4], queues: fs[5], apps: fs[6], want: map[string]int{}}
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

// capWorld is the mock framework's world (reference §H.0) as a real
// scheduler: queues with absolute guarantees and maximums, nodes with
// their totals (the root's guarantee when none is given), each app's
// containers placed on the named nodes in order (reservations made by
// heartbeats on a node too small), and each leaf's pending beyond its
// reservations asked for by carrier applications.
func (v hVector) capWorld(t *testing.T) *capWorld {
	w := &capWorld{rc: berth.MemoryCalculator{}}
	if v.rc == "drc" {
		w.rc = berth.DominantCalculator{}
	}
	type qrow struct {
		q                *capQueue
		depth            int
		pending, reserve berth.Resource
	}
	var rows []qrow
	byName := map[string]*capQueue{}
	for _, item := range strings.Split(v.queues, ";") {
		d := len(item) - len(strings.TrimLeft(item, "-"))
		item = item[d:]
		name, rest, ok := strings.Cut(item, "(=[")
		require.True(t, ok, item)
		vals := strings.Fields(strings.TrimSuffix(rest, "])"))
		require.GreaterOrEqual(t, len(vals), 4, item)
		q := &capQueue{path: name, guar: mockResource(t, vals[0]), max: mockResource(t, vals[1])}
		r := qrow{q: q, depth: d, pending: mockResource(t, vals[3])}
		if len(vals) > 4 {
			r.reserve = mockResource(t, vals[4])
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
			g := capGroup{node: f[2], size: mockResource(t, f[1]), count: n, reserved: f[5] == "true"}
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
		if extra := r.pending.Sub(r.reserve); !extra.IsZero() && !extra.AnyNegative() {
			w.carriers = append(w.carriers, capCarrier{queue: r.q.path, total: extra})
		}
	}
	return w
}

// TestVectorsH runs the default-partition mock-framework vectors
// (reference §H.1 H-11, §H.2) against the real capacity scheduler.
func TestVectorsH(t *testing.T) {
	vs := loadHVectors(t)
	require.Len(t, vs, 8)
	for _, v := range vs {
		t.Run(v.id+"_"+v.name, func(t *testing.T) {
			s, _ := v.capWorld(t).build(t)
			cfg := preempt.DefaultProportionalConfig()
			cfg.TotalPreemptionPerRound = 1
			cfg.NaturalTerminationFactor = 1
			cfg.MaxWaitBeforeKill = 10000
			cfg.SelectBasedOnReservedContainers = v.conf == "reserved"
			p, err := preempt.NewProportional(s, cfg)
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
		})
	}
}
