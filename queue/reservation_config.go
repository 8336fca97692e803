package queue

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/berthsched/berth"
)

// This file types the reservation system's configuration as YARN reads
// it: the settings of one plan queue (ReservationSchedulerConfiguration's
// getters, which CapacitySchedulerConfiguration answers from
// yarn.scheduler.capacity.<queue-path>.* keys and the fair allocation file
// from its global reservation-* elements), and the ResourceManager's
// yarn.resourcemanager.reservation-system.* keys (YarnConfiguration).
// Both schedulers' parsers fill them; a host builds the plans, the
// reservation system and the follower from them.

// Defaults of a plan queue's reservation settings
// (ReservationSchedulerConfiguration).
const (
	// DefaultReservationWindow is reservation-window's default: one day.
	DefaultReservationWindow berth.Duration = 86_400_000
	// DefaultReservationEnforcementWindow is
	// reservation-enforcement-window's default: one hour.
	DefaultReservationEnforcementWindow berth.Duration = 3_600_000
	// DefaultReservationPercent is the default of average-capacity and
	// instantaneous-max-capacity: 100 % of the plan.
	DefaultReservationPercent float32 = 100
	// DefaultReservationAgent is reservation-agent's default class.
	DefaultReservationAgent = "org.apache.hadoop.yarn.server.resourcemanager.reservation.planning.AlignedPlannerWithGreedy"
	// DefaultReservationPolicy is reservation-policy's default class.
	DefaultReservationPolicy = "org.apache.hadoop.yarn.server.resourcemanager.reservation.CapacityOverTimePolicy"
	// DefaultReservationPlanner is reservation-planner's default class.
	DefaultReservationPlanner = "org.apache.hadoop.yarn.server.resourcemanager.reservation.planning.SimpleCapacityReplanner"
)

// maxReservationWindow bounds the windows read, so that time arithmetic on
// them cannot overflow (2^60 ms is 36 million years).
const maxReservationWindow berth.Duration = 1 << 60

// ReservationSettings are one plan queue's reservation settings: which
// agent places its reservations, which sharing policy admits them and with
// which limits, which replanner repairs the plan, and what the follower
// does when a reservation ends. Start from [DefaultReservationSettings];
// a scheduler's configuration holds a *ReservationSettings that is nil
// when nothing is configured, read with [ReservationSettings.Effective].
//
// Agent, Policy and Planner are class names as YARN's keys give them (a
// fully qualified class or its simple name); the host that builds the
// plan resolves them, built-in or its own, and refuses a name it does not
// know.
type ReservationSettings struct {
	// Window is reservation-window in ms: how far back the sharing policy
	// averages a user's reservations (86,400,000).
	Window berth.Duration
	// AveragePercent is average-capacity: what one user may hold on
	// average over Window, in percent of the plan (100).
	AveragePercent float32
	// InstantaneousMaxPercent is instantaneous-max-capacity: what one
	// user may hold at any instant, in percent of the plan (100).
	InstantaneousMaxPercent float32
	// Agent is reservation-agent (AlignedPlannerWithGreedy).
	Agent string
	// Policy is reservation-policy (CapacityOverTimePolicy).
	Policy string
	// Planner is reservation-planner (SimpleCapacityReplanner).
	Planner string
	// EnforcementWindow is reservation-enforcement-window in ms: how far
	// ahead the replanner repairs an over-committed plan (3,600,000).
	EnforcementWindow berth.Duration
	// ShowAsQueues is show-reservations-as-queues (false): whether queue
	// listings show the reservation queues. Berth's snapshots always list
	// them; the host reads this for its own listings.
	ShowAsQueues bool
	// MoveOnExpiry is reservation-move-on-expiry (true): the follower
	// moves an expired reservation's applications to the plan's default
	// queue instead of killing them.
	MoveOnExpiry bool
	// ACLs are the plan queue's reservation ACLs (acl_submit_reservations,
	// acl_list_reservations, acl_administer_reservations); nil when none
	// is configured, which allows every call. The capacity scheduler reads
	// them per queue; the fair scheduler's are per queue in its own queue
	// configuration.
	ACLs *ReservationQueueACLs
}

// DefaultReservationSettings returns YARN's defaults.
func DefaultReservationSettings() ReservationSettings {
	return ReservationSettings{
		Window:                  DefaultReservationWindow,
		AveragePercent:          DefaultReservationPercent,
		InstantaneousMaxPercent: DefaultReservationPercent,
		Agent:                   DefaultReservationAgent,
		Policy:                  DefaultReservationPolicy,
		Planner:                 DefaultReservationPlanner,
		EnforcementWindow:       DefaultReservationEnforcementWindow,
		MoveOnExpiry:            true,
	}
}

