package plan

import (
	"github.com/berthsched/berth"
)

// YARN's defaults for a plan's context.
const (
	// DefaultStep is the plan step, 1 s
	// (yarn.resourcemanager.reservation-system.planfollower.time-step).
	DefaultStep berth.Duration = 1000
	// DefaultMaxPeriodicity is the largest recurrence, 1 day
	// (yarn.resourcemanager.reservation-system.max-periodicity).
	DefaultMaxPeriodicity berth.Duration = 86_400_000
)

// Config is a plan's context: YARN's PlanContext and the constructor
// arguments of InMemoryPlan, typed. Start from [DefaultConfig], which holds
// YARN's defaults; [New] also fills a zero Step, MaxPeriodicity or
// Calculator with them (YARN treats non-positive steps and periodicities
// the same way).
type Config struct {
	// Queue is the reservable queue the plan serves (YARN's plan name,
	// e.g. "dedicated"); allocations carry it.
	Queue string
	// Capacity is the plan's total capacity (YARN's totalCapacity; the CS
	// reservation system sets cluster × queue absolute capacity, rounded
	// down to MinAllocation).
	Capacity berth.Resource
	// Step is the plan's time granularity in ms
	// (yarn.resourcemanager.reservation-system.planfollower.time-step,
	// default 1000).
	Step berth.Duration
	// MaxPeriodicity bounds recurrences: every period must divide it
	// (yarn.resourcemanager.reservation-system.max-periodicity, default
	// 86400000).
	MaxPeriodicity berth.Duration
	// Calculator compares resources (yarn.scheduler.capacity.resource-calculator,
	// default berth.MemoryCalculator).
	Calculator berth.Calculator
	// MinAllocation is the smallest container
	// (yarn.scheduler.minimum-allocation-mb / -vcores, default <1024, 1>).
	MinAllocation berth.Resource
	// MaxAllocation is the largest container
	// (yarn.scheduler.maximum-allocation-mb / -vcores, default <8192, 4>).
	MaxAllocation berth.Resource
	// MoveOnExpiry tells the plan follower to move the applications of an
	// expired reservation to the default reservation queue instead of
	// killing them (yarn.scheduler.capacity.<queue>.reservation-move-on-expiry,
	// default true). The plan only carries it.
	MoveOnExpiry bool
	// Agent places reservations (…<queue>.reservation-agent, default
	// AlignedPlannerWithGreedy in package agent). May be nil for a plan
	// edited directly.
	Agent Agent
	// Replanner repairs the plan after a capacity loss
	// (…<queue>.reservation-planner, default SimpleCapacityReplanner). May
	// be nil.
	Replanner Replanner
	// Policy admits reservations (…<queue>.reservation-policy, default
	// CapacityOverTimePolicy). Nil admits everything and keeps no history.
	Policy SharingPolicy
	// Clock stamps acceptance times. Required.
	Clock berth.Clock
	// ExactPeriodicMin makes the availability of a periodic request the
	// componentwise minimum over its instances (Berth option, off by
	// default). YARN takes, at each time, the whole instance that is
	// smaller under the calculator: with the memory-only
	// calculator its vcores may exceed another instance's.
	ExactPeriodicMin bool
}

// DefaultConfig returns YARN's defaults for a plan serving queue with the
// given capacity and clock; Agent, Replanner and Policy are left nil (the
// defaults live in packages agent and policy).
func DefaultConfig(queue string, capacity berth.Resource, clock berth.Clock) Config {
	return Config{
		Queue:          queue,
		Capacity:       capacity,
		Step:           DefaultStep,
		MaxPeriodicity: DefaultMaxPeriodicity,
		Calculator:     berth.MemoryCalculator{},
		MinAllocation:  berth.New(1024, 1),
		MaxAllocation:  berth.New(8192, 4),
		MoveOnExpiry:   true,
		Clock:          clock,
	}
}

// normalize fills defaults and checks the fields New relies on.
func (c Config) normalize() (Config, error) {
	if c.Step <= 0 {
		c.Step = DefaultStep
	}
	if c.MaxPeriodicity <= 0 {
		c.MaxPeriodicity = DefaultMaxPeriodicity
	}
	if c.Calculator == nil {
		c.Calculator = berth.MemoryCalculator{}
	}
	if berth.CheckNotNil("clock", c.Clock) != nil {
		return c, berth.InvalidField("plan.clock", nil, "a clock is required")
	}
	if c.Capacity.AnyNegative() {
		return c, berth.InvalidField("plan.capacity", c.Capacity, "must not be negative")
	}
	return c, nil
}
