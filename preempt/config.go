package preempt

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// Key prefixes of the proportional policy's settings, as YARN spells them.
const (
	// MonitorPrefix starts every `yarn.resourcemanager.monitor.capacity.preemption.*` key.
	MonitorPrefix = "yarn.resourcemanager.monitor.capacity.preemption."
	// CapacityPrefix starts the capacity scheduler's keys (per-queue
	// disable_preemption, the priority-utilization preemption switches).
	CapacityPrefix = "yarn.scheduler.capacity."
	// underutilized is the priority-utilization ordering's preemption family.
	underutilized = CapacityPrefix + "ordering-policy.priority-utilization.underutilized-preemption."
)

// IntraQueueOrder is intra-queue-preemption.preemption-order-policy: which
// fairness the intra-queue selector restores first.
type IntraQueueOrder uint8

const (
	// UserLimitFirst balances users toward their user limits first
	// ("userlimit_first", YARN's default).
	UserLimitFirst IntraQueueOrder = iota
	// PriorityFirst lets higher-priority applications take from lower ones
	// first ("priority_first").
	PriorityFirst
)

// String returns YARN's spelling.
func (o IntraQueueOrder) String() string {
	if o == PriorityFirst {
		return "priority_first"
	}
	return "userlimit_first"
}

// QueuePreemption is one queue's preemption switches. Unset values inherit
// the parent's (the root's default is false), as YARN's do.
type QueuePreemption struct {
	// DisablePreemption is yarn.scheduler.capacity.<queue>.disable_preemption:
	// no container of the queue (or of its descendants, unless they set it
	// back) is preempted for other queues.
	DisablePreemption *bool
	// DisableIntraQueuePreemption is
	// yarn.scheduler.capacity.<queue>.intra-queue-preemption.disable_preemption.
	DisableIntraQueuePreemption *bool
}

// ProportionalConfig is the typed configuration of the capacity
// scheduler's proportional preemption policy (YARN's
// ProportionalCapacityPreemptionPolicy). Durations are milliseconds of the
// host's clock. Start from [DefaultProportionalConfig]; read a
// capacity-scheduler.xml with [ParseProportionalXML].
type ProportionalConfig struct {
	// MonitoringInterval is monitoring_interval (3000): how often the host
	// should call [Proportional.Round]. The policy does not enforce it.
	MonitoringInterval berth.Duration
	// MaxWaitBeforeKill is max_wait_before_kill (15000): a container is
	// killed only when selected again this long after it was first marked,
	// at a round, so the wait is rounded up to whole MonitoringIntervals.
	MaxWaitBeforeKill berth.Duration
	// TotalPreemptionPerRound is total_preemption_per_round (0.1): the
	// fraction of the cluster that all selectors together may select in
	// one round.
	TotalPreemptionPerRound float64
	// MaxIgnoredOverCapacity is max_ignored_over_capacity (0.1), the dead
	// zone: a leaf is preempted from only when its usage exceeds its
	// guarantee times 1 + this.
	MaxIgnoredOverCapacity float64
	// NaturalTerminationFactor is natural_termination_factor (0.2): the
	// share of a leaf's excess asked for per round, leaving the rest to
	// containers that finish by themselves.
	NaturalTerminationFactor float64
	// ObserveOnly is observe_only (false): rounds compute and report their
	// selection but never mark or kill.
	ObserveOnly bool
	// SelectBasedOnReservedContainers is select_based_on_reserved_containers
	// (false): run the reserved-container selector, which frees one node
	// for a large reservation.
	SelectBasedOnReservedContainers bool
	// AdditionalBalanceBasedOnReserved is
	// additional_res_balance_based_on_reserved_containers (false): the FIFO
	// selector counts reserved resources as demand and skips the natural
	// termination factor.
	AdditionalBalanceBasedOnReserved bool
	// IntraQueueEnabled is intra-queue-preemption.enabled (false).
	IntraQueueEnabled bool
	// IntraQueueMinimumThreshold is intra-queue-preemption.minimum-threshold
	// (0.5): a leaf's used capacity must reach this for intra-queue
	// preemption.
	IntraQueueMinimumThreshold float64
	// IntraQueueMaxAllowableLimit is intra-queue-preemption.max-allowable-limit
	// (0.2): the share of a leaf's guarantee preemptable inside it per round.
	IntraQueueMaxAllowableLimit float64
	// IntraQueueOrder is intra-queue-preemption.preemption-order-policy
	// (userlimit_first).
	IntraQueueOrder IntraQueueOrder
	// ConservativeDRF is conservative-drf (false): across queues, stop
	// taking from a queue when any resource type of what it must give is
	// met (true) rather than all (false).
	ConservativeDRF bool
	// IntraQueueConservativeDRF is intra-queue-preemption.conservative-drf
	// (true): the same switch inside a queue.
	IntraQueueConservativeDRF bool
	// BalanceAfterSatisfied is
	// preemption-to-balance-queue-after-satisfied.enabled (false): a second
	// FIFO selector evens out queues already beyond their guarantee.
	BalanceAfterSatisfied bool
	// BalanceMaxWaitBeforeKill is
	// preemption-to-balance-queue-after-satisfied.max-wait-before-kill
	// (300000): that selector's own kill wait.
	BalanceMaxWaitBeforeKill berth.Duration
	// PriorityPreemption is yarn.scheduler.capacity.ordering-policy.
	// priority-utilization.underutilized-preemption.enabled (false): run
	// the queue-priority selector first.
	PriorityPreemption bool
	// PriorityReservedContainerDelay is
	// …underutilized-preemption.reserved-container-delay-ms (60000): how
	// old a reservation must be before it triggers priority preemption.
	PriorityReservedContainerDelay berth.Duration
	// PriorityAllowMoveReservation is
	// …underutilized-preemption.allow-move-reservation (false). Berth's
	// capacity scheduler cannot move a reservation, so the selector only
	// reports the node it would move to (see the package doc).
	PriorityAllowMoveReservation bool
	// ForgetUnselected is a Berth option with no YARN key (default false):
	// forget a marked container as soon as a round no longer selects it,
	// so that it must wait the whole kill wait again if selected later.
	// YARN keeps the mark for twice max_wait_before_kill.
	ForgetUnselected bool
	// Queues holds the per-queue switches by full path ("root.a.b"). A
	// queue not listed inherits from its parent.
	Queues map[string]QueuePreemption
}

