package yarnplan

import (
	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
)

// Config returns plan.DefaultConfig(queue, capacity, clock) with YARN's
// default agent (AlignedPlannerWithGreedy), sharing policy
// (CapacityOverTimePolicy) and replanner (SimpleCapacityReplanner), each
// with its default options.
func Config(queue string, capacity berth.Resource, clock berth.Clock) (plan.Config, error) {
	cfg := plan.DefaultConfig(queue, capacity, clock)
	ag, err := agent.NewAlignedPlannerWithGreedy(agent.DefaultOptions())
	if err != nil {
		return cfg, err
	}
	pol, err := policy.NewCapacityOverTime(policy.DefaultCapacityOverTimeConfig())
	if err != nil {
		return cfg, err
	}
	rp, err := policy.NewSimpleCapacityReplanner(policy.DefaultReplannerConfig())
	if err != nil {
		return cfg, err
	}
	cfg.Agent, cfg.Policy, cfg.Replanner = ag, pol, rp
	return cfg, nil
}
