package rm_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/examples/rm"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/follower"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/berthsched/berth/queue"
)

// conf writes a Hadoop configuration file of name/value pairs.
func conf(kv ...string) []byte {
	var b strings.Builder
	b.WriteString("<configuration>\n")
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString("<property><name>" + kv[i] + "</name><value>" + kv[i+1] + "</value></property>\n")
	}
	b.WriteString("</configuration>\n")
	return []byte(b.String())
}

const cs = "yarn.scheduler.capacity."

// capacityFile is a tree with a reservable queue, plus extra keys.
func capacityFile(extra ...string) []byte {
	return conf(append([]string{
		cs + "root.queues", "default,dedicated",
		cs + "root.default.capacity", "40",
		cs + "root.dedicated.capacity", "60",
		cs + "root.dedicated.reservable", "true",
	}, extra...)...)
}

var enabled = conf(queue.KeyReservationSystemEnable, "true")

// Every reservation key of both files reaches the plan it configures, and
// the report lists each as read.
func TestLoadCapacityReadsTheReservationKeys(t *testing.T) {
	clock := berth.NewManualClock(0)
	files := rm.Files{
		Scheduler: capacityFile(
			cs+"root.dedicated.average-capacity", "60",
			cs+"root.dedicated.instantaneous-max-capacity", "80",
			cs+"root.dedicated.reservation-window", "7200000",
			cs+"root.dedicated.reservation-agent", "org.apache.hadoop.yarn.server.resourcemanager.reservation.planning.GreedyReservationAgent",
			cs+"root.dedicated.reservation-planner", "SimpleCapacityReplanner",
			cs+"root.dedicated.reservation-enforcement-window", "600000",
			cs+"root.dedicated.reservation-move-on-expiry", "false",
			cs+"root.dedicated.show-reservations-as-queues", "true",
		),
		Site: conf(queue.KeyReservationSystemEnable, "true", queue.KeyPlanFollowerStep, "5000",
			queue.KeyMaxPeriodicity, "3600000", queue.KeySmoothnessFactor, "3", "fs.defaultFS", "hdfs://nn"),
	}
	r, err := rm.LoadCapacity(files, rm.Options{Clock: clock})
	require.NoError(t, err)
	require.NotNil(t, r.Reservations)
	require.Len(t, r.Reservations.Plans, 1)
	p := r.Reservations.Plans[0]
	assert.Equal(t, "dedicated", p.QueueName())
	pol, ok := p.Policy().(*policy.CapacityOverTime)
	require.True(t, ok, "%T", p.Policy())
	assert.Equal(t, policy.CapacityOverTimeConfig{Window: 7_200_000, AveragePercent: 60, InstantaneousMaxPercent: 80}, pol.Config())
	_, greedy := p.Agent().(*agent.IterativePlanner)
	assert.True(t, greedy, "GreedyReservationAgent: %T", p.Agent())
	rp, ok := p.Replanner().(*policy.SimpleCapacityReplanner)
	require.True(t, ok)
	assert.Equal(t, berth.Duration(600_000), rp.Config().EnforcementWindow)
	pc := p.Config()
	assert.False(t, pc.MoveOnExpiry)
	assert.Equal(t, berth.Duration(5000), pc.Step)
	assert.Equal(t, berth.Duration(5000), r.Reservations.Step())
	assert.Equal(t, berth.Duration(3_600_000), pc.MaxPeriodicity)
	assert.Same(t, clock, pc.Clock.(*berth.ManualClock), "one clock")
	assert.Nil(t, r.Preemption)

	assert.Empty(t, r.Report.Notes, r.Report.String())
	for _, k := range []string{cs + "root.dedicated.average-capacity", cs + "root.dedicated.reservation-agent",
		cs + "root.dedicated.reservation-move-on-expiry", cs + "root.dedicated.show-reservations-as-queues",
		queue.KeyReservationSystemEnable, queue.KeyPlanFollowerStep, queue.KeySmoothnessFactor} {
		_, ok := r.Report.ReadValue(k)
		assert.True(t, ok, k)
	}
	_, ok = r.Report.ReadValue("fs.defaultFS")
	assert.False(t, ok, "keys of other daemons are left out")
}