// DefaultProportionalConfig returns YARN 3.3's defaults.
func DefaultProportionalConfig() ProportionalConfig {
	return ProportionalConfig{
		MonitoringInterval:             3000,
		MaxWaitBeforeKill:              15000,
		TotalPreemptionPerRound:        0.1,
		MaxIgnoredOverCapacity:         0.1,
		NaturalTerminationFactor:       0.2,
		IntraQueueMinimumThreshold:     0.5,
		IntraQueueMaxAllowableLimit:    0.2,
		IntraQueueConservativeDRF:      true,
		BalanceMaxWaitBeforeKill:       300000,
		PriorityReservedContainerDelay: 60000,
	}
}

// Validate checks every value and names the offending key.
func (c ProportionalConfig) Validate() error {
	durs := []struct {
		key string
		v   berth.Duration
	}{
		{"monitoring_interval", c.MonitoringInterval},
		{"max_wait_before_kill", c.MaxWaitBeforeKill},
		{"preemption-to-balance-queue-after-satisfied.max-wait-before-kill", c.BalanceMaxWaitBeforeKill},
	}
	for _, d := range durs {
		if d.v < 0 {
			return berth.InvalidField(MonitorPrefix+d.key, d.v, "must not be negative")
		}
	}
	if c.PriorityReservedContainerDelay < 0 {
		return berth.InvalidField(underutilized+"reserved-container-delay-ms", c.PriorityReservedContainerDelay, "must not be negative")
	}
	fracs := []struct {
		key string
		v   float64
	}{
		{"total_preemption_per_round", c.TotalPreemptionPerRound},
		{"max_ignored_over_capacity", c.MaxIgnoredOverCapacity},
		{"natural_termination_factor", c.NaturalTerminationFactor},
		{"intra-queue-preemption.minimum-threshold", c.IntraQueueMinimumThreshold},
		{"intra-queue-preemption.max-allowable-limit", c.IntraQueueMaxAllowableLimit},
	}
	for _, f := range fracs {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			return berth.InvalidField(MonitorPrefix+f.key, f.v, "must be a finite number ≥ 0")
		}
	}
	if c.IntraQueueOrder > PriorityFirst {
		return berth.InvalidField(MonitorPrefix+"intra-queue-preemption.preemption-order-policy", c.IntraQueueOrder, "unknown order")
	}
	for _, p := range sortedKeys(c.Queues) {
		if p == "" || strings.HasPrefix(p, ".") || strings.HasSuffix(p, ".") {
			return berth.InvalidField(CapacityPrefix+p+".disable_preemption", p, "not a queue path")
		}
	}
	return nil
}

// sortedKeys returns m's keys in ascending order: every walk of a map
// that decides or writes something goes through it, never map order.
func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	return slices.Sorted(maps.Keys(m))
}

