package agent

import "github.com/berthsched/berth"

// FluidBound is the fluid bound of the episode per resource type, for the
// external tests.
func FluidBound(ep Episode) Area {
	c := ep.Config.Capacity
	return Area{
		Memory: fluidBound(ep, float64(c.Memory), func(r berth.Resource) float64 { return float64(r.Memory) },
			func(a Area) float64 { return a.Memory }),
		VCores: fluidBound(ep, float64(c.VCores), func(r berth.Resource) float64 { return float64(r.VCores) },
			func(a Area) float64 { return a.VCores }),
	}
}
