package agent

import (
	"encoding/binary"
	"math"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
)

// Durable state. Agents keep no state between calls (their
// scratch buffers hold nothing an answer depends on), so a plan snapshot
// records its agent by name and options ([plan.ComponentSpec], through
// StateSpec) and [Resolve] rebuilds the built-ins on restore.

// Names of the built-in agents in a plan snapshot.
const (
	GreedyName                   = "Greedy"
	AlignedPlannerWithGreedyName = "AlignedPlannerWithGreedy"
	PortfolioName                = "Portfolio"
	LegacyGreedyName             = "LegacyGreedy"
	TryManyName                  = "TryMany"
	LeastWasteName               = "LeastWaste"
)

var (
	_ plan.Specified = (*IterativePlanner)(nil)
	_ plan.Specified = (*TryMany)(nil)
	_ plan.Specified = (*Portfolio)(nil)
	_ plan.Specified = (*LegacyGreedy)(nil)
	_ plan.Specified = (*LeastWaste)(nil)
)

// Option flags in a spec's parameters.
const (
	flagFavorEarly = 1 << iota
	flagExactScan
	flagComponentwiseFit
)

// appendOptions encodes o: a flags byte, then the smoothness factor.
func appendOptions(b []byte, o Config) []byte {
	var f byte
	if o.FavorEarlyAllocation {
		f |= flagFavorEarly
	}
	if o.ExactScan {
		f |= flagExactScan
	}
	if o.ComponentwiseFit {
		f |= flagComponentwiseFit
	}
	return binary.AppendVarint(append(b, f), int64(o.SmoothnessFactor))
}

// readOptions decodes what appendOptions wrote, the whole of b.
func readOptions(b []byte) (Config, bool) {
	if len(b) < 2 || b[0]&^(flagFavorEarly|flagExactScan|flagComponentwiseFit) != 0 {
		return Config{}, false
	}
	sf, k := binary.Varint(b[1:])
	if k <= 0 || 1+k != len(b) || int64(int(sf)) != sf {
		return Config{}, false
	}
	return Config{FavorEarlyAllocation: b[0]&flagFavorEarly != 0, ExactScan: b[0]&flagExactScan != 0,
		ComponentwiseFit: b[0]&flagComponentwiseFit != 0, SmoothnessFactor: int(sf)}, true
}

// isGreedy reports whether ip is the greedy agent (NewGreedy's parts).
func (ip *IterativePlanner) isGreedy() bool {
	_, iv := ip.interval().(Unconstrained)
	_, al := ip.allocator().(GreedyRLE)
	return iv && al
}

// StateSpec records the planner: "Greedy" and its options for the greedy
// agent of [NewGreedy]; for other parts, a name built from their names
// (the host must then supply the planner on restore).
func (ip *IterativePlanner) StateSpec() plan.ComponentSpec {
	if ip.isGreedy() {
		return plan.ComponentSpec{Name: GreedyName, Params: appendOptions(nil, ip.Config)}
	}
	return plan.ComponentSpec{Name: "IterativePlanner(" + ip.interval().Name() + ", " + ip.allocator().Name() + ")",
		Params: appendOptions(nil, ip.Config)}
}

// StateSpec records the agent: "AlignedPlannerWithGreedy" and its options
// when it is what [NewAlignedPlannerWithGreedy] builds, else "TryMany"
// with the specs of its agents in order.
func (t *TryMany) StateSpec() plan.ComponentSpec {
	if len(t.Agents) == 2 {
		a, ok1 := t.Agents[0].(*IterativePlanner)
		g, ok2 := t.Agents[1].(*IterativePlanner)
		if ok1 && ok2 && g.isGreedy() && a.Config == g.Config {
			_, bd := a.interval().(ByDemand)
			lc, ok := a.allocator().(LowCostAligned)
			if bd && ok && lc.SmoothnessFactor == a.Config.SmoothnessFactor {
				return plan.ComponentSpec{Name: AlignedPlannerWithGreedyName, Params: appendOptions(nil, a.Config)}
			}
		}
	}
	var b []byte
	for _, a := range t.Agents {
		s := plan.ComponentSpec{Name: "<nil>"}
		if a != nil {
			if sp, ok := a.(plan.Specified); ok {
				s = sp.StateSpec()
			} else {
				s.Name = "host agent"
			}
		}
		b = binary.AppendUvarint(b, uint64(len(s.Name)))
		b = append(b, s.Name...)
		b = binary.AppendUvarint(b, uint64(len(s.Params)))
		b = append(b, s.Params...)
	}
	return plan.ComponentSpec{Name: TryManyName, Params: b}
}

