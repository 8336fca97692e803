package policy

import (
	"math"

	"github.com/berthsched/berth"
)

// Defaults of the capacity scheduler's per-queue reservation keys
// (CapacitySchedulerConfiguration / ReservationSchedulerConfiguration).
const (
	// DefaultWindow is the default reservation-window: one day, in ms.
	DefaultWindow berth.Duration = 86_400_000
	// DefaultInstantaneousMaxPercent is the default instantaneous-max-capacity.
	DefaultInstantaneousMaxPercent float32 = 100
	// DefaultAveragePercent is the default average-capacity.
	DefaultAveragePercent float32 = 100
	// DefaultEnforcementWindow is the default reservation-enforcement-window:
	// one hour, in ms.
	DefaultEnforcementWindow berth.Duration = 3_600_000
)

// maxWindow bounds the averaging window so that time arithmetic on it
// cannot overflow (2^60 ms is 36 million years).
const maxWindow berth.Duration = 1 << 60

// CapacityOverTimeConfig configures a [CapacityOverTime] policy for one
// reservable queue. Start from [DefaultCapacityOverTimeConfig]; the zero
// value is not valid (a zero window).
type CapacityOverTimeConfig struct {
	// Window is the length of the sliding window of the average check, in
	// ms. YARN key: yarn.scheduler.capacity.<queue-path>.reservation-window
	// (default 86,400,000). It is also how much history the plan keeps.
	Window berth.Duration
	// InstantaneousMaxPercent caps what one user may hold at any instant,
	// in percent of the plan capacity. YARN key:
	// yarn.scheduler.capacity.<queue-path>.instantaneous-max-capacity
	// (default 100).
	InstantaneousMaxPercent float32
	// AveragePercent caps a user's average over any window, in percent of
	// the plan capacity. YARN key:
	// yarn.scheduler.capacity.<queue-path>.average-capacity (default 100).
	AveragePercent float32
	// ExactAverage replaces YARN's sampled average check with the exact
	// one. For memory and for vcores separately (other resource types are
	// not averaged, as in YARN), the user's use, this reservation
	// included, integrated over every window [x − Window, x) that overlaps
	// the reservation must not exceed AveragePercent / 100 × the plan's
	// capacity in that type × Window, compared in exact arithmetic: the
	// limit is not truncated to whole units (25 % of 6 vcores is 1.5
	// vcores) and the average is not rounded. So it accepts every
	// reservation whose true average respects the limit in both types,
	// and rejects one only where the true average passes it.
	//
	// By default the check is YARN's: the limit truncated to
	// whole units (25 % of 6 vcores is 1 vcore), the running integral
	// sampled at breakpoints and every window, each sample's average
	// rounded to a whole unit, and integrals compared between samples
	// that may span up to two windows or less than one. It rejects some
	// reservations that respect the limit (a 25 h reservation at exactly
	// 25 %), and accepts some that pass it: where its samples miss the
	// worst window, and where rounding hides up to one unit (with small
	// limits, such as a vcore or two, a large share). Only there can the
	// exact check be the stricter one. Berth-only; no YARN key.
	ExactAverage bool
}

// DefaultCapacityOverTimeConfig returns YARN's defaults: a one-day window,
// 100 % instantaneous, 100 % average.
func DefaultCapacityOverTimeConfig() CapacityOverTimeConfig {
	return CapacityOverTimeConfig{
		Window:                  DefaultWindow,
		InstantaneousMaxPercent: DefaultInstantaneousMaxPercent,
		AveragePercent:          DefaultAveragePercent,
	}
}

// Validate reports the first invalid field as a *berth.FieldError.
func (c CapacityOverTimeConfig) Validate() error {
	if c.Window <= 0 || c.Window > maxWindow {
		return berth.InvalidField("reservation-window", c.Window, "must be positive and at most 2^60 ms")
	}
	if !validPercent(c.InstantaneousMaxPercent) {
		return berth.InvalidField("instantaneous-max-capacity", c.InstantaneousMaxPercent, "must be a finite, non-negative percentage")
	}
	if !validPercent(c.AveragePercent) {
		return berth.InvalidField("average-capacity", c.AveragePercent, "must be a finite, non-negative percentage")
	}
	return nil
}

func validPercent(p float32) bool {
	return p >= 0 && !math.IsInf(float64(p), 0) && !math.IsNaN(float64(p))
}

// ReplannerConfig configures a [SimpleCapacityReplanner].
type ReplannerConfig struct {
	// EnforcementWindow is how far ahead of now the replanner repairs
	// over-commitment, in ms. YARN key:
	// yarn.scheduler.capacity.<queue-path>.reservation-enforcement-window
	// (default 3,600,000).
	EnforcementWindow berth.Duration
}

// DefaultReplannerConfig returns YARN's default: a one-hour window.
func DefaultReplannerConfig() ReplannerConfig {
	return ReplannerConfig{EnforcementWindow: DefaultEnforcementWindow}
}

// Validate reports the first invalid field as a *berth.FieldError.
func (c ReplannerConfig) Validate() error {
	if c.EnforcementWindow < 0 {
		return berth.InvalidField("reservation-enforcement-window", c.EnforcementWindow, "must not be negative")
	}
	return nil
}