// Effective returns the settings, or YARN's defaults when s is nil.
func (s *ReservationSettings) Effective() ReservationSettings {
	if s == nil {
		return DefaultReservationSettings()
	}
	return *s
}

// Clone returns a deep copy (nil for nil).
func (s *ReservationSettings) Clone() *ReservationSettings {
	if s == nil {
		return nil
	}
	out := *s
	if s.ACLs != nil {
		a := *s.ACLs
		out.ACLs = &a
	}
	return &out
}

// Validate reports the first invalid field as a *berth.FieldError whose
// Field is prefix followed by the key's name (prefix is, for example,
// "yarn.scheduler.capacity.root.dedicated.").
func (s ReservationSettings) Validate(prefix string) error {
	switch {
	case s.Window <= 0 || s.Window > maxReservationWindow:
		return berth.InvalidField(prefix+"reservation-window", s.Window, "must be positive and at most 2^60 ms")
	case !validReservationPercent(s.AveragePercent):
		return berth.InvalidField(prefix+"average-capacity", s.AveragePercent, "must be a finite, non-negative percentage")
	case !validReservationPercent(s.InstantaneousMaxPercent):
		return berth.InvalidField(prefix+"instantaneous-max-capacity", s.InstantaneousMaxPercent, "must be a finite, non-negative percentage")
	case strings.TrimSpace(s.Agent) == "":
		return berth.InvalidField(prefix+"reservation-agent", s.Agent, "must name an agent")
	case strings.TrimSpace(s.Policy) == "":
		return berth.InvalidField(prefix+"reservation-policy", s.Policy, "must name a sharing policy")
	case strings.TrimSpace(s.Planner) == "":
		return berth.InvalidField(prefix+"reservation-planner", s.Planner, "must name a replanner")
	case s.EnforcementWindow < 0 || s.EnforcementWindow > maxReservationWindow:
		return berth.InvalidField(prefix+"reservation-enforcement-window", s.EnforcementWindow, "must be non-negative and at most 2^60 ms")
	}
	return nil
}

func validReservationPercent(p float32) bool {
	return p >= 0 && !math.IsInf(float64(p), 0) && !math.IsNaN(float64(p))
}

// The ResourceManager's reservation-system keys (YarnConfiguration).
const (
	// ReservationSystemPrefix starts every reservation-system key.
	ReservationSystemPrefix = "yarn.resourcemanager.reservation-system."
	// KeyReservationSystemEnable turns the reservation system on (false).
	KeyReservationSystemEnable = ReservationSystemPrefix + "enable"
	// KeyReservationSystemClass names the reservation system class (by
	// scheduler: CapacityReservationSystem or FairReservationSystem).
	KeyReservationSystemClass = ReservationSystemPrefix + "class"
	// KeyPlanFollower names the plan follower class (by scheduler:
	// CapacitySchedulerPlanFollower or FairSchedulerPlanFollower).
	KeyPlanFollower = ReservationSystemPrefix + "plan.follower"
	// KeyPlanFollowerStep is the plan step and the follower's period in
	// ms (1000).
	KeyPlanFollowerStep = ReservationSystemPrefix + "planfollower.time-step"
	// KeyMaxPeriodicity bounds a periodic reservation's period in ms
	// (86,400,000).
	KeyMaxPeriodicity = ReservationSystemPrefix + "max-periodicity"
	// KeyFavorEarlyAllocation makes the agents place stages as early as
	// possible (true).
	KeyFavorEarlyAllocation = ReservationSystemPrefix + "favor-early-allocation"
	// KeySmoothnessFactor is the aligned planner's smoothness factor (10).
	KeySmoothnessFactor = ReservationSystemPrefix + "smoothness-factor"
	// KeyACLEnable turns YARN's ACLs on (false).
	KeyACLEnable = "yarn.acl.enable"
	// KeyReservationACLEnable turns the reservation ACLs on when
	// KeyACLEnable is on too (false).
	KeyReservationACLEnable = "yarn.acl.reservation-enable"
)

// Defaults of the reservation-system keys.
const (
	// DefaultPlanStep is planfollower.time-step's default: one second.
	DefaultPlanStep berth.Duration = 1000
	// DefaultMaxPeriodicity is max-periodicity's default: one day.
	DefaultMaxPeriodicity berth.Duration = 86_400_000
	// DefaultSmoothnessFactor is smoothness-factor's default.
	DefaultSmoothnessFactor = 10
)