// ParseProportionalProperties reads the policy's keys from Hadoop
// configuration properties (name → value), as found in
// capacity-scheduler.xml or yarn-site.xml: the
// `yarn.resourcemanager.monitor.capacity.preemption.*` keys, the
// priority-utilization preemption keys and every queue's
// `disable_preemption` and `intra-queue-preemption.disable_preemption`.
// Missing keys keep YARN's defaults; other keys are ignored. Errors are
// *berth.FieldError naming the key.
func ParseProportionalProperties(props map[string]string) (ProportionalConfig, error) {
	c := DefaultProportionalConfig()
	p := proportionalProps{props: props}
	p.dur(MonitorPrefix+"monitoring_interval", &c.MonitoringInterval)
	p.dur(MonitorPrefix+"max_wait_before_kill", &c.MaxWaitBeforeKill)
	p.float(MonitorPrefix+"total_preemption_per_round", &c.TotalPreemptionPerRound)
	p.float(MonitorPrefix+"max_ignored_over_capacity", &c.MaxIgnoredOverCapacity)
	p.float(MonitorPrefix+"natural_termination_factor", &c.NaturalTerminationFactor)
	p.bool(MonitorPrefix+"observe_only", &c.ObserveOnly)
	p.bool(MonitorPrefix+"select_based_on_reserved_containers", &c.SelectBasedOnReservedContainers)
	p.bool(MonitorPrefix+"additional_res_balance_based_on_reserved_containers", &c.AdditionalBalanceBasedOnReserved)
	p.bool(MonitorPrefix+"intra-queue-preemption.enabled", &c.IntraQueueEnabled)
	p.float(MonitorPrefix+"intra-queue-preemption.minimum-threshold", &c.IntraQueueMinimumThreshold)
	p.float(MonitorPrefix+"intra-queue-preemption.max-allowable-limit", &c.IntraQueueMaxAllowableLimit)
	if v, ok := p.get(MonitorPrefix + "intra-queue-preemption.preemption-order-policy"); ok {
		switch strings.ToLower(v) {
		case "userlimit_first":
			c.IntraQueueOrder = UserLimitFirst
		case "priority_first":
			c.IntraQueueOrder = PriorityFirst
		default:
			p.fail(MonitorPrefix+"intra-queue-preemption.preemption-order-policy", v, "want userlimit_first or priority_first")
		}
	}
	p.bool(MonitorPrefix+"conservative-drf", &c.ConservativeDRF)
	p.bool(MonitorPrefix+"intra-queue-preemption.conservative-drf", &c.IntraQueueConservativeDRF)
	p.bool(MonitorPrefix+"preemption-to-balance-queue-after-satisfied.enabled", &c.BalanceAfterSatisfied)
	p.dur(MonitorPrefix+"preemption-to-balance-queue-after-satisfied.max-wait-before-kill", &c.BalanceMaxWaitBeforeKill)
	p.bool(underutilized+"enabled", &c.PriorityPreemption)
	p.dur(underutilized+"reserved-container-delay-ms", &c.PriorityReservedContainerDelay)
	p.bool(underutilized+"allow-move-reservation", &c.PriorityAllowMoveReservation)
	for _, k := range sortedKeys(props) {
		rest, ok := strings.CutPrefix(k, CapacityPrefix)
		if !ok || p.err != nil {
			continue
		}
		var dst func(*QueuePreemption) **bool
		var path string
		switch {
		case strings.HasSuffix(rest, ".intra-queue-preemption.disable_preemption"):
			path = strings.TrimSuffix(rest, ".intra-queue-preemption.disable_preemption")
			dst = func(q *QueuePreemption) **bool { return &q.DisableIntraQueuePreemption }
		case strings.HasSuffix(rest, ".disable_preemption"):
			path = strings.TrimSuffix(rest, ".disable_preemption")
			dst = func(q *QueuePreemption) **bool { return &q.DisablePreemption }
		default:
			continue
		}
		var b bool
		p.bool(k, &b)
		if p.err != nil {
			break
		}
		if c.Queues == nil {
			c.Queues = map[string]QueuePreemption{}
		}
		q := c.Queues[path]
		*dst(&q) = &b
		c.Queues[path] = q
	}
	if p.err != nil {
		return ProportionalConfig{}, p.err
	}
	if err := c.Validate(); err != nil {
		return ProportionalConfig{}, err
	}
	return c, nil
}

// ParseProportionalXML reads the policy's keys from a Hadoop configuration
// file (capacity-scheduler.xml or yarn-site.xml); see
// [ParseProportionalProperties]. The capacity scheduler's own keys in the
// same file are read by capacity.ParseXML.
func ParseProportionalXML(r io.Reader) (ProportionalConfig, error) {
	props, err := queue.ReadHadoopConf(r)
	if err != nil {
		return ProportionalConfig{}, err
	}
	return ParseProportionalProperties(props)
}

// proportionalProps reads typed values; the first error sticks.
type proportionalProps struct {
	props map[string]string
	err   error
}

func (p *proportionalProps) fail(key, v, reason string) {
	if p.err == nil {
		p.err = berth.InvalidField(key, v, reason)
	}
}

func (p *proportionalProps) get(key string) (string, bool) {
	if p.err != nil {
		return "", false
	}
	v, ok := p.props[key]
	return strings.TrimSpace(v), ok
}

func (p *proportionalProps) dur(key string, dst *berth.Duration) {
	if v, ok := p.get(key); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			p.fail(key, v, "want a non-negative number of milliseconds")
			return
		}
		*dst = n
	}
}

func (p *proportionalProps) float(key string, dst *float64) {
	if v, ok := p.get(key); ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			p.fail(key, v, "want a finite number ≥ 0")
			return
		}
		*dst = f
	}
}

func (p *proportionalProps) bool(key string, dst *bool) {
	if v, ok := p.get(key); ok {
		switch strings.ToLower(v) {
		case "true":
			*dst = true
		case "false":
			*dst = false
		default:
			p.fail(key, v, fmt.Sprintf("want true or false, got %q", v))
		}
	}
}
