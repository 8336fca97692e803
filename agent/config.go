package agent

import (
	"math"

	"github.com/berthsched/berth"
)

// DefaultSmoothnessFactor is YARN's default smoothness factor of the
// aligned planner.
const DefaultSmoothnessFactor = 10

// Config tunes the agents. Start from [DefaultConfig] (YARN's defaults);
// the zero value allocates right to left.
type Config struct {
	// FavorEarlyAllocation places stages as early as possible (left to
	// right); false places them as late as possible. YARN key:
	// yarn.resourcemanager.reservation-system.favor-early-allocation
	// (default true).
	FavorEarlyAllocation bool
	// SmoothnessFactor divides how many gangs the low-cost aligned
	// allocator gives one candidate window per round. YARN key:
	// yarn.resourcemanager.reservation-system.smoothness-factor (default
	// 10). Used by [NewAlignedPlannerWithGreedy]; 0 means the default.
	SmoothnessFactor int
	// ExactScan makes the greedy scans exact where YARN is conservative:
	// the right-to-left scan ignores the segment that ends
	// where the candidate window starts, and ties keep the nearest
	// constraining point. Berth-only; default false (YARN's answers).
	ExactScan bool
	// ComponentwiseFit counts the gangs that fit with every resource type.
	// YARN counts them with the plan's calculator (memory only by default)
	// and may then find a placement the componentwise policy check
	// rejects. Berth-only; default false (YARN's answers).
	ComponentwiseFit bool
}

// DefaultConfig returns YARN's defaults: favor early allocation, smoothness
// factor 10, YARN's scans and fits.
func DefaultConfig() Config {
	return Config{FavorEarlyAllocation: true, SmoothnessFactor: DefaultSmoothnessFactor}
}

// Validate reports an invalid field as a *berth.FieldError.
func (o Config) Validate() error {
	if o.SmoothnessFactor < 0 {
		return berth.InvalidField("yarn.resourcemanager.reservation-system.smoothness-factor", o.SmoothnessFactor, "must not be negative")
	}
	return nil
}

func (o Config) allocateLeft() bool { return o.FavorEarlyAllocation }

// WasteConfig tunes [LeastWaste]; [DefaultWasteConfig] has the values
// the package documentation's results come from.
type WasteConfig struct {
	// Gap is the band length below which free capacity counts as
	// (partly) stranded. Positive (a zero WasteConfig as a whole means
	// [DefaultWasteConfig]).
	Gap berth.Duration
	// Slack is the waste, as a multiple of the candidate's own area,
	// beyond which a request is declined in a contested window; negative
	// never declines.
	Slack float64
	// Contested is the free share of the window (memory and vcores
	// averaged) below which the placement is chosen by waste and may be
	// declined; at or above it the late greedy placement is taken. 0
	// never weighs waste, above 1 always does.
	Contested float64
}

// DefaultWasteConfig returns Gap 90 min, Slack 0.4 and Contested 0.72:
// on the yardstick's streams they gain on both over the earlier 2 h, 0.4
// and 0.5, and the neighbouring values (Gap 75 to 100 min, Contested 0.7
// to 0.75) do about as well, so the figures do not hang on one point.
func DefaultWasteConfig() WasteConfig {
	return WasteConfig{Gap: 90 * 60 * 1000, Slack: 0.4, Contested: 0.72}
}

// Validate reports a field out of range as a *berth.FieldError.
func (w WasteConfig) Validate() error {
	switch {
	case w.Gap <= 0:
		return berth.InvalidField("waste-options.gap", w.Gap, "must be positive")
	case math.IsNaN(w.Slack) || math.IsInf(w.Slack, 0):
		return berth.InvalidField("waste-options.slack", w.Slack, "must be a finite number")
	case math.IsNaN(w.Contested) || w.Contested < 0:
		return berth.InvalidField("waste-options.contested", w.Contested, "must be a number ≥ 0")
	}
	return nil
}

// LeastWasteConfig configures [NewLeastWaste]: the planners' settings and
// the waste rule's. Of Config, SmoothnessFactor tunes its low-cost aligned
// planner and ExactScan its greedy scans; FavorEarlyAllocation and
// ComponentwiseFit are set by the agent itself.
type LeastWasteConfig struct {
	Config
	// Waste tunes the waste rule; the zero value is [DefaultWasteConfig].
	Waste WasteConfig
}
