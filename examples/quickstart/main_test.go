package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTour runs the whole tour and checks the facts each step must show.
func TestTour(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out))
	got := out.String()
	for _, want := range []string{
		"the series has 4 breakpoints",
		"[2000, 3000)   <memory:2048, vCores:2>      <memory:0, vCores:0>",
		"  t2 ##\n",
		"  t4 ..\n",
		"lands on:\n  [t0, t2) <memory:1024, vCores:1>\n  [t3, t5) <memory:1024, vCores:1>\n",
		"gang         reservation_1700000000000_0001: accepted for alice\n    [  0 min,  30 min)  8 container(s)",
		"too big      reservation_1700000000000_0004: rejected:",
		"  180 min |################| 16",
		"heartbeat n1 at t=1000: 6 containers to root.prod, 2 to root.dev",
		"app with reservation_42 runs in root.plan.reservation_42",
		"app without a reservation runs in root.plan.plan-default",
		"app with an inactive reservation is refused",
		"heartbeat g1 (partition \"gpu\"): train 3, report 0",
		"heartbeat g1 (partition \"gpu\"): train 0, report 4",
		"etl in root.small SKIPPED: the queue is at its maximum (root.small)",
		"a dry run on n2 would allocate 0 containers:",
		"train    user ana  -> root.research",
		"explore  user bo   -> root.bo",
		"root.prod     weight 3  policy fair  fair share <memory:19662, vCores:20>",
		"root.research weight 1  policy DRF   fair share <memory:6554, vCores:6>",
		"  reservation_1_0002           capacity 0.50  guaranteed <memory:40960, vCores:40>",
		"round 1 at t=1000: dev uses 16384 MB, ideal 6553 MB; 10 candidates decided, 10 containers marked, 0 killed",
		"round 2 at t=4000: dev uses 16384 MB, ideal 6553 MB; 10 candidates decided, 0 containers marked, 10 killed",
		"etl now holds 10240 MB",
		"berth_containers_allocated_total{queue=\"root.prod\"} 11",
		"berth_containers_ended_total{status=\"KILLED\"} 5",
		"berth_apps_finished_total 1",
		"next heartbeat of n2: original 8 containers, restored 8, identical: true",
		"a snapshot with one bit flipped is refused (corrupt: true)",
		"t3\n  dedicated-default            capacity 1.00  guaranteed <memory:81920, vCores:80>\n",
		"rm.LoadCapacity built: capacity scheduler, reservation system with plans [dedicated], preemption true",
		"read yarn.scheduler.capacity.root.dedicated.average-capacity = 60",
		"plan dedicated: agent *agent.TryMany, policy average 60 % / instantaneous 80 % over 60 min",
		"alice asks 70 % of the plan for the hour: refused (over the 60 % average)",
		"bob asks 55 % of the plan for the hour: accepted as reservation_1_0002",
		"etl runs in root.dedicated.reservation_1_0002 and got 4 containers",
		"rm.LoadFair built: fair scheduler, reservation system with plans [root.dedicated], preemption true",
		"read allocations.reservation-policy = NoOverCommitPolicy",
		"plan root.dedicated: agent *agent.IterativePlanner, policy policy.NoOverCommit",
	} {
		assert.Contains(t, got, want)
	}
}

// TestTourAgents checks step 9's claim from its own figures: LeastWaste
// reserves more of the area asked than the best of YARN's agents, and no
// more than the bound.
func TestTourAgents(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, stepAgents(&out))
	i := strings.Index(out.String(), "LeastWaste reserves ")
	require.GreaterOrEqual(t, i, 0, out.String())
	var gain, ofBound float64
	_, err := fmt.Sscanf(out.String()[i:], "LeastWaste reserves %f %% more area than the best of YARN's agents, %f %% of the bound", &gain, &ofBound)
	require.NoError(t, err)
	assert.Greater(t, gain, 5.0)
	assert.LessOrEqual(t, ofBound, 100.0)
	assert.Contains(t, out.String(), "120 requests over 12 h to a plan of 32 containers")
}