// ReservationSystemSettings are the ResourceManager's reservation-system
// settings, YARN's yarn-site.xml keys. Start from
// [DefaultReservationSystemSettings] (YARN's defaults: the system is off);
// a scheduler's configuration holds a *ReservationSystemSettings that is
// nil when nothing is configured, read with
// [ReservationSystemSettings.Effective].
type ReservationSystemSettings struct {
	// Enabled is yarn.resourcemanager.reservation-system.enable (false).
	Enabled bool
	// Class is reservation-system.class; "" lets the scheduler choose, as
	// YARN does (CapacityReservationSystem, FairReservationSystem).
	Class string
	// PlanFollower is reservation-system.plan.follower; "" lets the
	// scheduler choose (CapacitySchedulerPlanFollower,
	// FairSchedulerPlanFollower).
	PlanFollower string
	// Step is reservation-system.planfollower.time-step in ms: every
	// plan's step and the follower's period (1000; YARN reads a
	// non-positive value as the default).
	Step berth.Duration
	// MaxPeriodicity is reservation-system.max-periodicity in ms
	// (86,400,000; a non-positive value means the default).
	MaxPeriodicity berth.Duration
	// FavorEarlyAllocation is reservation-system.favor-early-allocation
	// (true).
	FavorEarlyAllocation bool
	// SmoothnessFactor is reservation-system.smoothness-factor (10).
	SmoothnessFactor int
	// ACLEnable and ReservationACLEnable are yarn.acl.enable and
	// yarn.acl.reservation-enable (both false): the reservation ACLs are
	// checked only when both are on.
	ACLEnable, ReservationACLEnable bool
}

// DefaultReservationSystemSettings returns YARN's defaults.
func DefaultReservationSystemSettings() ReservationSystemSettings {
	return ReservationSystemSettings{
		Step:                 DefaultPlanStep,
		MaxPeriodicity:       DefaultMaxPeriodicity,
		FavorEarlyAllocation: true,
		SmoothnessFactor:     DefaultSmoothnessFactor,
	}
}

// Effective returns the settings, or YARN's defaults when s is nil.
func (s *ReservationSystemSettings) Effective() ReservationSystemSettings {
	if s == nil {
		return DefaultReservationSystemSettings()
	}
	return *s
}

// ACLs reports whether the reservation ACLs are checked: both
// yarn.acl.enable and yarn.acl.reservation-enable are on.
func (s ReservationSystemSettings) ACLs() bool { return s.ACLEnable && s.ReservationACLEnable }

// Validate reports the first invalid field as a *berth.FieldError naming
// the key.
func (s ReservationSystemSettings) Validate() error {
	if s.SmoothnessFactor < 0 {
		return berth.InvalidField(KeySmoothnessFactor, s.SmoothnessFactor, "must not be negative")
	}
	return nil
}

// ReservationSystemKeys are the keys [ParseReservationSystem] reads, as a
// table a configuration report classifies properties with: every one is
// modelled.
var ReservationSystemKeys = KeyTable{
	{Pattern: KeyReservationSystemEnable},
	{Pattern: KeyReservationSystemClass},
	{Pattern: KeyPlanFollower},
	{Pattern: KeyPlanFollowerStep},
	{Pattern: KeyMaxPeriodicity},
	{Pattern: KeyFavorEarlyAllocation},
	{Pattern: KeySmoothnessFactor},
	{Pattern: KeyACLEnable},
	{Pattern: KeyReservationACLEnable},
}

