package preempt

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fairVector is one behaviour of YARN's fair preemption (its tests
// TestFSAppStarvation, TestFairSchedulerPreemption), as data: greedy
// applications fill the cluster, a starved one submits, the scheduler
// updates once the timeouts have passed, and one round runs.
type fairVector struct {
	name  string
	xml   string // allocation file body
	nodes int    // nodes of 4 GB / 4 vcores, alternating racks /r0, /r1
	// greedy applications: queue and task count (1 GB each), AM managed
	// when am is set; placed in order until the cluster is full.
	greedy []greedyApp
	// starved: the late application's queue and its ask.
	starvedQueue string
	ask          fair.Ask
	threshold    float64 // utilization threshold (0: the default 0.8)
	noFill       bool    // do not heartbeat before the round (keep the cluster part-used)

	wantMarked map[string]int // victims per application
	wantAMs    int            // AM containers among the victims
	wantUnmet  int            // requested containers no node could serve
	wantSkip   bool           // the round serves no starved application
}

type greedyApp struct {
	queue string
	tasks int
	am    bool
}

const onePreemptQueues = `<queueMaxAMShareDefault>-1</queueMaxAMShareDefault><queue name="a"/><queue name="b"/>`

func fairVectors() []fairVector {
	gb := func(n int64) berth.Resource { return berth.New(n*1024, n) }
	any := func(size int64, count int) fair.Ask {
		return fair.Ask{Priority: 1, ResourceName: fair.AnyResource, Capability: gb(size), Count: count}
	}
	full := `<defaultFairSharePreemptionTimeout>0</defaultFairSharePreemptionTimeout><defaultFairSharePreemptionThreshold>1</defaultFairSharePreemptionThreshold>`
	return []fairVector{
		{name: "sibling leaves: the starved app takes its whole fair share (threshold 1)",
			xml: full + onePreemptQueues, nodes: 2, greedy: []greedyApp{{"root.a", 8, false}},
			starvedQueue: "root.b", ask: any(2, 2),
			wantMarked: map[string]int{"g0": 4}},
		{name: "threshold 0.5: half of the fair share is starvation",
			xml: `<defaultFairSharePreemptionTimeout>0</defaultFairSharePreemptionTimeout>` + onePreemptQueues, nodes: 2,
			greedy: []greedyApp{{"root.a", 8, false}}, starvedQueue: "root.b", ask: any(2, 2),
			wantMarked: map[string]int{"g0": 2}},
		{name: "allowPreemptionFrom false: nothing is taken from the queue",
			xml: full + `<queue name="a"><allowPreemptionFrom>false</allowPreemptionFrom></queue><queue name="b"/>`, nodes: 2,
			greedy: []greedyApp{{"root.a", 8, false}}, starvedQueue: "root.b", ask: any(2, 2),
			wantMarked: map[string]int{}, wantUnmet: 2},
		{name: "allowPreemptionFrom false on a parent covers its children",
			xml: full + `<queue name="p"><allowPreemptionFrom>false</allowPreemptionFrom><queue name="a"/></queue><queue name="b"/>`, nodes: 2,
			greedy: []greedyApp{{"root.p.a", 8, false}}, starvedQueue: "root.b", ask: any(1, 4),
			wantMarked: map[string]int{}, wantUnmet: 4},
		{name: "non-sibling queues: preemption crosses parents",
			xml: full + `<queue name="x"><queue name="a"/></queue><queue name="y"><queue name="b"/></queue>`, nodes: 2,
			greedy: []greedyApp{{"root.x.a", 8, false}}, starvedQueue: "root.y.b", ask: any(1, 4),
			wantMarked: map[string]int{"g0": 4}},
		{name: "within one leaf: the newcomer takes from its neighbour",
			xml: full + onePreemptQueues, nodes: 2,
			greedy: []greedyApp{{"root.a", 8, false}}, starvedQueue: "root.a", ask: any(1, 4),
			wantMarked: map[string]int{"g0": 4}},
		{name: "AM containers last: tasks are taken, AMs kept",
			xml: full + onePreemptQueues, nodes: 2,
			greedy: []greedyApp{{"root.a", 3, true}, {"root.a", 3, true}}, starvedQueue: "root.b", ask: any(1, 4),
			wantMarked: map[string]int{"g0": 2, "g1": 2}},
		{name: "never below the fair share: an app at its share keeps everything",
			xml: full + `<queue name="a"><schedulingPolicy>fifo</schedulingPolicy></queue><queue name="b"/>`, nodes: 2,
			// FIFO gives the whole share of a (4 GB) to g0; g1 is above its 0 share
			greedy: []greedyApp{{"root.a", 4, false}, {"root.a", 4, false}}, starvedQueue: "root.b", ask: any(1, 4),
			wantMarked: map[string]int{"g1": 4}},
		{name: "a request bigger than every node cannot be served",
			xml: full + onePreemptQueues, nodes: 2,
			greedy: []greedyApp{{"root.a", 8, false}}, starvedQueue: "root.b", ask: any(4, 1),
			wantMarked: map[string]int{"g0": 4}},
		{name: "below the utilization threshold nobody is starved",
			xml: full + onePreemptQueues, nodes: 4, noFill: true, threshold: 0.8,
			greedy: []greedyApp{{"root.a", 8, false}}, starvedQueue: "root.b", ask: any(1, 4),
			wantMarked: map[string]int{}, wantSkip: true},
		{name: "min-share starvation alone (fair-share timeout never)",
			xml:   `<queue name="a"/><queue name="b"><minResources>2048 mb, 2 vcores</minResources><minSharePreemptionTimeout>0</minSharePreemptionTimeout></queue>`,
			nodes: 2, greedy: []greedyApp{{"root.a", 8, false}}, starvedQueue: "root.b", ask: any(1, 4),
			wantMarked: map[string]int{"g0": 2}},
		{name: "starvation smaller than one container asks for nothing",
			xml:   `<defaultFairSharePreemptionTimeout>0</defaultFairSharePreemptionTimeout><defaultFairSharePreemptionThreshold>0.2</defaultFairSharePreemptionThreshold>` + onePreemptQueues,
			nodes: 2, greedy: []greedyApp{{"root.a", 8, false}}, starvedQueue: "root.b", ask: any(2, 2),
			wantMarked: map[string]int{}},
	}
}