// With YARN's default the reservation system is off: no plans, no
// follower; a key of the scheduler's file overrides the site's.
func TestReservationSystemSwitch(t *testing.T) {
	r, err := rm.LoadCapacity(rm.Files{Scheduler: capacityFile()}, rm.Options{Clock: berth.NewManualClock(0)})
	require.NoError(t, err)
	assert.Nil(t, r.Reservations)
	r, err = rm.LoadCapacity(rm.Files{Scheduler: capacityFile(queue.KeyReservationSystemEnable, "false"), Site: enabled}, rm.Options{Clock: berth.NewManualClock(0)})
	require.NoError(t, err)
	assert.Nil(t, r.Reservations, "capacity-scheduler.xml is read over yarn-site.xml")
	r, err = rm.LoadCapacity(rm.Files{Scheduler: capacityFile(queue.KeyPlanFollowerStep, "2000"), Site: enabled}, rm.Options{Clock: berth.NewManualClock(0)})
	require.NoError(t, err)
	require.NotNil(t, r.Reservations, "a key of one file does not reset another's")
	assert.Equal(t, berth.Duration(2000), r.Reservations.Step())
}

const fairFile = `<allocations>
  <queue name="dedicated"><reservation/><aclSubmitReservations>alice</aclSubmitReservations><aclAdministerReservations>ops</aclAdministerReservations></queue>
  <queue name="other"/>
  <reservation-agent>GreedyReservationAgent</reservation-agent>
  <reservation-policy>org.apache.hadoop.yarn.server.resourcemanager.reservation.NoOverCommitPolicy</reservation-policy>
</allocations>`

func TestLoadFairReadsTheReservationSettings(t *testing.T) {
	clock := berth.NewManualClock(0)
	site := conf(queue.KeyReservationSystemEnable, "true", queue.KeyACLEnable, "true", queue.KeyReservationACLEnable, "true",
		"yarn.scheduler.fair.preemption", "true", "yarn.scheduler.fair.assignmultiple", "true")
	sized := func(_ rm.PlanQueue, pc *plan.Config) error { pc.Capacity = berth.New(8192, 8); return nil }
	r, err := rm.LoadFair(rm.Files{Scheduler: []byte(fairFile), Site: site}, rm.Options{Clock: clock, ConfigurePlan: sized})
	require.NoError(t, err)
	require.NotNil(t, r.Reservations)
	require.Len(t, r.Reservations.Plans, 1)
	p := r.Reservations.Plans[0]
	assert.Equal(t, "root.dedicated", p.QueueName())
	assert.Equal(t, policy.NoOverCommit{}, p.Policy())
	_, greedy := p.Agent().(*agent.IterativePlanner)
	assert.True(t, greedy)
	assert.True(t, p.Config().MoveOnExpiry, "YARN's default: the file cannot set it")
	require.NotNil(t, r.Preemption, "yarn.scheduler.fair.preemption")
	assert.True(t, r.Scheduler.Config().Preemption)

	_, ok := r.Report.ReadValue("allocations.reservation-policy")
	assert.True(t, ok)
	_, ok = r.Report.ReadValue(queue.KeyReservationACLEnable)
	assert.True(t, ok)
	notes := map[string]queue.NoteKind{}
	for _, n := range r.Report.Notes {
		notes[n.Key] = n.Kind
	}
	assert.Equal(t, map[string]queue.NoteKind{"yarn.scheduler.fair.preemption": queue.NoteElsewhere,
		"yarn.scheduler.fair.assignmultiple": queue.NoteNotModelled}, notes)

	// The reservation ACLs are on: only alice may reserve in the queue.
	sys := r.Reservations.System
	def := plan.Definition{Arrival: 1000, Deadline: 100_000, Interpreter: plan.RAll,
		Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 1, Concurrency: 1, Duration: 1000}}}
	err = sys.Submit(plan.SubmissionRequest{Queue: "root.dedicated", ID: sys.NewReservationID(), Definition: &def, User: "bob"})
	assert.ErrorIs(t, err, berth.ErrPermissionDenied)
	err = sys.Submit(plan.SubmissionRequest{Queue: "root.dedicated", ID: sys.NewReservationID(), Definition: &def, User: "alice"})
	assert.NoError(t, err)
}