// ParseReservationSystem reads the reservation-system keys from Hadoop
// configuration properties (name → value, as in yarn-site.xml). It
// returns nil settings when props holds none of them, so that a
// configuration without them keeps YARN's defaults. Values are trimmed;
// booleans are true or false in any case; numbers are decimal. A bad
// value is a *berth.FieldError (kind berth.ErrInvalidArgument) naming the
// key.
func ParseReservationSystem(props map[string]string) (*ReservationSystemSettings, error) {
	s := DefaultReservationSystemSettings()
	found := false
	for _, r := range ReservationSystemKeys {
		v, ok := props[r.Pattern]
		if !ok {
			continue
		}
		found = true
		v = strings.TrimSpace(v)
		var err error
		switch r.Pattern {
		case KeyReservationSystemEnable:
			s.Enabled, err = PropBool(r.Pattern, v)
		case KeyReservationSystemClass:
			s.Class = v
		case KeyPlanFollower:
			s.PlanFollower = v
		case KeyPlanFollowerStep:
			s.Step, err = PropInt64(r.Pattern, v)
		case KeyMaxPeriodicity:
			s.MaxPeriodicity, err = PropInt64(r.Pattern, v)
		case KeyFavorEarlyAllocation:
			s.FavorEarlyAllocation, err = PropBool(r.Pattern, v)
		case KeySmoothnessFactor:
			var n int64
			n, err = PropInt64(r.Pattern, v)
			if err == nil && (n < 0 || n > math.MaxInt32) {
				err = berth.InvalidField(r.Pattern, v, "must be a non-negative int")
			}
			s.SmoothnessFactor = int(n)
		case KeyACLEnable:
			s.ACLEnable, err = PropBool(r.Pattern, v)
		case KeyReservationACLEnable:
			s.ReservationACLEnable, err = PropBool(r.Pattern, v)
		}
		if err != nil {
			return nil, err
		}
	}
	if !found {
		return nil, nil
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// PropBool reads a Hadoop boolean property: true or false in any case.
func PropBool(key, v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, berth.InvalidField(key, v, "not a boolean")
}

// PropInt64 reads a decimal integer property.
func PropInt64(key, v string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, berth.InvalidField(key, v, "not an integer")
	}
	return n, nil
}

// WriteReservationSettings writes optional reservation settings to a
// snapshot body: a presence flag, then the fields (a nil e writes
// nothing; a nil d reads nil).
func WriteReservationSettings(e *berth.StateEncoder, s *ReservationSettings) {
	if e == nil {
		return
	}
	e.Bool(s != nil)
	if s == nil {
		return
	}
	e.Varint(s.Window)
	e.Float32(s.AveragePercent)
	e.Float32(s.InstantaneousMaxPercent)
	e.String(s.Agent)
	e.String(s.Policy)
	e.String(s.Planner)
	e.Varint(s.EnforcementWindow)
	e.Bool(s.ShowAsQueues)
	e.Bool(s.MoveOnExpiry)
	e.Bool(s.ACLs != nil)
	if s.ACLs != nil {
		for _, a := range []*ACL{&s.ACLs.Submit, &s.ACLs.List, &s.ACLs.Administer} {
			e.String(a.String())
		}
	}
}

// ReadReservationSettings reads what [WriteReservationSettings] wrote.
func ReadReservationSettings(d *berth.StateDecoder) *ReservationSettings {
	if d == nil || !d.Bool() {
		return nil
	}
	s := &ReservationSettings{
		Window:                  d.Varint(),
		AveragePercent:          d.Float32(),
		InstantaneousMaxPercent: d.Float32(),
		Agent:                   d.String(),
		Policy:                  d.String(),
		Planner:                 d.String(),
		EnforcementWindow:       d.Varint(),
		ShowAsQueues:            d.Bool(),
		MoveOnExpiry:            d.Bool(),
	}
	if d.Bool() {
		s.ACLs = &ReservationQueueACLs{Submit: ParseACL(d.String()), List: ParseACL(d.String()), Administer: ParseACL(d.String())}
	}
	return s
}

// WriteReservationSystemSettings writes optional reservation-system
// settings to a snapshot body: a presence flag, then the fields.
func WriteReservationSystemSettings(e *berth.StateEncoder, s *ReservationSystemSettings) {
	if e == nil {
		return
	}
	e.Bool(s != nil)
	if s == nil {
		return
	}
	e.Bool(s.Enabled)
	e.String(s.Class)
	e.String(s.PlanFollower)
	e.Varint(s.Step)
	e.Varint(s.MaxPeriodicity)
	e.Bool(s.FavorEarlyAllocation)
	e.Varint(int64(s.SmoothnessFactor))
	e.Bool(s.ACLEnable)
	e.Bool(s.ReservationACLEnable)
}

// ReadReservationSystemSettings reads what
// [WriteReservationSystemSettings] wrote.
func ReadReservationSystemSettings(d *berth.StateDecoder) *ReservationSystemSettings {
	if d == nil || !d.Bool() {
		return nil
	}
	s := &ReservationSystemSettings{Enabled: d.Bool(), Class: d.String(), PlanFollower: d.String(),
		Step: d.Varint(), MaxPeriodicity: d.Varint(), FavorEarlyAllocation: d.Bool()}
	sf := d.Varint()
	if sf < 0 || sf > math.MaxInt32 {
		d.Fail(fmt.Errorf("reservation-system smoothness factor %d out of range", sf))
	}
	s.SmoothnessFactor = int(sf)
	s.ACLEnable, s.ReservationACLEnable = d.Bool(), d.Bool()
	return s
}
