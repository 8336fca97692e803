package berth_test

import (
	"bytes"
	"math"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/follower"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/berthsched/berth/preempt"
	"github.com/berthsched/berth/queue"
	"github.com/berthsched/berth/rle"
)

// apiReceivers gives, per exported type with methods, the receivers its
// methods are called on: the fixture's objects for stateful types (built
// by their constructors; their zero value is documented unusable), and
// zero and extreme values for value types.
var apiReceivers = map[string]func(fx *apiFixture) []any{
	"agent.Area":             func(fx *apiFixture) []any { return []any{*new(agent.Area)} },
	"agent.ByDemand":         func(fx *apiFixture) []any { return []any{*new(agent.ByDemand)} },
	"agent.ContractError":    func(fx *apiFixture) []any { return []any{*new(agent.ContractError)} },
	"agent.Greedy":           func(fx *apiFixture) []any { return []any{*new(agent.Greedy)} },
	"agent.GreedyRLE":        func(fx *apiFixture) []any { return []any{*new(agent.GreedyRLE)} },
	"agent.IterativePlanner": func(fx *apiFixture) []any { return []any{must(agent.NewGreedy(agent.DefaultConfig()))} },
	"agent.LeastWaste": func(fx *apiFixture) []any {
		return []any{must(agent.NewLeastWaste(agent.LeastWasteConfig{Config: agent.DefaultConfig()}))}
	},
	"agent.LegacyGreedy":     func(fx *apiFixture) []any { return []any{&agent.LegacyGreedy{}} },
	"agent.LowCostAligned":   func(fx *apiFixture) []any { return []any{*new(agent.LowCostAligned)} },
	"agent.NoPlacementError": func(fx *apiFixture) []any { return []any{*new(agent.NoPlacementError)} },
	"agent.Config":           func(fx *apiFixture) []any { return []any{*new(agent.Config)} },
	"agent.Portfolio":        func(fx *apiFixture) []any { return []any{must(agent.NewPortfolio(agent.DefaultConfig()))} },
	"agent.Profile":          func(fx *apiFixture) []any { return []any{*new(agent.Profile)} },
	"agent.StageView":        func(fx *apiFixture) []any { return []any{*new(agent.StageView)} },
	"agent.TryMany": func(fx *apiFixture) []any {
		return []any{must(agent.NewAlignedPlannerWithGreedy(agent.DefaultConfig()))}
	},
	"agent.Unconstrained":      func(fx *apiFixture) []any { return []any{*new(agent.Unconstrained)} },
	"agent.WasteConfig":        func(fx *apiFixture) []any { return []any{*new(agent.WasteConfig)} },
	"berth.ClockFunc":          func(fx *apiFixture) []any { return []any{berth.ClockFunc(func() berth.Time { return 5 })} },
	"berth.DominantCalculator": func(fx *apiFixture) []any { return []any{*new(berth.DominantCalculator)} },
	"berth.FieldError": func(fx *apiFixture) []any {
		return []any{&berth.FieldError{}, &berth.FieldError{Field: "f", Value: math.NaN(), Reason: "r", Kind: berth.ErrConflict, Err: errWrite}}
	},
	"berth.Interval": func(fx *apiFixture) []any {
		return []any{berth.Interval{}, berth.Interval{Start: math.MinInt64, End: math.MaxInt64}, berth.Interval{Start: 5, End: 1}}
	},
	"berth.ManualClock":      func(fx *apiFixture) []any { return []any{fx.clock, &berth.ManualClock{}} },
	"berth.MemoryCalculator": func(fx *apiFixture) []any { return []any{*new(berth.MemoryCalculator)} },
	"berth.Resource": func(fx *apiFixture) []any {
		return []any{berth.Resource{}, berth.New(math.MaxInt64, math.MaxInt64), berth.New(math.MinInt64, -1), berth.NewWithExtras(1, 1, berth.Quantity{Name: "gpu", Value: 3})}
	},
	"berth.StateDecoder": func(fx *apiFixture) []any {
		return []any{must(berth.NewStateDecoder(bytes.NewReader(fx.csSnap), "capacity.Scheduler", 3))}
	},
	"berth.StateEncoder": func(fx *apiFixture) []any { return []any{berth.NewStateEncoder(&bytes.Buffer{}, "k", 1)} },
	"berth.StateError": func(fx *apiFixture) []any {
		return []any{&berth.StateError{}, &berth.StateError{Kind: "k", Offset: -1, Field: "f", Err: berth.ErrCorruptState}}
	},
	"capacity.AppOrdering":   func(fx *apiFixture) []any { return []any{*new(capacity.AppOrdering)} },
	"capacity.AppView":       func(fx *apiFixture) []any { return []any{*new(capacity.AppView)} },
	"capacity.ChildOrdering": func(fx *apiFixture) []any { return []any{*new(capacity.ChildOrdering)} },
	"capacity.MappingRule": func(fx *apiFixture) []any {
		return []any{*new(capacity.MappingRule), capacity.MappingRule{Type: capacity.RuleMatch(99), Policy: capacity.RulePolicy(255), Fallback: capacity.RuleFallback(99)}}
	},
	"capacity.NodeView":           func(fx *apiFixture) []any { return []any{*new(capacity.NodeView)} },
	"capacity.ResourceUsageNodes": func(fx *apiFixture) []any { return []any{capacity.ResourceUsageNodes{}} },
	"capacity.RuleFallback": func(fx *apiFixture) []any {
		return []any{capacity.RuleFallback(0), capacity.RuleFallback(255), capacity.RuleFallback(99)}
	},
	"capacity.RuleMatch": func(fx *apiFixture) []any {
		return []any{capacity.RuleMatch(0), capacity.RuleMatch(255), capacity.RuleMatch(99)}
	},
	"capacity.RulePolicy": func(fx *apiFixture) []any {
		return []any{capacity.RulePolicy(0), capacity.RulePolicy(255), capacity.RulePolicy(99)}
	},
	"capacity.PlacementRuleKind": func(fx *apiFixture) []any { return []any{*new(capacity.PlacementRuleKind)} },
	"capacity.QueueMapping":      func(fx *apiFixture) []any { return []any{*new(capacity.QueueMapping)} },
	"capacity.QueueView":         func(fx *apiFixture) []any { return []any{*new(capacity.QueueView)} },
	"capacity.Scheduler":         func(fx *apiFixture) []any { return []any{fx.cs} },
	"fair.AllocationFile":        func(fx *apiFixture) []any { return []any{fx.af, fair.DefaultAllocationFile()} },
	"fair.Config":                func(fx *apiFixture) []any { return []any{*new(fair.Config)} },
	"fair.ConfigurableResource":  func(fx *apiFixture) []any { return []any{*new(fair.ConfigurableResource)} },
	"fair.PlacementPolicy":       func(fx *apiFixture) []any { return []any{*new(fair.PlacementPolicy)} },
	"fair.PlacementRule":         func(fx *apiFixture) []any { return []any{*new(fair.PlacementRule)} },
	"fair.Policy":                func(fx *apiFixture) []any { return []any{*new(fair.Policy)} },
	"fair.PolicyError":           func(fx *apiFixture) []any { return []any{*new(fair.PolicyError)} },
	"fair.RuleError":             func(fx *apiFixture) []any { return []any{*new(fair.RuleError)} },
	"fair.RuleKind":              func(fx *apiFixture) []any { return []any{*new(fair.RuleKind)} },
	"fair.SchedulableView":       func(fx *apiFixture) []any { return []any{*new(fair.SchedulableView)} },
	"fair.Scheduler":             func(fx *apiFixture) []any { return []any{fx.fs} },
	"fair.Snapshot":              func(fx *apiFixture) []any { return []any{*new(fair.Snapshot)} },
	"follower.Follower":          func(fx *apiFixture) []any { return []any{fx.fol} },
	"follower.Funcs":             func(fx *apiFixture) []any { return []any{*new(follower.Funcs)} },
	"follower.Plans":             func(fx *apiFixture) []any { return []any{*new(follower.Plans)} },
	"follower.Result":            func(fx *apiFixture) []any { return []any{*new(follower.Result)} },
	"plan.Allocation":            func(fx *apiFixture) []any { return []any{fx.alloc} },
	"plan.AuthorizerFunc": func(fx *apiFixture) []any {
		return []any{plan.AuthorizerFunc(func(string, plan.ReservationOp, string, string) error { return nil })}
	},
	"plan.ComponentSpec":        func(fx *apiFixture) []any { return []any{*new(plan.ComponentSpec)} },
	"plan.Definition":           func(fx *apiFixture) []any { return []any{*new(plan.Definition)} },
	"plan.Interpreter":          func(fx *apiFixture) []any { return []any{*new(plan.Interpreter)} },
	"plan.ListRequest":          func(fx *apiFixture) []any { return []any{*new(plan.ListRequest)} },
	"plan.ListResponse":         func(fx *apiFixture) []any { return []any{*new(plan.ListResponse)} },
	"plan.NopObserver":          func(fx *apiFixture) []any { return []any{*new(plan.NopObserver)} },
	"plan.Plan":                 func(fx *apiFixture) []any { return []any{fx.plan} },
	"plan.ReservationEventKind": func(fx *apiFixture) []any { return []any{*new(plan.ReservationEventKind)} },
	"plan.ReservationID":        func(fx *apiFixture) []any { return []any{*new(plan.ReservationID)} },
	"plan.ReservationInfo":      func(fx *apiFixture) []any { return []any{*new(plan.ReservationInfo)} },
	"plan.ResolverFunc": func(fx *apiFixture) []any {
		return []any{plan.ResolverFunc(func(plan.PlanSpec) (plan.PlanParts, error) { return plan.PlanParts{}, nil })}
	},
	"plan.ResourceAllocationInfo": func(fx *apiFixture) []any { return []any{*new(plan.ResourceAllocationInfo)} },
	"plan.Stage":                  func(fx *apiFixture) []any { return []any{*new(plan.Stage)} },
	"plan.System":                 func(fx *apiFixture) []any { return []any{fx.sys} },
	"policy.CapacityOverTime": func(fx *apiFixture) []any {
		return []any{must(policy.NewCapacityOverTime(policy.DefaultCapacityOverTimeConfig())), &policy.CapacityOverTime{}}
	},
	"policy.CapacityOverTimeConfig": func(fx *apiFixture) []any { return []any{*new(policy.CapacityOverTimeConfig)} },
	"policy.Check":                  func(fx *apiFixture) []any { return []any{*new(policy.Check)} },
	"policy.NoOverCommit":           func(fx *apiFixture) []any { return []any{*new(policy.NoOverCommit)} },
	"policy.RejectionError":         func(fx *apiFixture) []any { return []any{*new(policy.RejectionError)} },
	"policy.ReplannerConfig":        func(fx *apiFixture) []any { return []any{*new(policy.ReplannerConfig)} },
	"policy.SimpleCapacityReplanner": func(fx *apiFixture) []any {
		return []any{must(policy.NewSimpleCapacityReplanner(policy.DefaultReplannerConfig()))}
	},
	"preempt.Action": func(fx *apiFixture) []any { return []any{*new(preempt.Action)} },
	"preempt.AppView": func(fx *apiFixture) []any {
		out := []any{&preempt.AppView{}}
		for _, a := range fx.round.Cluster.Apps {
			out = append(out, a)
		}
		return out
	},
	"preempt.CapacityView":        func(fx *apiFixture) []any { return []any{fx.round.Cluster, *new(preempt.CapacityView)} },
	"preempt.FIFOSelector":        func(fx *apiFixture) []any { return []any{*new(preempt.FIFOSelector)} },
	"preempt.FairAction":          func(fx *apiFixture) []any { return []any{*new(preempt.FairAction)} },
	"preempt.FairConfig":          func(fx *apiFixture) []any { return []any{*new(preempt.FairConfig)} },
	"preempt.FairPreemptor":       func(fx *apiFixture) []any { return []any{fx.fairPr} },
	"preempt.FairReason":          func(fx *apiFixture) []any { return []any{*new(preempt.FairReason)} },
	"preempt.FairRound":           func(fx *apiFixture) []any { return []any{*new(preempt.FairRound)} },
	"preempt.FairView":            func(fx *apiFixture) []any { return []any{*new(preempt.FairView)} },
	"preempt.FairYARNSelector":    func(fx *apiFixture) []any { return []any{*new(preempt.FairYARNSelector)} },
	"preempt.IntraQueueOrder":     func(fx *apiFixture) []any { return []any{*new(preempt.IntraQueueOrder)} },
	"preempt.IntraQueueSelector":  func(fx *apiFixture) []any { return []any{*new(preempt.IntraQueueSelector)} },
	"preempt.NodeView":            func(fx *apiFixture) []any { return []any{*new(preempt.NodeView)} },
	"preempt.NopObserver":         func(fx *apiFixture) []any { return []any{*new(preempt.NopObserver)} },
	"preempt.PreemptionEventKind": func(fx *apiFixture) []any { return []any{*new(preempt.PreemptionEventKind)} },
	"preempt.PrioritySelector":    func(fx *apiFixture) []any { return []any{*new(preempt.PrioritySelector)} },
	"preempt.Proportional":        func(fx *apiFixture) []any { return []any{fx.prop} },
	"preempt.ProportionalConfig":  func(fx *apiFixture) []any { return []any{*new(preempt.ProportionalConfig)} },
	"preempt.ProportionalPlan":    func(fx *apiFixture) []any { return []any{*new(preempt.ProportionalPlan)} },
	"preempt.ProportionalRound":   func(fx *apiFixture) []any { return []any{fx.round} },
	"preempt.QueueView":           func(fx *apiFixture) []any { return []any{*new(preempt.QueueView)} },
	"preempt.ReservedSelector":    func(fx *apiFixture) []any { return []any{*new(preempt.ReservedSelector)} },
	"queue.ACL":                   func(fx *apiFixture) []any { return []any{*new(queue.ACL)} },
	"queue.Access":                func(fx *apiFixture) []any { return []any{*new(queue.Access)} },
	"queue.AppEventKind":          func(fx *apiFixture) []any { return []any{*new(queue.AppEventKind)} },
	"queue.AppSpec":               func(fx *apiFixture) []any { return []any{*new(queue.AppSpec)} },
	"queue.Ask":                   func(fx *apiFixture) []any { return []any{*new(queue.Ask)} },
	"queue.Capacity":              func(fx *apiFixture) []any { return []any{*new(queue.Capacity)} },
	"queue.ConfigNote":            func(fx *apiFixture) []any { return []any{*new(queue.ConfigNote)} },
	"queue.ConfigReport":          func(fx *apiFixture) []any { return []any{*new(queue.ConfigReport)} },
	"queue.ConfigReportError":     func(fx *apiFixture) []any { return []any{*new(queue.ConfigReportError)} },
	"queue.Activity": func(fx *apiFixture) []any {
		return []any{queue.Activity{}, queue.Activity{App: "a", Result: queue.Result{Outcome: queue.Allocated}, Limited: "root"}}
	},
	"queue.ActivityLog": func(fx *apiFixture) []any {
		var recording queue.ActivityLog
		recording.RecordNode("")
		recording.RecordApp("a", 2)
		return []any{&queue.ActivityLog{}, &recording}
	},
	"queue.ContainerEventKind": func(fx *apiFixture) []any { return []any{*new(queue.ContainerEventKind)} },
	"queue.Delta":              func(fx *apiFixture) []any { return []any{*new(queue.Delta)} },
	"queue.Diff":               func(fx *apiFixture) []any { return []any{*new(queue.Diff)} },
	"queue.Error":              func(fx *apiFixture) []any { return []any{*new(queue.Error)} },
	"queue.EventLog":           func(fx *apiFixture) []any { return []any{&queue.EventLog{}} },
	"queue.EventState":         func(fx *apiFixture) []any { return []any{queue.NewEventState([]string{"root.default"})} },
	"queue.ExitStatus":         func(fx *apiFixture) []any { return []any{*new(queue.ExitStatus)} },
	"queue.GroupsFunc": func(fx *apiFixture) []any {
		return []any{queue.GroupsFunc(func(string) []string { return []string{"staff"} })}
	},
	"queue.IDIndex":        func(fx *apiFixture) []any { return []any{&queue.IDIndex[int]{}} },
	"queue.KeyRule":        func(fx *apiFixture) []any { return []any{*new(queue.KeyRule)} },
	"queue.KeySupport":     func(fx *apiFixture) []any { return []any{*new(queue.KeySupport)} },
	"queue.KeyTable":       func(fx *apiFixture) []any { return []any{*new(queue.KeyTable)} },
	"queue.Kind":           func(fx *apiFixture) []any { return []any{*new(queue.Kind)} },
	"queue.Locality":       func(fx *apiFixture) []any { return []any{*new(queue.Locality)} },
	"queue.NopObserver":    func(fx *apiFixture) []any { return []any{*new(queue.NopObserver)} },
	"queue.NoteKind":       func(fx *apiFixture) []any { return []any{*new(queue.NoteKind)} },
	"queue.Outcome":        func(fx *apiFixture) []any { return []any{queue.Skipped, queue.Outcome(200)} },
	"queue.Path":           func(fx *apiFixture) []any { return []any{*new(queue.Path)} },
	"queue.Queue":          func(fx *apiFixture) []any { return []any{fx.tree.Root(), must(fx.tree.Lookup("dedicated"))} },
	"queue.QueueEventKind": func(fx *apiFixture) []any { return []any{*new(queue.QueueEventKind)} },
	"queue.Racks":          func(fx *apiFixture) []any { return []any{*new(queue.Racks)} },
	"queue.Reason":         func(fx *apiFixture) []any { return []any{queue.ReasonNone, queue.ReasonQueueLimit, queue.Reason(200)} },
	"queue.Registry":       func(fx *apiFixture) []any { return []any{&queue.Registry[int]{}} },
	"queue.RequestKey":     func(fx *apiFixture) []any { return []any{fx.reqs.Keys()[0]} },
	"queue.Requests":       func(fx *apiFixture) []any { return []any{fx.reqs, &queue.Requests[int]{}} },
	"queue.ReservationACLs": func(fx *apiFixture) []any {
		return []any{&queue.ReservationACLs{}, queue.NewReservationACLs(queue.StaticGroups{"alice": {"staff"}}, map[string]queue.ReservationQueueACLs{"dedicated": {}})}
	},
	"queue.ReservationSettings":       func(fx *apiFixture) []any { return []any{*new(queue.ReservationSettings)} },
	"queue.ReservationSystemSettings": func(fx *apiFixture) []any { return []any{*new(queue.ReservationSystemSettings)} },
	"queue.Snapshot": func(fx *apiFixture) []any {
		return []any{queue.SnapshotWith(fx.tree, func(*queue.Queue[int]) int { return 1 })}
	},
	"queue.State":            func(fx *apiFixture) []any { return []any{*new(queue.State)} },
	"queue.StaticGroups":     func(fx *apiFixture) []any { return []any{*new(queue.StaticGroups)} },
	"queue.Tree":             func(fx *apiFixture) []any { return []any{fx.tree} },
	"queue.UnknownNameError": func(fx *apiFixture) []any { return []any{*new(queue.UnknownNameError)} },
	"queue.Usage":            func(fx *apiFixture) []any { return []any{*new(queue.Usage)} },
	"rle.Area":               func(fx *apiFixture) []any { return []any{*new(rle.Area)} },
	"rle.Int128":             func(fx *apiFixture) []any { return []any{*new(rle.Int128)} },
	"rle.NegativeError":      func(fx *apiFixture) []any { return []any{*new(rle.NegativeError)} },
	"rle.Op":                 func(fx *apiFixture) []any { return []any{*new(rle.Op)} },
	"rle.Periodic":           func(fx *apiFixture) []any { return []any{fx.periodic} },
	"rle.RemoveError":        func(fx *apiFixture) []any { return []any{*new(rle.RemoveError)} },
	"rle.Series":             func(fx *apiFixture) []any { return []any{fx.series, rle.New(), rle.Undefined()} },
}
