package preempt

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
)

// yarn-site.xml keys the fair preemptor reads.
const (
	FairKeyPreemption                = "yarn.scheduler.fair.preemption"
	FairKeyUtilizationThreshold      = "yarn.scheduler.fair.preemption.cluster-utilization-threshold"
	FairKeyWaitTimeBeforeKill        = "yarn.scheduler.fair.waitTimeBeforeKill"
	FairKeyWaitBeforeNextStarvation  = "yarn.scheduler.fair.waitTimeBeforeNextStarvationCheck"
	FairKeyContinuousScheduling      = "yarn.scheduler.fair.continuous-scheduling-enabled"
	FairKeyContinuousSchedulingSleep = "yarn.scheduler.fair.continuous-scheduling-sleep-ms"
	FairKeyNMHeartbeatInterval       = "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms"
	// FairKeyKillUnneeded is Berth's own key (no YARN counterpart): true
	// reproduces YARN's timer, which kills a marked container even when
	// the application it was chosen for no longer needs it.
	FairKeyKillUnneeded = "berth.preempt.fair.kill-unneeded"
)

// FairConfig is the fair preemptor's configuration in typed form. Each
// field names its yarn-site.xml key; [DefaultFairConfig] holds YARN's
// defaults (the zero value does not). The per-queue settings —
// minSharePreemptionTimeout, fairSharePreemptionTimeout,
// fairSharePreemptionThreshold, allowPreemptionFrom — live in the
// allocation file, which package fair parses and applies.
type FairConfig struct {
	// Enabled turns preemption on (yarn.scheduler.fair.preemption, false).
	Enabled bool
	// UtilizationThreshold: no starved application is served while the
	// cluster's utilization (the larger of the memory and vcores ratios)
	// is at or below it
	// (yarn.scheduler.fair.preemption.cluster-utilization-threshold, 0.8).
	UtilizationThreshold float64
	// WaitTimeBeforeKill is how long a marked container may run before it
	// is killed, in ms (yarn.scheduler.fair.waitTimeBeforeKill, 15000).
	WaitTimeBeforeKill berth.Duration
	// WaitBeforeNextStarvationCheck is added to the back-off of an
	// application preemption acted for, in ms
	// (yarn.scheduler.fair.waitTimeBeforeNextStarvationCheck, 10000).
	WaitBeforeNextStarvationCheck berth.Duration
	// ContinuousScheduling, ContinuousSchedulingSleep (ms) and
	// NMHeartbeatInterval (ms) size the allocation delay of the back-off:
	// 10 continuous-scheduling runs, or 4 node heartbeats
	// (yarn.scheduler.fair.continuous-scheduling-enabled false,
	// yarn.scheduler.fair.continuous-scheduling-sleep-ms 5,
	// yarn.resourcemanager.nodemanagers.heartbeat-interval-ms 1000).
	ContinuousScheduling      bool
	ContinuousSchedulingSleep berth.Duration
	NMHeartbeatInterval       berth.Duration
	// KillUnneeded kills a marked container after the wait even when the
	// starved application no longer needs it, as YARN's timer does
	// (berth.preempt.fair.kill-unneeded, false: such a container is
	// released instead).
	KillUnneeded bool
}

// DefaultFairConfig returns YARN's defaults (preemption off).
func DefaultFairConfig() FairConfig {
	return FairConfig{
		UtilizationThreshold:          0.8,
		WaitTimeBeforeKill:            15000,
		WaitBeforeNextStarvationCheck: 10000,
		ContinuousSchedulingSleep:     5,
		NMHeartbeatInterval:           1000,
	}
}

