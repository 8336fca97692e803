package preempt_test

import (
	"bufio"
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

// qData is one vector of testdata/pq_vectors.txt.
type qData struct {
	id, name                                            string
	abs, max, used, pending, reserved, apps, gran, subq []int64
	disable                                             []string
	want                                                map[string]int
	ideal, tbp, actual                                  []int64
	cluster                                             int64 // 0: Σ leaf guarantees
}

func parseInts(t *testing.T, s string) []int64 {
	t.Helper()
	if s == "" {
		return nil
	}
	var out []int64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseInt(f, 10, 64)
		require.NoError(t, err, s)
		out = append(out, v)
	}
	return out
}

func loadQDataVectors(t *testing.T) []qData {
	f, err := os.Open("testdata/pq_vectors.txt")
	require.NoError(t, err)
	defer f.Close()
	var out []qData
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		fs := strings.Split(line, " | ")
		v := qData{id: fs[0], name: fs[1], want: map[string]int{}}
		for _, kv := range fs[2:] {
			k, val, _ := strings.Cut(kv, "=")
			switch k {
			case "abs":
				v.abs = parseInts(t, val)
			case "max":
				v.max = parseInts(t, val)
			case "used":
				v.used = parseInts(t, val)
			case "pending":
				v.pending = parseInts(t, val)
			case "reserved":
				v.reserved = parseInts(t, val)
			case "apps":
				v.apps = parseInts(t, val)
			case "gran":
				v.gran = parseInts(t, val)
			case "subq":
				v.subq = parseInts(t, val)
			case "disable":
				if val != "" {
					v.disable = strings.Split(val, ",")
				}
			case "want":
				if val != "" {
					for _, w := range strings.Split(val, ",") {
						a, n, _ := strings.Cut(w, "=")
						c, err := strconv.Atoi(n)
						require.NoError(t, err)
						v.want[a] = c
					}
				}
			case "ideal":
				v.ideal = parseInts(t, val)
			case "tbp":
				v.tbp = parseInts(t, val)
			case "actual":
				v.actual = parseInts(t, val)
			case "cluster":
				v.cluster = parseInts(t, val)[0]
			default:
				t.Fatalf("%s: unknown field %q", v.id, k)
			}
		}
		out = append(out, v)
	}
	require.NoError(t, sc.Err())
	return out
}

// capWorld builds the world of YARN's qData test notation: queue i ≥ 1 is
// queue<A+i-1>, the tree comes from subq in pre-order, apps are lettered
// globally, each app holds used/apps in containers of gran, the leaf's
// pending demand is asked for by its carrier application; one node
// holds the whole cluster (Σ leaf guarantees).
func (v qData) capWorld(t *testing.T, rc berth.Calculator) (*capWorld, []string) {
	n := len(v.abs)
	paths := make([]string, n)
	qs := make([]*capQueue, n)
	paths[0] = "root"
	qs[0] = &capQueue{path: "root", guar: capRes(v.abs[0]), max: capRes(v.max[0])}
	var stack []int
	for k := int64(0); k < v.subq[0]; k++ {
		stack = append(stack, 0)
	}
	var cluster int64
	w := &capWorld{rc: rc}
	letter := 0
	for i := 1; i < n; i++ {
		require.NotEmpty(t, stack, "%s: malformed subq", v.id)
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		paths[i] = paths[p] + ".queue" + string(rune('A'+i-1))
		qs[i] = &capQueue{path: paths[i], guar: capRes(v.abs[i]), max: capRes(v.max[i])}
		qs[p].children = append(qs[p].children, qs[i])
		for k := int64(0); k < v.subq[i]; k++ {
			stack = append(stack, i)
		}
		if v.subq[i] > 0 {
			continue
		}
		cluster += v.abs[i]
		for a := int64(0); a < v.apps[i]; a++ {
			id := "app" + string(rune('A'+letter))
			letter++
			g := v.gran[i]
			per := func(x int64) int64 { return (x + v.apps[i] - 1) / v.apps[i] }
			app := capApp{id: id, queue: paths[i]}
			if u := per(v.used[i]); u > 0 {
				app.groups = append(app.groups, capGroup{node: "n1", size: capRes(g), count: int((u + g - 1) / g)})
			}
			w.apps = append(w.apps, app)
		}
		if p, g := v.pending[i], v.gran[i]; p > 0 {
			w.carriers = append(w.carriers, capCarrier{queue: paths[i], total: capRes((p + g - 1) / g * g), unit: capRes(g)})
		}
	}
	if v.cluster > 0 {
		cluster = v.cluster
	}
	w.root = qs[0]
	w.nodes = []capacity.NodeSpec{{ID: "n1", Rack: "/r", Capability: capRes(cluster)}}
	return w, paths
}

