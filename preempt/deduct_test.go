package preempt_test

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/preempt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A later selector takes off what a leaf must give only the containers
// chosen earlier that are smaller than what is left (YARN's
// TempQueuePerPartition.deductActuallyToBePreempted): a remainder the size
// of the last container stays, so the later selector takes one more.

// TestDeductKeepsLastContainer is H-14 with b asking 60: the reserved
// selector frees n1 for b's reservation with a's 10 containers there; the
// FIFO selector then finds a must give 10, of which YARN deducts 9 (the
// tenth container is not smaller than the 1 left) and so takes an 11th.
func TestDeductKeepsLastContainer(t *testing.T) {
	v := hVector{rc: "default", conf: "reserved",
		nodes:  "n1= res=50;n2= res=50",
		queues: "root(=[100 100 100 60 50]);-a(=[30 100 45 0]);-b(=[70 100 55 60 50])",
		apps:   "a (1,1,n2,,35,false)(1,1,n1,,10,false);b (1,1,n2,,5,false)(1,50,n1,,1,true)"}
	s, _ := v.capWorld(t).build(t)
	cfg := preempt.DefaultProportionalConfig()
	cfg.TotalPreemptionPerRound = 1
	cfg.NaturalTerminationFactor = 1
	cfg.SelectBasedOnReservedContainers = true
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
	require.NoError(t, err)
	rep, err := p.Evaluate(0)
	require.NoError(t, err)
	bySel := map[string]int{}
	onNode := map[string]int{}
	for _, d := range rep.Decisions {
		require.Equal(t, "app1", d.App)
		bySel[d.Selector]++
		onNode[d.Node]++
	}
	assert.Equal(t, map[string]int{"reserved": 10, "fifo": 1}, bySel)
	assert.Equal(t, map[string]int{"n1": 10, "n2": 1}, onNode)
	// The reported amount is the FIFO selector's, after the deduction.
	assert.Equal(t, int64(1), rep.Queue("root.a").ToObtain.Memory)
}

// balanceWorld is a above its guarantee by 20 and b below it, asking 40:
// the FIFO selector takes a's 20, then the balance selector finds the same
// 20 to give and, deducting what FIFO took, keeps the last container.
func balanceWorld(t *testing.T, rc berth.Calculator) *capacity.Scheduler {
	size := capRes(1)
	w := &capWorld{rc: rc, root: &capQueue{path: "root", guar: capRes(100), max: capRes(100)}}
	w.root.children = []*capQueue{
		{path: "root.a", guar: capRes(50), max: capRes(100)},
		{path: "root.b", guar: capRes(50), max: capRes(100)},
	}
	w.nodes = []capacity.NodeSpec{{ID: "n1", Rack: "/r", Capability: capRes(100)}}
	w.apps = []capApp{
		{id: "a1", queue: "root.a", groups: []capGroup{{node: "n1", size: size, count: 70}}},
		{id: "b1", queue: "root.b", groups: []capGroup{{node: "n1", size: size, count: 30}}},
	}
	w.carriers = []capCarrier{{queue: "root.b", total: capRes(40), unit: size}}
	s, _ := w.build(t)
	return s
}

// TestDeductBalanceAndDRF: with preemption-to-balance on, the balance
// selector takes one container beyond FIFO's 20, under the memory and the
// dominant calculator alike; without it, FIFO alone takes the 20.
func TestDeductBalanceAndDRF(t *testing.T) {
	for _, tc := range []struct {
		name string
		rc   berth.Calculator
	}{{"memory", berth.MemoryCalculator{}}, {"dominant", berth.DominantCalculator{}}} {
		t.Run(tc.name, func(t *testing.T) {
			s := balanceWorld(t, tc.rc)
			cfg := preempt.DefaultProportionalConfig()
			cfg.TotalPreemptionPerRound = 1
			cfg.NaturalTerminationFactor = 1
			p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
			require.NoError(t, err)
			rep, err := p.Evaluate(0)
			require.NoError(t, err)
			assert.Equal(t, 20, markedPerApp(rep)["a1"], "FIFO alone")

			cfg.BalanceAfterSatisfied = true
			p, err = preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
			require.NoError(t, err)
			rep, err = p.Evaluate(0)
			require.NoError(t, err)
			bySel := map[string]int{}
			for _, d := range rep.Decisions {
				require.Equal(t, "a1", d.App)
				bySel[d.Selector]++
			}
			assert.Equal(t, map[string]int{"fifo": 20, "fifo-balance": 1}, bySel)
		})
	}
}

// TestDeductIntraQueue: a is 20 over its guarantee and its high-priority
// application asks 40. FIFO takes a's 20 from the low application; the
// intra-queue selector then reads what a must give as the ideal
// computation left it (20, not the 0 left after FIFO's choices) and takes
// each of FIFO's 20 containers off the low application's amount while it
// is greater (YARN's TempAppPerPartition.deductActuallyToBePreempted): of
// its 30, 10 remain.
func TestDeductIntraQueue(t *testing.T) {
	one := capRes(1)
	w := &capWorld{root: &capQueue{path: "root", guar: capRes(100), max: capRes(100)}}
	w.root.children = []*capQueue{
		{path: "root.a", guar: capRes(50), max: capRes(100)},
		{path: "root.b", guar: capRes(50), max: capRes(100)},
	}
	w.nodes = []capacity.NodeSpec{{ID: "n1", Rack: "/r", Capability: capRes(100)}}
	w.apps = []capApp{
		{id: "low", queue: "root.a", priority: 1, am: true, groups: []capGroup{{node: "n1", size: one, count: 70}}},
		{id: "b1", queue: "root.b", groups: []capGroup{{node: "n1", size: one, count: 30}}},
	}
	w.carriers = []capCarrier{{queue: "root.b", total: capRes(40), unit: one}}
	s, _ := w.build(t)
	_, err := s.SubmitApp(capacity.AppSpec{ID: "high", Queue: "root.a", User: "u2", Priority: 2})
	require.NoError(t, err)
	_, err = s.Allocate("high", []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: one, Count: 40}}, nil)
	require.NoError(t, err)

	cfg := preempt.DefaultProportionalConfig()
	cfg.TotalPreemptionPerRound = 1
	cfg.NaturalTerminationFactor = 1
	cfg.IntraQueueEnabled = true
	cfg.IntraQueueOrder = preempt.PriorityFirst
	cfg.IntraQueueMaxAllowableLimit = 1
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
	require.NoError(t, err)
	rep, err := p.Evaluate(0)
	require.NoError(t, err)
	bySel := map[string]int{}
	for _, d := range rep.Decisions {
		require.Equal(t, "low", d.App)
		bySel[d.Selector]++
	}
	assert.Equal(t, map[string]int{"fifo": 20, "intra-queue": 10}, bySel)

	// With the default max-allowable-limit (20% of 50 = 10), what a must
	// give across queues (20) already uses it up: nothing inside a.
	cfg.IntraQueueMaxAllowableLimit = 0.2
	p, err = preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
	require.NoError(t, err)
	rep, err = p.Evaluate(0)
	require.NoError(t, err)
	bySel = map[string]int{}
	for _, d := range rep.Decisions {
		bySel[d.Selector]++
	}
	assert.Equal(t, map[string]int{"fifo": 20}, bySel)
}