// Validate checks every field; the error is a *berth.FieldError naming
// the key. Negative durations are refused: YARN's timer throws on a
// negative delay, which kills its preemption thread.
func (c FairConfig) Validate() error {
	if math.IsNaN(c.UtilizationThreshold) || math.IsInf(c.UtilizationThreshold, 0) {
		return berth.InvalidField(FairKeyUtilizationThreshold, c.UtilizationThreshold, "must be a finite number")
	}
	for _, d := range []struct {
		key string
		v   berth.Duration
	}{
		{FairKeyWaitTimeBeforeKill, c.WaitTimeBeforeKill},
		{FairKeyWaitBeforeNextStarvation, c.WaitBeforeNextStarvationCheck},
		{FairKeyContinuousSchedulingSleep, c.ContinuousSchedulingSleep},
		{FairKeyNMHeartbeatInterval, c.NMHeartbeatInterval},
	} {
		if d.v < 0 {
			return berth.InvalidField(d.key, d.v, "must not be negative")
		}
	}
	return nil
}

// StarvationBackoff is how long an application preemption acted for is
// left alone: the kill wait, the allocation delay and the extra wait
// (YARN's delayBeforeNextStarvationCheck), saturating at the largest
// duration where YARN's long arithmetic would wrap.
func (c FairConfig) StarvationBackoff() berth.Duration {
	alloc := satMul(4, c.NMHeartbeatInterval)
	if c.ContinuousScheduling {
		alloc = satMul(10, c.ContinuousSchedulingSleep)
	}
	return satAdd(satAdd(c.WaitTimeBeforeKill, alloc), c.WaitBeforeNextStarvationCheck)
}

// ApplyTo copies the switches the scheduler itself reads (it computes
// starvation only with preemption on and above the threshold) into cfg.
func (c FairConfig) ApplyTo(cfg *fair.Config) {
	if cfg == nil {
		return
	}
	cfg.Preemption = c.Enabled
	cfg.PreemptionUtilizationThreshold = c.UtilizationThreshold
}

func satAdd(a, b berth.Duration) berth.Duration {
	if a > 0 && b > math.MaxInt64-a {
		return math.MaxInt64
	}
	return a + b
}

func satMul(k int64, d berth.Duration) berth.Duration {
	if d > math.MaxInt64/k {
		return math.MaxInt64
	}
	return k * d
}

// ParseFairConfig reads the fair preemptor's keys from yarn-site.xml
// properties (name → value) over [DefaultFairConfig]; other keys are
// ignored. Values are trimmed; booleans are true/false in any case (as
// Hadoop's getBoolean); numbers are decimal. A bad value is a
// *berth.FieldError (errors.Is berth.ErrInvalidArgument) naming the key.
// Keys are read in sorted order, so the first error is deterministic.
func ParseFairConfig(props map[string]string) (FairConfig, error) {
	c := DefaultFairConfig()
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := strings.TrimSpace(props[k])
		var err error
		switch k {
		case FairKeyPreemption:
			c.Enabled, err = parseBool(k, v)
		case FairKeyContinuousScheduling:
			c.ContinuousScheduling, err = parseBool(k, v)
		case FairKeyKillUnneeded:
			c.KillUnneeded, err = parseBool(k, v)
		case FairKeyUtilizationThreshold:
			c.UtilizationThreshold, err = strconv.ParseFloat(v, 64)
			if err != nil {
				err = berth.InvalidField(k, v, "not a number")
			}
		case FairKeyWaitTimeBeforeKill:
			c.WaitTimeBeforeKill, err = parseMillis(k, v)
		case FairKeyWaitBeforeNextStarvation:
			c.WaitBeforeNextStarvationCheck, err = parseMillis(k, v)
		case FairKeyContinuousSchedulingSleep:
			c.ContinuousSchedulingSleep, err = parseMillis(k, v)
		case FairKeyNMHeartbeatInterval:
			c.NMHeartbeatInterval, err = parseMillis(k, v)
		}
		if err != nil {
			return FairConfig{}, err
		}
	}
	if err := c.Validate(); err != nil {
		return FairConfig{}, err
	}
	return c, nil
}

func parseBool(key, v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, berth.InvalidField(key, v, "must be true or false")
}

func parseMillis(key, v string) (berth.Duration, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, berth.InvalidField(key, v, "not an integer number of milliseconds")
	}
	return n, nil
}