// TestVectorsG runs every qData vector of YARN's
// TestProportionalCapacityPreemptionPolicy against the real
// capacity scheduler: one round at time 0 with YARN's test settings, the
// asserted preemption counts per application, and the derived per-queue
// ideal assignment, amount to preempt and amount asked this round.
func TestVectorsG(t *testing.T) {
	vs := loadQDataVectors(t)
	require.Len(t, vs, 17)
	for _, v := range vs {
		t.Run(v.id+"_"+v.name, func(t *testing.T) {
			w, paths := v.capWorld(t, berth.MemoryCalculator{})
			s, _ := w.build(t)
			snap := s.Snapshot()
			for i, p := range paths {
				q := snap.Queues.Get(capPath(t, p))
				require.NotNil(t, q, p)
				if v.cluster == 0 || v.subq[i] == 0 {
					require.Equal(t, v.used[i], q.Extra.Used.Memory, "%s used", p)
				}
				if v.subq[i] == 0 {
					pend, err := s.PendingWithinUserLimits(p, false)
					require.NoError(t, err)
					require.Equal(t, v.pending[i], pend.Memory, "%s pending within user limits", p)
				}
			}
			cfg := v.policyConfig()
			cfg.MaxWaitBeforeKill = 10000
			p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
			require.NoError(t, err)
			rep, err := p.Round(0)
			require.NoError(t, err)
			got := markedPerApp(rep)
			for app, n := range v.want {
				assert.Equal(t, n, got[app], "marked in %s", app)
			}
			total := 0
			for _, n := range v.want {
				total += n
			}
			assert.Len(t, rep.Decisions, total, "no other container is selected")
			for i, path := range paths {
				if v.ideal == nil {
					break
				}
				q := rep.Queue(path)
				require.NotNil(t, q)
				assert.Equal(t, v.ideal[i], q.Ideal.Memory, "%s ideal", path)
				assert.Equal(t, v.tbp[i], q.ToBePreempted.Memory, "%s toBePreempted", path)
				assert.Equal(t, v.actual[i], q.ToObtain.Memory, "%s actual", path)
			}
			require.NoError(t, s.Check())
		})
	}
}

// TestVectorsGDominant replays the qData vectors under the dominant
// calculator: their resources are <n,n>, so DRF takes as much from the
// same queues as the memory calculator does; only the split between two
// queues may move by one container, because the dominant calculator
// rounds each offer up where the memory calculator rounds half up.
func TestVectorsGDominant(t *testing.T) {
	for _, v := range loadQDataVectors(t) {
		t.Run(v.id, func(t *testing.T) {
			w, _ := v.capWorld(t, berth.DominantCalculator{})
			s, _ := w.build(t)
			cfg := v.policyConfig()
			p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
			require.NoError(t, err)
			rep, err := p.Round(0)
			require.NoError(t, err)
			got := markedPerApp(rep)
			total := 0
			for app, n := range v.want {
				assert.InDelta(t, n, got[app], 1, "marked in %s", app)
				total += n
			}
			assert.Len(t, rep.Decisions, total)
		})
	}
}

// policyConfig is the configuration YARN's qData tests run the policy
// with: the whole cluster may be taken in one round, no natural
// termination, and the vector's queues with preemption disabled.
func (v qData) policyConfig() preempt.ProportionalConfig {
	cfg := preempt.DefaultProportionalConfig()
	cfg.TotalPreemptionPerRound = 1
	cfg.NaturalTerminationFactor = 1
	for _, d := range v.disable {
		yes := true
		if cfg.Queues == nil {
			cfg.Queues = map[string]preempt.QueuePreemption{}
		}
		cfg.Queues[d] = preempt.QueuePreemption{DisablePreemption: &yes}
	}
	return cfg
}