// StateSpec records the portfolio: "Portfolio" and the options it was
// built with.
func (f *Portfolio) StateSpec() plan.ComponentSpec {
	return plan.ComponentSpec{Name: PortfolioName, Params: appendOptions(nil, f.opts)}
}

// StateSpec records the agent: "LegacyGreedy" and its ComponentwiseFit
// flag as one byte.
func (g *LegacyGreedy) StateSpec() plan.ComponentSpec {
	b := byte(0)
	if g.ComponentwiseFit {
		b = 1
	}
	return plan.ComponentSpec{Name: LegacyGreedyName, Params: []byte{b}}
}

// StateSpec records the agent: "LeastWaste", its options, then the waste
// options (gap as a varint, slack and contested as float64 bits).
func (lw *LeastWaste) StateSpec() plan.ComponentSpec {
	b := appendOptions(nil, lw.opts)
	b = binary.AppendVarint(b, lw.wopts.Gap)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(lw.wopts.Slack))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(lw.wopts.Contested))
	return plan.ComponentSpec{Name: LeastWasteName, Params: b}
}

// readLeastWaste decodes what LeastWaste.StateSpec wrote.
func readLeastWaste(b []byte) (Config, WasteConfig, bool) {
	if len(b) < 2+1+16 {
		return Config{}, WasteConfig{}, false
	}
	floats := b[len(b)-16:]
	b = b[:len(b)-16]
	// The options end where the gap's varint begins: try each split.
	for cut := 2; cut < len(b); cut++ {
		o, ok := readOptions(b[:cut])
		if !ok {
			continue
		}
		gap, k := binary.Varint(b[cut:])
		if k <= 0 || cut+k != len(b) {
			continue
		}
		w := WasteConfig{Gap: gap,
			Slack:     math.Float64frombits(binary.LittleEndian.Uint64(floats)),
			Contested: math.Float64frombits(binary.LittleEndian.Uint64(floats[8:]))}
		return o, w, true
	}
	return Config{}, WasteConfig{}, false
}

// maxTryManyDepth bounds the nesting of TryMany specs Resolve follows.
const maxTryManyDepth = 8

// Resolve rebuilds the agent a plan snapshot recorded: nil for the zero
// spec, else the built-in it names with its options (Greedy,
// AlignedPlannerWithGreedy, Portfolio, LeastWaste, LegacyGreedy, or a TryMany of
// those). Another name (a host's agent) or malformed parameters is a
// *berth.FieldError of kind berth.ErrInvalidArgument.
func Resolve(spec plan.ComponentSpec) (plan.Agent, error) {
	return resolve(spec, 0)
}

func resolve(spec plan.ComponentSpec, depth int) (plan.Agent, error) {
	bad := func() (plan.Agent, error) {
		return nil, berth.InvalidField("agent.params", spec.Params, "not a configuration of "+spec.Name)
	}
	switch spec.Name {
	case "":
		if len(spec.Params) > 0 {
			return bad()
		}
		return nil, nil
	case GreedyName, AlignedPlannerWithGreedyName, PortfolioName:
		o, ok := readOptions(spec.Params)
		if !ok {
			return bad()
		}
		var a plan.Agent
		var err error
		switch spec.Name {
		case GreedyName:
			a, err = NewGreedy(o)
		case AlignedPlannerWithGreedyName:
			a, err = NewAlignedPlannerWithGreedy(o)
		default:
			a, err = NewPortfolio(o)
		}
		if err != nil {
			return nil, err
		}
		return a, nil
	case LeastWasteName:
		o, w, ok := readLeastWaste(spec.Params)
		if !ok {
			return bad()
		}
		lw, err := NewLeastWaste(LeastWasteConfig{Config: o, Waste: w})
		if err != nil {
			return nil, err
		}
		return lw, nil
	case LegacyGreedyName:
		if len(spec.Params) != 1 || spec.Params[0] > 1 {
			return bad()
		}
		return &LegacyGreedy{ComponentwiseFit: spec.Params[0] == 1}, nil
	case TryManyName:
		if depth >= maxTryManyDepth {
			return bad()
		}
		t := &TryMany{}
		for b := spec.Params; len(b) > 0; {
			var parts [2][]byte
			for i := range parts {
				n, k := binary.Uvarint(b)
				if k <= 0 || n > uint64(len(b)-k) {
					return bad()
				}
				parts[i], b = b[k:k+int(n)], b[k+int(n):]
			}
			a, err := resolve(plan.ComponentSpec{Name: string(parts[0]), Params: parts[1]}, depth+1)
			if err != nil {
				return nil, err
			}
			if a == nil {
				return bad()
			}
			t.Agents = append(t.Agents, a)
		}
		return t, nil
	}
	return nil, berth.InvalidField("agent", spec.Name, "not a built-in agent: the host must supply it")
}