// A fair host sets in Go what the allocation file cannot: the plan
// follows.
func TestNewFairTypedReservationSettings(t *testing.T) {
	af, err := fair.ParseAllocationFile([]byte(fairFile), fair.ParseOptions{})
	require.NoError(t, err)
	af.Reservation.Policy = "CapacityOverTimePolicy"
	af.Reservation.AveragePercent = 60
	cfg := fair.DefaultConfig()
	cfg.ReservationSystem = &queue.ReservationSystemSettings{Enabled: true}
	cfg.Allocation = af
	r, err := rm.NewFair(cfg, rm.Options{Clock: berth.NewManualClock(0)})
	require.NoError(t, err)
	require.NotNil(t, r.Reservations)
	pol, ok := r.Reservations.Plans[0].Policy().(*policy.CapacityOverTime)
	require.True(t, ok)
	assert.Equal(t, float32(60), pol.Config().AveragePercent)
	assert.Equal(t, queue.DefaultReservationWindow, pol.Config().Window)
}

// Names neither built in nor registered are refused, naming the key; the
// host's registries resolve its own.
func TestComponentNames(t *testing.T) {
	for _, tc := range []struct{ key, value string }{
		{cs + "root.dedicated.reservation-agent", "com.example.MyAgent"},
		{cs + "root.dedicated.reservation-policy", "org.apache.other.CapacityOverTimePolicy"},
		{cs + "root.dedicated.reservation-planner", "NoPlanner"},
	} {
		_, err := rm.LoadCapacity(rm.Files{Scheduler: capacityFile(tc.key, tc.value), Site: enabled}, rm.Options{Clock: berth.NewManualClock(0)})
		var fe *berth.FieldError
		require.True(t, errors.As(err, &fe), "%v", err)
		assert.Equal(t, tc.key, fe.Field)
		var un *queue.UnknownNameError
		assert.True(t, errors.As(err, &un))
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	}

	agents := &queue.Registry[rm.AgentFactory]{Kind: "agent"}
	var built []string
	require.NoError(t, agents.Register("com.example.MyAgent", func(q rm.PlanQueue, o agent.Config) (plan.Agent, error) {
		built = append(built, q.Queue)
		return &agent.LegacyGreedy{}, nil
	}))
	r, err := rm.LoadCapacity(rm.Files{Scheduler: capacityFile(cs+"root.dedicated.reservation-agent", "com.example.MyAgent"), Site: enabled}, rm.Options{Clock: berth.NewManualClock(0), Agents: agents})
	require.NoError(t, err)
	assert.Equal(t, []string{"dedicated"}, built)
	assert.IsType(t, &agent.LegacyGreedy{}, r.Reservations.Plans[0].Agent())
}

// The reservation system and follower classes must be the scheduler's.
func TestClassesMatchTheScheduler(t *testing.T) {
	for _, tc := range []struct {
		key, value string
		ok         bool
	}{
		{queue.KeyReservationSystemClass, "org.apache.hadoop.yarn.server.resourcemanager.reservation.CapacityReservationSystem", true},
		{queue.KeyReservationSystemClass, "FairReservationSystem", false},
		{queue.KeyPlanFollower, "org.apache.hadoop.yarn.server.resourcemanager.reservation.CapacitySchedulerPlanFollower", true},
		{queue.KeyPlanFollower, "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairSchedulerPlanFollower", false},
		{queue.KeyPlanFollower, "MyFollower", false},
	} {
		site := conf(queue.KeyReservationSystemEnable, "true", tc.key, tc.value)
		r, err := rm.LoadCapacity(rm.Files{Scheduler: capacityFile(), Site: site}, rm.Options{Clock: berth.NewManualClock(0)})
		if tc.ok {
			require.NoError(t, err, tc.value)
			assert.NotNil(t, r.Reservations)
			continue
		}
		var fe *berth.FieldError
		require.True(t, errors.As(err, &fe), "%s: %v", tc.value, err)
		assert.Equal(t, tc.key, fe.Field)
	}
	flavors := &queue.Registry[rm.FlavorFactory]{}
	require.NoError(t, flavors.Register("MyFollower", func(follower.Scheduler) (follower.Flavor, error) { return follower.CapacityFlavor, nil }))
	_, err := rm.LoadCapacity(rm.Files{Scheduler: capacityFile(), Site: conf(queue.KeyReservationSystemEnable, "true", queue.KeyPlanFollower, "MyFollower")}, rm.Options{Clock: berth.NewManualClock(0), Flavors: flavors})
	assert.NoError(t, err)
}

