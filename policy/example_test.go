package policy_test

import (
	"errors"
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
)

// A user may hold at most half of the plan at once, and a quarter on
// average over a day.
func ExampleCapacityOverTime() {
	cfg := policy.DefaultCapacityOverTimeConfig()
	cfg.InstantaneousMaxPercent = 50
	cfg.AveragePercent = 25
	pol, err := policy.NewCapacityOverTime(cfg)
	if err != nil {
		panic(err)
	}
	pcfg := plan.DefaultConfig("dedicated", berth.New(100*1024, 100), berth.NewManualClock(0))
	pcfg.Policy = pol
	p, err := plan.New(pcfg)
	if err != nil {
		panic(err)
	}
	const hour = 3_600_000
	try := func(seq int64, containers int64, from, to int64) {
		iv := berth.Interval{Start: from * hour, End: to * hour}
		a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: seq}, "alice", plan.Definition{},
			iv, []plan.IntervalResource{{Interval: iv, Resource: berth.New(1024, 1).MulInt(containers)}})
		if err != nil {
			panic(err)
		}
		err = p.AddReservation(a)
		var rej *policy.RejectionError
		switch {
		case err == nil:
			fmt.Printf("%d containers [%dh, %dh): accepted\n", containers, from, to)
		case errors.As(err, &rej):
			fmt.Printf("%d containers [%dh, %dh): rejected (%s)\n", containers, from, to, rej.Check)
		default:
			fmt.Println(err)
		}
	}
	try(1, 60, 0, 1)  // more than half at once
	try(2, 40, 0, 4)  // fine
	try(3, 45, 4, 16) // with the first, 29 % of the plan on average over the day
	try(4, 20, 4, 16) // 18 %
	// Output:
	// 60 containers [0h, 1h): rejected (instantaneous maximum)
	// 40 containers [0h, 4h): accepted
	// 45 containers [4h, 16h): rejected (average over window)
	// 20 containers [4h, 16h): accepted
}
