package policy

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
)

// Durable state. The policies and the replanner keep no
// state of their own: the history CapacityOverTime checks is the plan's
// reservations, saved with the plan, and their scratch buffers hold
// nothing an answer depends on. A plan's snapshot records them by name and
// configuration ([plan.ComponentSpec], through StateSpec), and [Resolve]
// and [ResolveReplanner] rebuild them on restore.

// Names of the built-ins in a plan snapshot.
const (
	NoOverCommitName            = "NoOverCommit"
	CapacityOverTimeName        = "CapacityOverTime"
	SimpleCapacityReplannerName = "SimpleCapacityReplanner"
)

var (
	_ plan.Specified = NoOverCommit{}
	_ plan.Specified = (*CapacityOverTime)(nil)
	_ plan.Specified = (*SimpleCapacityReplanner)(nil)
)

// StateSpec records the policy in a plan snapshot: its name, no
// parameters.
func (NoOverCommit) StateSpec() plan.ComponentSpec { return plan.ComponentSpec{Name: NoOverCommitName} }

// StateSpec records the policy in a plan snapshot: its name and its
// configuration (window as a varint, the two percentages as float32 bits,
// the exact-average flag).
func (c *CapacityOverTime) StateSpec() plan.ComponentSpec {
	b := binary.AppendVarint(nil, c.cfg.Window)
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(c.cfg.InstantaneousMaxPercent))
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(c.cfg.AveragePercent))
	flag := byte(0)
	if c.cfg.ExactAverage {
		flag = 1
	}
	return plan.ComponentSpec{Name: CapacityOverTimeName, Params: append(b, flag)}
}

// StateSpec records the replanner in a plan snapshot: its name and its
// enforcement window (a varint).
func (r *SimpleCapacityReplanner) StateSpec() plan.ComponentSpec {
	return plan.ComponentSpec{Name: SimpleCapacityReplannerName, Params: binary.AppendVarint(nil, r.cfg.EnforcementWindow)}
}

// Resolve rebuilds the sharing policy a plan snapshot recorded: nil for
// the zero spec, NoOverCommit or CapacityOverTime with its configuration.
// Another name, or parameters that do not decode to a valid
// configuration, is a *berth.FieldError of kind berth.ErrInvalidArgument.
func Resolve(spec plan.ComponentSpec) (plan.SharingPolicy, error) {
	switch spec.Name {
	case "":
		if len(spec.Params) > 0 {
			return nil, berth.InvalidField("policy", spec.Params, "parameters without a name")
		}
		return nil, nil
	case NoOverCommitName:
		if len(spec.Params) > 0 {
			return nil, berth.InvalidField("policy.params", spec.Params, "NoOverCommit takes no parameters")
		}
		return NoOverCommit{}, nil
	case CapacityOverTimeName:
		b := spec.Params
		w, k := binary.Varint(b)
		if k <= 0 || len(b) != k+9 || b[k+8] > 1 {
			return nil, berth.InvalidField("policy.params", b, "not a CapacityOverTime configuration")
		}
		cfg := CapacityOverTimeConfig{Window: w,
			InstantaneousMaxPercent: math.Float32frombits(binary.LittleEndian.Uint32(b[k:])),
			AveragePercent:          math.Float32frombits(binary.LittleEndian.Uint32(b[k+4:])),
			ExactAverage:            b[k+8] == 1}
		c, err := NewCapacityOverTime(cfg)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
	return nil, berth.InvalidField("policy", spec.Name, "not a built-in sharing policy")
}

// ResolveReplanner rebuilds the replanner a plan snapshot recorded: nil
// for the zero spec, else SimpleCapacityReplanner with its enforcement
// window. Another name or malformed parameters is a *berth.FieldError of
// kind berth.ErrInvalidArgument.
func ResolveReplanner(spec plan.ComponentSpec) (plan.Replanner, error) {
	switch spec.Name {
	case "":
		if len(spec.Params) > 0 {
			return nil, berth.InvalidField("replanner", spec.Params, "parameters without a name")
		}
		return nil, nil
	case SimpleCapacityReplannerName:
		w, k := binary.Varint(spec.Params)
		if k <= 0 || k != len(spec.Params) {
			return nil, berth.InvalidField("replanner.params", spec.Params, "not a SimpleCapacityReplanner configuration")
		}
		r, err := NewSimpleCapacityReplanner(ReplannerConfig{EnforcementWindow: w})
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	return nil, berth.InvalidField("replanner", spec.Name, fmt.Sprintf("not a built-in replanner (%s)", SimpleCapacityReplannerName))
}