func TestCapacityPreemptionSwitch(t *testing.T) {
	r, err := rm.LoadCapacity(rm.Files{Scheduler: capacityFile("yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill", "5000"),
		Site: conf("yarn.resourcemanager.scheduler.monitor.enable", "true")}, rm.Options{Clock: berth.NewManualClock(0)})
	require.NoError(t, err)
	require.NotNil(t, r.Preemption)
	assert.Equal(t, berth.Duration(5000), r.Preemption.Config().MaxWaitBeforeKill, "the scheduler file's keys reach the policy")
	_, err = rm.LoadCapacity(rm.Files{Scheduler: capacityFile(), Site: conf("yarn.resourcemanager.scheduler.monitor.enable", "true",
		"yarn.resourcemanager.scheduler.monitor.policies", "SomeOtherPolicy")}, rm.Options{Clock: berth.NewManualClock(0)})
	var fe *berth.FieldError
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, "yarn.resourcemanager.scheduler.monitor.policies", fe.Field)
}

func TestBadInputs(t *testing.T) {
	clock := berth.NewManualClock(0)
	for name, call := range map[string]func() error{
		"no scheduler file": func() error { _, err := rm.LoadCapacity(rm.Files{}, rm.Options{Clock: clock}); return err },
		"bad site": func() error {
			_, err := rm.LoadCapacity(rm.Files{Scheduler: capacityFile(), Site: []byte("<x")}, rm.Options{Clock: clock})
			return err
		},
		"nil clock": func() error {
			_, err := rm.LoadCapacity(rm.Files{Scheduler: capacityFile()}, rm.Options{})
			return err
		},
		"fair nil clock": func() error { _, err := rm.NewFair(fair.DefaultConfig(), rm.Options{}); return err },
		"bad step": func() error {
			_, err := rm.LoadFair(rm.Files{Scheduler: []byte(fairFile), Site: conf(queue.KeyPlanFollowerStep, "x")}, rm.Options{Clock: clock})
			return err
		},
		"no scheduler": func() error { _, err := rm.NewReservations(rm.SystemSpec{}, rm.Options{Clock: clock}); return err },
		"nil capacity": func() error { _, err := rm.CapacitySpec(nil); return err },
		"nil fair":     func() error { _, err := rm.FairSpec(nil, nil); return err },
	} {
		err := call()
		var fe *berth.FieldError
		assert.True(t, errors.As(err, &fe), "%s: %v", name, err)
	}
}

// Every piece runs on one clock: Options.Clock, or the scheduler
// configuration's when Options has none; two different clocks are refused
// with an error naming Options.Clock.
func TestOneClock(t *testing.T) {
	mine, other := berth.NewManualClock(5), berth.NewManualClock(9)
	ccfg := capacity.DefaultConfig()
	ccfg.Clock = mine
	fcfg := fair.DefaultConfig()
	fcfg.Clock = mine
	for name, tc := range map[string]struct {
		build func(rm.Options) (berth.Clock, error)
	}{
		"capacity": {func(o rm.Options) (berth.Clock, error) { r, err := rm.NewCapacity(ccfg, o); return clockOf(r, err) }},
		"fair":     {func(o rm.Options) (berth.Clock, error) { r, err := rm.NewFair(fcfg, o); return clockOfFair(r, err) }},
	} {
		got, err := tc.build(rm.Options{})
		require.NoError(t, err, name)
		assert.Same(t, mine, got, "%s: the configuration's clock", name)
		got, err = tc.build(rm.Options{Clock: mine})
		require.NoError(t, err, name)
		assert.Same(t, mine, got, name)
		_, err = tc.build(rm.Options{Clock: other})
		var fe *berth.FieldError
		require.True(t, errors.As(err, &fe), "%s: %v", name, err)
		assert.Equal(t, "Options.Clock", fe.Field, name)
	}
	// Two ClockFuncs cannot be compared: refused with the same error, not
	// a panic of ==.
	now := berth.ClockFunc(func() berth.Time { return 7 })
	ccfg.Clock = now
	_, err := rm.NewCapacity(ccfg, rm.Options{Clock: now})
	var fe *berth.FieldError
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, "Options.Clock", fe.Field)
	// Given once, it is every piece's clock.
	r, err := rm.NewCapacity(ccfg, rm.Options{})
	require.NoError(t, err)
	assert.Equal(t, berth.Time(7), r.Clock.Now())
	// No clock at all is refused.
	ccfg.Clock = nil
	_, err = rm.NewCapacity(ccfg, rm.Options{})
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, "Options.Clock", fe.Field)
}

func clockOf(r *rm.Capacity, err error) (berth.Clock, error) {
	if err != nil {
		return nil, err
	}
	return r.Clock, nil
}