func TestFairVectors(t *testing.T) {
	for _, vec := range fairVectors() {
		t.Run(vec.name, func(t *testing.T) {
			cfg := DefaultFairConfig()
			if vec.threshold == 0 {
				cfg.UtilizationThreshold = 0 // the vectors fill the cluster; the threshold has its own vector
			}
			w := newFairWorld(t, fairAlloc(vec.xml), cfg, vec.nodes, berth.New(4096, 4))
			for i, g := range vec.greedy {
				id := "g" + string(rune('0'+i))
				am := berth.Resource{}
				tasks := g.tasks
				if g.am {
					am = berth.New(1024, 1)
				}
				w.submit(id, g.queue, am, berth.New(1024, 1), tasks)
				if !vec.noFill {
					w.fill()
				} else {
					for range 2 {
						w.beatAll()
					}
				}
			}
			w.clock.Advance(1000)
			_, err := w.s.SubmitApp(fair.AppSpec{ID: "s", Queue: vec.starvedQueue, User: "u"})
			require.NoError(t, err)
			_, err = w.s.Allocate("s", []fair.Ask{vec.ask}, nil)
			require.NoError(t, err)
			w.s.Update()
			w.clock.Advance(1000)
			w.s.Update()
			r, err := w.p.Round(w.clock.Now())
			require.NoError(t, err)
			if vec.wantSkip {
				assert.Empty(t, r.Starved)
				assert.NotEmpty(t, r.Skipped)
			}
			got, ams, unmet := map[string]int{}, 0, 0
			for _, d := range r.Decisions {
				require.Equal(t, FairMarked, d.Action)
				assert.Equal(t, "s", d.ForApp)
				got[d.Container.App]++
				if d.Container.AM {
					ams++
				}
			}
			for _, sa := range r.Starved {
				unmet += sa.Unmet
			}
			assert.Equal(t, vec.wantMarked, got, "victims per application")
			assert.Equal(t, vec.wantAMs, ams, "AM victims")
			assert.Equal(t, vec.wantUnmet, unmet, "unmet requests")
			// Whatever was marked leaves every victim's application at or
			// above its fair share.
			sn := w.s.SnapshotOf(fair.SnapshotApps)
			for app, n := range got {
				a := sn.App(app)
				assert.GreaterOrEqual(t, a.Usage.Memory-int64(n)*1024, a.FairShare.Memory, app)
			}
		})
	}
}
