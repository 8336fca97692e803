package durable

import (
	"bufio"

	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/preempt"
)

// restoreCapacity reads the capacity scheduler's snapshot with what the
// Config supplies: the groups mapping, a host calculator, the host's
// ordering policies.
func restoreCapacity(br *bufio.Reader, c *Cluster) (*capacity.Scheduler, error) {
	cc := c.cfg.CapacityConfig
	return capacity.RestoreScheduler(br, capacity.RestoreEnv{Clock: c.clock, Groups: cc.Groups, Calculator: cc.Calculator,
		AppOrderings: c.cfg.CapacityParse.AppOrderings, ChildOrderings: c.cfg.CapacityParse.ChildOrderings})
}

// restoreProportional reads the proportional policy's snapshot over the
// restored scheduler.
func restoreProportional(br *bufio.Reader, c *Cluster) (*preempt.Proportional, error) {
	return preempt.RestoreProportional(br, preempt.ProportionalSetup{State: c.capS, Actor: c.capS})
}