func clockOfFair(r *rm.Fair, err error) (berth.Clock, error) {
	if err != nil {
		return nil, err
	}
	return r.Clock, nil
}

// A misspelt reservation-system key in yarn-site.xml is reported with the
// key meant.
func TestSiteReportSuggests(t *testing.T) {
	r, err := rm.LoadCapacity(rm.Files{Scheduler: capacityFile(),
		Site: conf("yarn.resourcemanager.reservation-system.enabled", "true")}, rm.Options{Clock: berth.NewManualClock(0)})
	require.NoError(t, err)
	assert.Nil(t, r.Reservations)
	unknown := r.Report.Of(queue.NoteUnknown)
	require.Len(t, unknown, 1)
	assert.Equal(t, queue.KeyReservationSystemEnable, unknown[0].Suggestion)
}

// ConfigurePlan and Plans let a host give the plans their shape; the
// resolver rebuilds the same components for a restore.
func TestHostShapedPlans(t *testing.T) {
	cfg := capacity.DefaultConfig()
	q := capacity.Queue("dedicated", 100)
	q.Reservable = true
	cfg.Root.Children = []capacity.QueueConfig{q}
	clock := berth.NewManualClock(0)
	opts := rm.Options{
		Clock: clock,
		Plans: []rm.PlanQueue{{Queue: "dedicated", Capacity: berth.New(4096, 4), Settings: queue.DefaultReservationSettings()}},
		ConfigurePlan: func(q rm.PlanQueue, pc *plan.Config) error {
			pc.Policy = policy.NoOverCommit{}
			return nil
		},
	}
	r, err := rm.NewCapacity(cfg, opts)
	require.NoError(t, err)
	require.NotNil(t, r.Reservations, "listed plans are built whatever the switch says")
	p := r.Reservations.Plans[0]
	assert.Equal(t, berth.New(4096, 4), p.Capacity())
	assert.Equal(t, policy.NoOverCommit{}, p.Policy())

	parts, err := rm.PlanResolver(rm.CapacityConfigSpec(cfg), opts).ResolvePlan(plan.PlanSpec{Queue: "dedicated"})
	require.NoError(t, err)
	assert.Equal(t, policy.NoOverCommit{}, parts.Policy)
	assert.NotNil(t, parts.Agent)
	_, err = rm.PlanResolver(rm.CapacityConfigSpec(cfg), opts).ResolvePlan(plan.PlanSpec{Queue: "other"})
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
}

// Without reservation-system keys in yarn-site.xml, LoadFair keeps the
// settings the host gave in Options.Fair.
func TestLoadFairKeepsTypedSystemSettings(t *testing.T) {
	cfg := fair.DefaultConfig()
	cfg.ReservationSystem = &queue.ReservationSystemSettings{Enabled: true, Step: 3000}
	r, err := rm.LoadFair(rm.Files{Scheduler: []byte(fairFile)}, rm.Options{Clock: berth.NewManualClock(0), Fair: &cfg})
	require.NoError(t, err)
	require.NotNil(t, r.Reservations)
	assert.Equal(t, berth.Duration(3000), r.Reservations.Step())
	r, err = rm.LoadFair(rm.Files{Scheduler: []byte(fairFile), Site: conf(queue.KeyReservationSystemEnable, "false")}, rm.Options{Clock: berth.NewManualClock(0), Fair: &cfg})
	require.NoError(t, err)
	assert.Nil(t, r.Reservations, "the site's keys win")
}

// The one-call wiring publishes as YARN's ClientRMService does: an
// application submitted in the tick of its reservation (before the
// follower's next run, mid-step too) is accepted on both schedulers, 22 of
// 22 (none was when the system did not publish: the queue waited for the
// follower's next run). A publication
// that kills (an expired reservation's application, the plan not moving
// it) hands its containers to the host in the next Run.
func TestSameTickApplicationsThroughRM(t *testing.T) {
	type world struct {
		res    *rm.Reservations
		planQ  string
		node   func(id string) error
		submit func(app, reservation string) error
		run    func(app string) error // an ask of two containers, and heartbeats
	}
	noMove := func(_ rm.PlanQueue, pc *plan.Config) error { pc.MoveOnExpiry = false; return nil }
	build := map[string]func(clock *berth.ManualClock) world{
		"capacity": func(clock *berth.ManualClock) world {
			r, err := rm.LoadCapacity(rm.Files{Scheduler: capacityFile(), Site: enabled}, rm.Options{Clock: clock, ClusterTimestamp: 1, ConfigurePlan: noMove})
			require.NoError(t, err)
			s := r.Scheduler
			return world{r.Reservations, "dedicated",
				func(id string) error {
					return s.AddNode(capacity.NodeSpec{ID: id, Rack: "/r", Capability: berth.New(8192, 8)})
				},
				func(app, res string) error {
					_, err := s.SubmitApp(capacity.AppSpec{ID: app, Queue: "dedicated", User: "alice", ReservationID: res})
					return err
				},
				func(app string) error {
					if _, err := s.Allocate(app, []capacity.Ask{{Priority: 1, ResourceName: capacity.AnyResource, Capability: berth.New(1024, 1), Count: 2}}, nil); err != nil {
						return err
					}
					for i := range 10 {
						if _, err := s.Heartbeat(fmt.Sprint("n", i), nil); err != nil {
							return err
						}
					}
					return nil
				}}
		},
		"fair": func(clock *berth.ManualClock) world {
			r, err := rm.LoadFair(rm.Files{Scheduler: []byte(`<allocations><queue name="dedicated"><weight>4</weight><reservation/></queue><queue name="other"/></allocations>`), Site: enabled}, rm.Options{Clock: clock, ClusterTimestamp: 1, ConfigurePlan: noMove})
			require.NoError(t, err)
			s := r.Scheduler
			return world{r.Reservations, "root.dedicated",
				func(id string) error {
					return s.AddNode(fair.NodeSpec{ID: id, Rack: "/r", Capability: berth.New(8192, 8)})
				},
				func(app, res string) error {
					_, err := s.SubmitApp(fair.AppSpec{ID: app, Queue: "root.dedicated", User: "alice", ReservationID: res})
					return err
				},
				func(app string) error {
					if _, err := s.Allocate(app, []fair.Ask{{Priority: 1, ResourceName: fair.AnyResource, Capability: berth.New(1024, 1), Count: 2}}, nil); err != nil {
						return err
					}
					for i := range 10 {
						if _, err := s.Heartbeat(fmt.Sprint("n", i), nil); err != nil {
							return err
						}
					}
					return nil
				}}
		},
	}
	for _, name := range []string{"capacity", "fair"} {
		t.Run(name, func(t *testing.T) {
			clock := berth.NewManualClock(0)
			w := build[name](clock)
			for i := range 10 {
				require.NoError(t, w.node(fmt.Sprint("n", i)))
			}
			sys, fol := w.res.System, w.res.Follower
			_, err := fol.Run(0)
			require.NoError(t, err)
			reserve := func(d berth.Duration) plan.ReservationID {
				now := clock.Now()
				def := plan.Definition{Arrival: now, Deadline: now + d, Stages: []plan.Stage{
					{Capability: berth.New(1024, 1), Containers: 2, Concurrency: 2, Duration: d}}}
				id := sys.NewReservationID()
				require.NoError(t, sys.Submit(plan.SubmissionRequest{Queue: w.planQ, ID: id, User: "alice", Definition: &def}))
				return id
			}
			accepted := 0
			for i := range 22 {
				clock.Set(berth.Time(i) * 1500) // mid-step ticks too
				id := reserve(600_000)
				if err := w.submit(fmt.Sprint("app_", i), id.String()); err == nil {
					accepted++
				} else {
					t.Log(err)
				}
				if i%3 == 0 { // the follower runs on its own steps
					_, err := fol.Run(clock.Now())
					require.NoError(t, err)
				}
			}
			assert.Equal(t, 22, accepted, "applications accepted in the tick of their reservation")

			// A short reservation whose application runs, then a
			// publication after it ended and before the next run: the
			// kill reaches the host through Run.
			clock.Set(40_000)
			short := reserve(2000)
			require.NoError(t, w.submit("short", short.String()))
			require.NoError(t, w.run("short"))
			clock.Set(42_500)
			reserve(600_000)
			results, err := fol.Run(43_000)
			require.NoError(t, err)
			var ended []follower.Ended
			for _, r := range results {
				ended = append(ended, r.Ended...)
			}
			require.Len(t, ended, 2, "the short reservation's two containers, killed by the publication at 42.5 s")
			for _, e := range ended {
				assert.Equal(t, "short", e.App)
			}
		})
	}
}
