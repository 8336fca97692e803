package berth_test

import (
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/follower"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/berthsched/berth/queue"
	"github.com/berthsched/berth/rle"
)

// clauseSep splits an error message into clauses: the ": " that joins a
// wrapper to its cause or a field to its reason, and the "(value: …)"
// parenthesis that carries the offending value.
var clauseSep = regexp.MustCompile(`: | \(value: |\)$|\): `)

// clauses returns the non-empty clauses of msg, trimmed.
func clauses(msg string) []string {
	var out []string
	for _, c := range clauseSep.Split(msg, -1) {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// idPattern matches an identifier with a number in it (app_1,
// reservation_1_0007): a name that, said twice, says the same thing twice.
var idPattern = regexp.MustCompile(`\b[A-Za-z]+_[0-9][0-9_]*\b`)

// valuePattern finds the printed value of a FieldError.
var valuePattern = regexp.MustCompile(`\(value: (.*?)\)(?::|$)`)

// repeated returns what msg says twice, or "": a clause, a run of four
// words (case aside), an identifier, or a printed value the rest of the
// message spells as a whole word. (A number counts only where a sentence
// states it, after a colon or an opening parenthesis: elsewhere it may be
// a bound equal to the value.)
func repeated(msg string) string {
	for _, m := range valuePattern.FindAllStringSubmatchIndex(msg, -1) {
		v := msg[m[2]:m[3]]
		if v == "" {
			continue
		}
		rest := msg[:m[0]] + " " + msg[m[1]:]
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			// A number said as the subject of a sentence ("deadline: 500",
			// "arrival (5)") is the value said twice; elsewhere ("> 0") it
			// is a bound.
			stated := regexp.MustCompile(`[:(]\s*` + regexp.QuoteMeta(v) + `($|[^\d.]|\.(\D|$))`)
			if stated.MatchString(rest) {
				return v
			}
			continue
		}
		word := regexp.MustCompile(`(^|[^\w./-])` + regexp.QuoteMeta(v) + `($|[^\w/-]|\.(\s|$))`)
		if word.MatchString(rest) {
			return v
		}
	}
	seen := map[string]bool{}
	for _, c := range clauses(msg) {
		if seen[c] {
			return c
		}
		seen[c] = true
	}
	words := strings.Fields(strings.ToLower(msg))
	grams := map[string]bool{}
	for i := 0; i+4 <= len(words); i++ {
		g := strings.Join(words[i:i+4], " ")
		if grams[g] {
			return g
		}
		grams[g] = true
	}
	ids := map[string]bool{}
	for _, id := range idPattern.FindAllString(msg, -1) {
		if ids[id] {
			return id
		}
		ids[id] = true
	}
	return ""
}

func TestClauses(t *testing.T) {
	assert.Equal(t, []string{"a.b", "unknown queue", "root.x"}, clauses("a.b: unknown queue (value: root.x)"))
	assert.NotEmpty(t, repeated("x: unknown queue (value: q): queue q: f: unknown queue (value: q)"))
	assert.Equal(t, "unknown queue", repeated("x: unknown queue (value: 1): queue q: f: unknown queue (value: 2)"))
	assert.Equal(t, "500", repeated("deadline: The specified deadline: 500 is the past (value: 500)"))
	assert.Empty(t, repeated("n: should be > 0 (value: 0)"))
	assert.Empty(t, repeated("queue: unknown queue (value: root.nope)"))
	assert.NotEmpty(t, repeated("User bob cannot perform operation submit on q: acl: user bob cannot perform operation submit"))
	assert.Equal(t, "reservation_1_0007", repeated("submitting reservation_1_0007: policy: reservation_1_0007 rejected"))
	assert.Equal(t, "<memory:1, vCores:1>", repeated("f: gang (<memory:1, vCores:1>) too big (value: <memory:1, vCores:1>)"))
	assert.Empty(t, repeated("f: queue root.a.a1 is not a plan (value: a1)"))
	assert.Empty(t, repeated("f: must be in [0, 1] (value: 1)"))
}

// kinds are the error kinds every Berth error wraps.
var kinds = []error{berth.ErrInvalidArgument, berth.ErrNotFound, berth.ErrAlreadyExists, berth.ErrConflict,
	berth.ErrCapacityExceeded, berth.ErrNoPlacement, berth.ErrPermissionDenied, berth.ErrInvalidState}

type errCase struct {
	name string
	err  error
	kind error // the expected kind; nil: any kind
}

// checkErrors asserts that every case failed, wraps a kind, and reads each
// clause once.
func checkErrors(t *testing.T, cases []errCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Error(t, c.err)
			msg := c.err.Error()
			t.Log(msg)
			assert.Empty(t, repeated(msg), "a clause repeats in %q", msg)
			if c.kind != nil {
				assert.ErrorIs(t, c.err, c.kind)
			}
			wraps := false
			for _, k := range kinds {
				wraps = wraps || errors.Is(c.err, k)
			}
			assert.True(t, wraps, "%q wraps no berth kind", msg)
		})
	}
}

func second[T any](_ T, err error) error { return err }

func third[T, U any](_ T, _ U, err error) error { return err }

func TestErrorTextCapacity(t *testing.T) {
	cfg := capacity.DefaultConfig()
	ded := capacity.Queue("dedicated", 50)
	ded.Reservable = true
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("a", 50, capacity.Queue("a1", 100)), ded}
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(capacity.NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(8192, 8)}))
	_, err = s.SubmitApp(capacity.AppSpec{ID: "app_1", Queue: "a1", User: "alice"})
	require.NoError(t, err)

	sum := capacity.DefaultConfig()
	sum.Root.Children = []capacity.QueueConfig{capacity.Queue("a", 60), capacity.Queue("b", 50)}
	noKids := capacity.DefaultConfig()
	noKids.Root.Children = nil
	ulf := capacity.DefaultConfig()
	ulf.Root.Children[0].Settings.UserLimitFactor = -2 // -1 is YARN 3.4's "no user limit"
	dup := capacity.DefaultConfig()
	dup.Root.Children = []capacity.QueueConfig{capacity.Queue("a", 50), capacity.Queue("a", 50)}
	badAsk := capacity.Ask{Priority: 1, ResourceName: capacity.AnyResource, Capability: berth.New(1024, 1), Count: -1}

	for _, c := range []*capacity.Config{&dup, &ulf, &noKids, &sum} {
		c.Clock = clock
	}
	checkErrors(t, []errCase{
		{"New/nil clock", second(capacity.New(capacity.DefaultConfig())), berth.ErrInvalidArgument},
		{"New/capacity sum", second(capacity.New(sum)), berth.ErrInvalidArgument},
		{"New/no children", second(capacity.New(noKids)), berth.ErrInvalidArgument},
		{"New/user-limit-factor", second(capacity.New(ulf)), berth.ErrInvalidArgument},
		{"New/duplicate queue", second(capacity.New(dup)), berth.ErrInvalidArgument},
		{"Reconfigure/capacity sum", second(s.Reconfigure(sum)), berth.ErrInvalidArgument},
		{"ParseXML/not xml", second(capacity.ParseXML(strings.NewReader("nope"))), berth.ErrInvalidArgument},
		{"ParseXML/no root.queues", second(capacity.ParseXML(strings.NewReader("<configuration></configuration>"))), berth.ErrInvalidArgument},
		{"AddNode/duplicate", s.AddNode(capacity.NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(1024, 1)}), nil},
		{"AddNode/no rack", s.AddNode(capacity.NodeSpec{ID: "n2", Capability: berth.New(1024, 1)}), berth.ErrInvalidArgument},
		{"RemoveNode/unknown", second(s.RemoveNode("nx")), berth.ErrNotFound},
		{"SubmitApp/unknown queue", second(s.SubmitApp(capacity.AppSpec{ID: "app_2", Queue: "nope", User: "alice"})), berth.ErrNotFound},
		{"SubmitApp/parent queue", second(s.SubmitApp(capacity.AppSpec{ID: "app_2", Queue: "root.a", User: "alice"})), nil},
		{"SubmitApp/duplicate", second(s.SubmitApp(capacity.AppSpec{ID: "app_1", Queue: "a1", User: "alice"})), berth.ErrAlreadyExists},
		{"SubmitApp/no id", second(s.SubmitApp(capacity.AppSpec{Queue: "a1", User: "alice"})), berth.ErrInvalidArgument},
		{"MoveApp/missing queue", second(s.MoveApp("app_1", "root.nope")), berth.ErrNotFound},
		{"MoveApp/parent queue", second(s.MoveApp("app_1", "root.a")), berth.ErrInvalidArgument},
		{"MoveApp/unknown app", second(s.MoveApp("app_9", "a1")), berth.ErrNotFound},
		{"Allocate/unknown app", second(s.Allocate("app_9", nil, nil)), berth.ErrNotFound},
		{"Allocate/bad ask", second(s.Allocate("app_1", []capacity.Ask{badAsk}, nil)), berth.ErrInvalidArgument},
		{"Allocate/unknown release", second(s.Allocate("app_1", nil, []capacity.ContainerID{77})), nil},
		{"Heartbeat/unknown node", second(s.Heartbeat("nx", nil)), berth.ErrNotFound},
		{"Headroom/unknown app", second(s.Headroom("app_9")), berth.ErrNotFound},
		{"FinishApp/unknown app", second(s.FinishApp("app_9")), berth.ErrNotFound},
		{"KillApp/unknown app", second(s.KillApp("app_9")), berth.ErrNotFound},
		{"KillAppsInQueue/unknown", second(s.KillAppsInQueue("nope")), berth.ErrNotFound},
		{"AppsInQueue/unknown", second(s.AppsInQueue("nope")), berth.ErrNotFound},
		{"PendingWithinUserLimits/unknown", second(s.PendingWithinUserLimits("nope", false)), berth.ErrNotFound},
		{"PlanResources/unknown", second(s.PlanResources("nope")), berth.ErrNotFound},
		{"PlanResources/not a plan", second(s.PlanResources("a1")), nil},
		{"ReservationQueues/unknown", second(s.ReservationQueues("nope")), berth.ErrNotFound},
		{"ReservationQueueNames/unknown", second(s.ReservationQueueNames("nope")), berth.ErrNotFound},
		{"ReservationQueueState/unknown", third(s.ReservationQueueState("dedicated", "nope")), berth.ErrNotFound},
		{"AddReservationQueue/unknown plan", s.AddReservationQueue("nope", "r1"), berth.ErrNotFound},
		{"AddReservationQueue/duplicate", s.AddReservationQueue("dedicated", "dedicated-default"), nil},
		{"RemoveReservationQueue/unknown", s.RemoveReservationQueue("nope"), berth.ErrNotFound},
		{"SetEntitlement/unknown", s.SetEntitlement("nope", capacity.Entitlement{Capacity: 0.5, MaxCapacity: 1}), berth.ErrNotFound},
		{"SetEntitlement/out of range", s.SetEntitlement("dedicated-default", capacity.Entitlement{Capacity: 2, MaxCapacity: 1}), berth.ErrInvalidArgument},
		{"KillContainer/unknown", second(s.KillContainer(99)), berth.ErrNotFound},
		{"PreemptContainer/unknown", second(s.PreemptContainer(99)), berth.ErrNotFound},
		{"MarkForPreemption/unknown", s.MarkForPreemption(99), berth.ErrNotFound},
		{"KillReservation/unknown", s.KillReservation(99), berth.ErrNotFound},
	})
}

// TestErrorTextCapacityState drives the paths refused for permission or
// state, whose messages compose several parts.
func TestErrorTextCapacityState(t *testing.T) {
	nobody, alice := queue.ParseACL(" "), queue.ParseACL("alice")
	cfg := capacity.DefaultConfig()
	cfg.Root.SubmitACL, cfg.Root.AdminACL = &nobody, &nobody
	guarded := capacity.Queue("guarded", 30)
	guarded.SubmitACL = &alice
	ded := capacity.Queue("dedicated", 40)
	ded.Reservable = true
	ded.SubmitACL = &alice
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("open", 20), capacity.Queue("closed", 10), guarded, ded}
	cfg.Root.Children[0].SubmitACL = &alice
	cfg.Clock = berth.NewManualClock(0)
	s, err := capacity.New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(capacity.NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(8192, 8)}))
	_, err = s.SubmitApp(capacity.AppSpec{ID: "app_1", Queue: "open", User: "alice"})
	require.NoError(t, err)
	require.NoError(t, s.SetEntitlement("dedicated-default", capacity.Entitlement{Capacity: 0.2, MaxCapacity: 1}))
	require.NoError(t, s.AddReservationQueue("dedicated", "reservation_1_0001"))
	require.NoError(t, s.SetEntitlement("reservation_1_0001", capacity.Entitlement{Capacity: 0.5, MaxCapacity: 1}))
	require.NoError(t, s.AddReservationQueue("dedicated", "reservation_1_0002"))
	_, err = s.SubmitApp(capacity.AppSpec{ID: "app_2", Queue: "dedicated", ReservationID: "reservation_1_0001", User: "alice"})
	require.NoError(t, err)

	removed := cfg
	removed.Root.Children = []capacity.QueueConfig{capacity.Queue("open", 70), guarded}
	checkErrors(t, []errCase{
		{"SubmitApp/denied", second(s.SubmitApp(capacity.AppSpec{ID: "app_3", Queue: "guarded", User: "bob"})), berth.ErrPermissionDenied},
		{"MoveApp/denied", second(s.MoveApp("app_1", "closed")), berth.ErrPermissionDenied},
		{"SubmitApp/inactive reservation", second(s.SubmitApp(capacity.AppSpec{ID: "app_3", Queue: "dedicated", ReservationID: "reservation_1_0009", User: "alice"})), nil},
		{"SetEntitlement/sum above 100%", s.SetEntitlement("reservation_1_0002", capacity.Entitlement{Capacity: 0.6, MaxCapacity: 1}), nil},
		{"RemoveReservationQueue/not empty", s.RemoveReservationQueue("reservation_1_0001"), berth.ErrInvalidState},
		{"RemoveReservationQueue/not a reservation", s.RemoveReservationQueue("open"), berth.ErrInvalidArgument},
		{"SetEntitlement/not a reservation", s.SetEntitlement("open", capacity.Entitlement{Capacity: 0.5, MaxCapacity: 1}), berth.ErrInvalidArgument},
		{"Reconfigure/remove running queue", second(s.Reconfigure(removed)), nil},
	})
}

// TestErrorTextFollower: the follower names its operation around the
// scheduler's error.
func TestErrorTextFollower(t *testing.T) {
	cfg := capacity.DefaultConfig()
	cfg.Clock = berth.NewManualClock(0)
	s, err := capacity.New(cfg)
	require.NoError(t, err)
	f, err := follower.New(follower.Config{Scheduler: s, Flavor: follower.CapacityFlavor})
	require.NoError(t, err)
	p, err := plan.New(plan.DefaultConfig("nope", berth.New(1024, 1), berth.NewManualClock(0)))
	require.NoError(t, err)
	funcs, err := follower.New(follower.Config{Scheduler: follower.Funcs{}, Flavor: follower.FairFlavor})
	require.NoError(t, err)
	checkErrors(t, []errCase{
		{"Synchronize/unknown plan queue", second(f.Synchronize(p, 0)), berth.ErrNotFound},
		{"Synchronize/unsupported operation", second(funcs.Synchronize(p, 0)), berth.ErrInvalidState},
		{"New/no flavor", second(follower.New(follower.Config{Scheduler: follower.Funcs{}})), berth.ErrInvalidArgument},
		{"New/other scheduler's flavor", second(follower.New(follower.Config{Scheduler: s, Flavor: follower.FairFlavor})), berth.ErrInvalidArgument},
	})
}

func TestErrorTextFair(t *testing.T) {
	af, err := fair.ParseAllocationFile([]byte(`<allocations>
  <queue name="a"><weight>1</weight><queue name="a1"/></queue>
  <queue name="dedicated"><reservation/></queue>
  <queuePlacementPolicy><rule name="specified" create="false"/><rule name="reject"/></queuePlacementPolicy>
</allocations>`), fair.ParseOptions{})
	require.NoError(t, err)
	clock := berth.NewManualClock(0)
	cfg := fair.DefaultConfig()
	cfg.Allocation = af
	cfg.Clock = clock
	s, err := fair.New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddNode(fair.NodeSpec{ID: "n1", Capability: berth.New(8192, 8)}))
	_, err = s.SubmitApp(fair.AppSpec{ID: "app_1", Queue: "root.a.a1", User: "alice"})
	require.NoError(t, err)
	badMin := fair.DefaultConfig()
	badMin.MinAllocation = berth.New(-1, 1)
	badAsk := fair.Ask{Priority: 1, ResourceName: fair.AnyResource, Capability: berth.New(1024, 1), Count: -1}

	badMin.Allocation = af
	badMin.Clock = clock
	noClock := fair.DefaultConfig()
	noClock.Allocation = af
	checkErrors(t, []errCase{
		{"New/nil clock", second(fair.New(noClock)), berth.ErrInvalidArgument},
		{"New/minimum allocation", second(fair.New(badMin)), berth.ErrInvalidArgument},
		{"ParseAllocationFile/not xml", second(fair.ParseAllocationFile([]byte("nope"), fair.ParseOptions{})), berth.ErrInvalidArgument},
		{"ParseAllocationFile/bad weight", second(fair.ParseAllocationFile([]byte(`<allocations><queue name="a"><weight>x</weight></queue></allocations>`), fair.ParseOptions{})), berth.ErrInvalidArgument},
		{"ParseAllocationFile/bad name", second(fair.ParseAllocationFile([]byte(`<allocations><queue name="a.b"/></allocations>`), fair.ParseOptions{})), berth.ErrInvalidArgument},
		{"ParseResource/garbage", second(fair.ParseResource("maxResources", "lots", nil, 0)), berth.ErrInvalidArgument},
		{"ParsePolicy/unknown", second(fair.ParsePolicy("lottery")), berth.ErrInvalidArgument},
		{"AddNode/duplicate", s.AddNode(fair.NodeSpec{ID: "n1", Capability: berth.New(1024, 1)}), nil},
		{"RemoveNode/unknown", second(s.RemoveNode("nx")), berth.ErrNotFound},
		{"SubmitApp/rejected by placement", second(s.SubmitApp(fair.AppSpec{ID: "app_2", Queue: "root.nope", User: "alice"})), nil},
		{"SubmitApp/parent queue", second(s.SubmitApp(fair.AppSpec{ID: "app_2", Queue: "root.a", User: "alice"})), nil},
		{"SubmitApp/duplicate", second(s.SubmitApp(fair.AppSpec{ID: "app_1", Queue: "root.a.a1", User: "alice"})), nil},
		{"MoveApp/missing queue", second(s.MoveApp("app_1", "root.nope")), nil},
		{"MoveApp/parent queue", second(s.MoveApp("app_1", "root.a")), nil},
		{"MoveApp/unknown app", second(s.MoveApp("app_9", "root.a.a1")), berth.ErrNotFound},
		{"Allocate/unknown app", second(s.Allocate("app_9", nil, nil)), berth.ErrNotFound},
		{"Allocate/bad ask", second(s.Allocate("app_1", []fair.Ask{badAsk}, nil)), berth.ErrInvalidArgument},
		{"Allocate/unknown release", second(s.Allocate("app_1", nil, []fair.ContainerID{77})), nil},
		{"Heartbeat/unknown node", second(s.Heartbeat("nx", nil)), berth.ErrNotFound},
		{"FinishApp/unknown app", second(s.FinishApp("app_9")), berth.ErrNotFound},
		{"KillApp/unknown app", second(s.KillApp("app_9")), berth.ErrNotFound},
		{"AppsInQueue/unknown", second(s.AppsInQueue("root.nope")), berth.ErrNotFound},
		{"PlanResources/unknown", second(s.PlanResources("root.nope")), berth.ErrNotFound},
		{"ReservationQueues/unknown", second(s.ReservationQueues("root.nope")), berth.ErrNotFound},
		{"ReservationQueueNames/unknown", second(s.ReservationQueueNames("root.nope")), berth.ErrNotFound},
		{"ReservationQueueState/unknown", third(s.ReservationQueueState("root.dedicated", "nope")), berth.ErrNotFound},
		{"AddReservationQueue/unknown plan", s.AddReservationQueue("root.nope", "r1"), berth.ErrNotFound},
		{"RemoveReservationQueue/unknown", s.RemoveReservationQueue("root.nope"), berth.ErrNotFound},
		{"SetEntitlement/unknown", s.SetEntitlement("root.nope", fair.Entitlement{Capacity: 0.5, MaxCapacity: 1}), berth.ErrNotFound},
		{"KillContainer/unknown", second(s.KillContainer(99)), berth.ErrNotFound},
		{"PreemptContainer/unknown", second(s.PreemptContainer(99)), berth.ErrNotFound},
		{"MarkForPreemption/unknown", s.MarkForPreemption(99), berth.ErrNotFound},
		{"KillReservation/unknown", s.KillReservation(99), berth.ErrNotFound},
	})
}

// acceptAll is a toy agent placing every stage at the arrival, and
// failing with the plan's own errors.
type atArrival struct{}

func (atArrival) place(id plan.ReservationID, user string, def plan.Definition) (*plan.Allocation, error) {
	var ivs []plan.IntervalResource
	for _, s := range def.Stages {
		ivs = append(ivs, plan.IntervalResource{
			Interval: berth.Interval{Start: def.Arrival, End: def.Arrival + s.Duration}, Resource: s.Total()})
	}
	return plan.NewAllocation(id, user, def, berth.Interval{Start: def.Arrival, End: def.Deadline}, ivs)
}

func (ag atArrival) CreateReservation(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) error {
	a, err := ag.place(id, user, def)
	if err != nil {
		return err
	}
	return p.AddReservation(a)
}

func (ag atArrival) UpdateReservation(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) error {
	a, err := ag.place(id, user, def)
	if err != nil {
		return err
	}
	return p.UpdateReservation(a)
}

func (atArrival) DeleteReservation(p *plan.Plan, id plan.ReservationID, _ string) error {
	return p.DeleteReservation(id)
}

func def(arrival, deadline berth.Time, containers int64) *plan.Definition {
	return &plan.Definition{Arrival: arrival, Deadline: deadline, Interpreter: plan.RAll,
		Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: containers, Concurrency: 1, Duration: 10_000}}}
}

func TestErrorTextPlan(t *testing.T) {
	clock := berth.NewManualClock(1_000)
	acls := queue.NewReservationACLs(nil, map[string]queue.ReservationQueueACLs{
		"guarded": {Submit: queue.ParseACL("alice"), List: queue.ParseACL("alice"), Administer: queue.ParseACL("admin")},
	})
	sys, err := plan.NewSystem(plan.SystemConfig{ClusterTimestamp: 1, Clock: clock, Authorizer: acls})
	require.NoError(t, err)

	toy := plan.DefaultConfig("toy", berth.New(10*1024, 10), clock)
	toy.Agent = atArrival{}
	toy.Policy = policy.NoOverCommit{}
	greedy, err := agent.NewGreedy(agent.DefaultConfig())
	require.NoError(t, err)
	gr := plan.DefaultConfig("greedy", berth.New(10*1024, 10), clock)
	gr.Agent = greedy
	quota, err := policy.NewCapacityOverTime(policy.CapacityOverTimeConfig{Window: 100_000, InstantaneousMaxPercent: 10, AveragePercent: 10})
	require.NoError(t, err)
	q := plan.DefaultConfig("quota", berth.New(10*1024, 10), clock)
	q.Agent = atArrival{}
	q.Policy = quota
	bare := plan.DefaultConfig("bare", berth.New(10*1024, 10), clock)
	guarded := plan.DefaultConfig("guarded", berth.New(10*1024, 10), clock)
	guarded.Agent = atArrival{}
	avgPolicy, err := policy.NewCapacityOverTime(policy.CapacityOverTimeConfig{Window: 20_000, InstantaneousMaxPercent: 100, AveragePercent: 10})
	require.NoError(t, err)
	avg := plan.DefaultConfig("average", berth.New(10*1024, 10), clock)
	avg.Agent = atArrival{}
	avg.Policy = avgPolicy
	_, err = sys.Reinitialize(toy, gr, q, bare, guarded, avg)
	require.NoError(t, err)

	held := sys.NewReservationID()
	require.NoError(t, sys.Submit(plan.SubmissionRequest{Queue: "toy", ID: held, User: "alice", Definition: def(10_000, 50_000, 4)}))
	p, ok := sys.Plan("toy")
	require.True(t, ok)
	heldAlloc, ok := p.Reservation(held)
	require.True(t, ok)
	otherID := sys.NewReservationID()
	badCfg := plan.DefaultConfig("x", berth.New(1024, 1), clock)
	badCfg.Capacity = berth.New(-1, 1)
	noClock := plan.DefaultConfig("x", berth.New(1024, 1), nil)
	alloc, err := plan.NewAllocation(otherID, "alice", *def(10_000, 50_000, 1), berth.Interval{Start: 10_000, End: 50_000},
		[]plan.IntervalResource{{Interval: berth.Interval{Start: 10_000, End: 20_000}, Resource: berth.New(100*1024, 100)}})
	require.NoError(t, err)

	submit := func(queue string, id plan.ReservationID, user string, d *plan.Definition) error {
		return sys.Submit(plan.SubmissionRequest{Queue: queue, ID: id, User: user, Definition: d})
	}
	checkErrors(t, []errCase{
		{"New/bad step", second(plan.New(badCfg)), berth.ErrInvalidArgument},
		{"New/no clock", second(plan.New(noClock)), berth.ErrInvalidArgument},
		{"NewSystem/no clock", second(plan.NewSystem(plan.SystemConfig{})), berth.ErrInvalidArgument},
		{"Reinitialize/bad config", second(sys.Reinitialize(badCfg)), berth.ErrInvalidArgument},
		{"ParseReservationID/garbage", second(plan.ParseReservationID("nope")), berth.ErrInvalidArgument},
		{"ParseReservationID/bad number", second(plan.ParseReservationID("reservation_x_1")), berth.ErrInvalidArgument},
		{"ParseRecurrence/garbage", second(plan.ParseRecurrence("often")), berth.ErrInvalidArgument},
		{"Definition/bad JSON", json.Unmarshal([]byte(`{"arrival": "soon"}`), new(plan.Definition)), nil},
		{"Submit/unknown queue", submit("nope", sys.NewReservationID(), "alice", def(10_000, 50_000, 1)), nil},
		{"Submit/no definition", submit("toy", sys.NewReservationID(), "alice", nil), berth.ErrInvalidArgument},
		{"Submit/deadline passed", submit("toy", sys.NewReservationID(), "alice", def(0, 500, 1)), berth.ErrInvalidArgument},
		{"Submit/no stages", submit("toy", sys.NewReservationID(), "alice", &plan.Definition{Arrival: 10_000, Deadline: 50_000}), berth.ErrInvalidArgument},
		{"Submit/conflict", submit("toy", held, "alice", def(10_000, 60_000, 4)), berth.ErrConflict},
		{"Submit/over capacity", submit("toy", sys.NewReservationID(), "alice", def(10_000, 50_000, 40)), berth.ErrCapacityExceeded},
		{"Submit/no placement", submit("greedy", sys.NewReservationID(), "alice", def(10_000, 50_000, 50)), berth.ErrNoPlacement},
		{"Submit/quota", submit("quota", sys.NewReservationID(), "alice", def(10_000, 50_000, 4)), berth.ErrCapacityExceeded},
		{"Submit/no agent", submit("bare", sys.NewReservationID(), "alice", def(10_000, 50_000, 1)), berth.ErrInvalidState},
		{"Submit/denied", submit("guarded", sys.NewReservationID(), "bob", def(10_000, 50_000, 1)), berth.ErrPermissionDenied},
		{"Update/unknown id", sys.Update(plan.UpdateRequest{ID: otherID, User: "alice", Definition: def(10_000, 50_000, 1)}), berth.ErrNotFound},
		{"Update/over capacity", sys.Update(plan.UpdateRequest{ID: held, User: "alice", Definition: def(10_000, 50_000, 40)}), berth.ErrCapacityExceeded},
		{"Delete/unknown id", sys.Delete(plan.DeleteRequest{ID: otherID, User: "alice"}), berth.ErrNotFound},
		{"List/unknown queue", second(sys.List(plan.ListRequest{Queue: "nope", End: -1})), nil},
		{"List/bad window", second(sys.List(plan.ListRequest{Queue: "toy", Start: 10, End: 5})), berth.ErrInvalidArgument},
		{"Plan.AddReservation/duplicate", p.AddReservation(heldAlloc), nil},
		{"Plan.AddReservation/over capacity", p.AddReservation(alloc), berth.ErrCapacityExceeded},
		{"Plan.UpdateReservation/unknown", p.UpdateReservation(alloc), berth.ErrNotFound},
		{"Plan.DeleteReservation/unknown", p.DeleteReservation(otherID), berth.ErrNotFound},
		{"Plan.SetCapacity/negative", p.SetCapacity(berth.New(-1, 1)), berth.ErrInvalidArgument},
		{"ValidateDefinition/gang above capacity", plan.ValidateDefinition(&plan.Definition{Arrival: 10_000, Deadline: 50_000, Interpreter: plan.RAll,
			Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 40, Concurrency: 40, Duration: 1000}}},
			plan.Limits{Now: 1000, Capacity: berth.New(10*1024, 10), Calculator: berth.MemoryCalculator{}, MaxPeriodicity: 86_400_000}), berth.ErrInvalidArgument},
		{"ValidateDefinition/strict stage", plan.ValidateDefinition(&plan.Definition{Arrival: 10_000, Deadline: 50_000, Interpreter: plan.RAll,
			Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 3, Concurrency: 2, Duration: 1000}}},
			plan.Limits{Now: 1000, Capacity: berth.New(10*1024, 10), Calculator: berth.MemoryCalculator{}, MaxPeriodicity: 86_400_000, StrictStages: true}), berth.ErrInvalidArgument},
		{"Submit/agent rejects stage", submit("greedy", sys.NewReservationID(), "alice", &plan.Definition{Arrival: 10_000, Deadline: 50_000, Interpreter: plan.RAll,
			Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 3, Concurrency: 2, Duration: 1000}}}), nil},
		{"Submit/average quota", submit("average", sys.NewReservationID(), "alice", def(10_000, 90_000, 4)), berth.ErrCapacityExceeded},
		{"ListResponse/bad number", json.Unmarshal([]byte(`{"reservations": {"acceptance-time": "later"}}`), new(plan.ListResponse)), berth.ErrInvalidArgument},
		{"NewAllocation/outside window", second(plan.NewAllocation(otherID, "alice", *def(10_000, 50_000, 1), berth.Interval{Start: 10_000, End: 50_000},
			[]plan.IntervalResource{{Interval: berth.Interval{Start: 0, End: 60_000}, Resource: berth.New(1024, 1)}})), berth.ErrInvalidArgument},
	})
}

func TestErrorTextSmallPackages(t *testing.T) {
	s := rle.New()
	require.NoError(t, s.Add(berth.Interval{Start: 0, End: 10}, berth.New(1024, 1)))
	checkErrors(t, []errCase{
		{"berth.ParseResource", second(berth.ParseResource("lots")), berth.ErrInvalidArgument},
		{"rle.Constant/empty interval", second(rle.Constant(berth.Interval{Start: 5, End: 5}, berth.New(1, 1))), berth.ErrInvalidArgument},
		{"rle.Series.Remove/too much", s.Remove(berth.Interval{Start: 0, End: 10}, berth.New(2048, 1)), berth.ErrInvalidArgument},
		{"rle.NewPeriodic/zero", second(rle.NewPeriodic(0)), berth.ErrInvalidArgument},
		{"rle.Merge/negative", second(rle.Merge(berth.MemoryCalculator{}, berth.New(4096, 4), rle.New(), s, rle.OpSubtractNonNegative, berth.Interval{Start: 0, End: 100})), berth.ErrCapacityExceeded},
		{"queue.New/no children", second(queue.New(queue.TreeConfig[struct{}]{Root: queue.Config[struct{}]{Name: "root"}})), berth.ErrInvalidArgument},
		{"queue.ParsePath/empty part", second(queue.ParsePath("root..a")), berth.ErrInvalidArgument},
		{"queue.ValidateName/dot", queue.ValidateName("a.b"), berth.ErrInvalidArgument},
		{"queue.NewACL/bad user", second(queue.NewACL([]string{"a b"}, nil)), berth.ErrInvalidArgument},
		{"agent.Config/smoothness", agent.Config{SmoothnessFactor: -1}.Validate(), berth.ErrInvalidArgument},
		{"policy.CapacityOverTime/zero window", second(policy.NewCapacityOverTime(policy.CapacityOverTimeConfig{})), berth.ErrInvalidArgument},
		{"policy.Replanner/negative window", second(policy.NewSimpleCapacityReplanner(policy.ReplannerConfig{EnforcementWindow: -1})), berth.ErrInvalidArgument},
		{"follower.New/no scheduler", second(follower.New(follower.Config{})), berth.ErrInvalidArgument},
	})
}

// TestErrorTextCapacityMappings drives the submissions a queue mapping
// refuses: the message names the mapping once, with the application.
func TestErrorTextCapacityMappings(t *testing.T) {
	cfg := capacity.DefaultConfig()
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("default", 50), capacity.Queue("etl", 50)}
	users, err := capacity.ParseQueueMappings("g:analysts:etl")
	require.NoError(t, err)
	apps, err := capacity.ParseAppNameMappings("%application:%application")
	require.NoError(t, err)
	cfg.Placement = capacity.Placement{
		Rules:       []capacity.PlacementRuleKind{capacity.RuleAppName, capacity.RuleUserGroup},
		Mappings:    users,
		AppMappings: apps,
	}
	cfg.Clock = berth.NewManualClock(0)
	s, err := capacity.New(cfg)
	require.NoError(t, err)
	checkErrors(t, []errCase{
		{"SubmitApp/app-name mapping to a missing queue", second(s.SubmitApp(capacity.AppSpec{ID: "app_1", Name: "nightly", Queue: "default", User: "alice", Groups: []string{"analysts"}})), berth.ErrNotFound},
		{"SubmitApp/group mapping without groups", second(s.SubmitApp(capacity.AppSpec{ID: "app_2", Queue: "default", User: "bob", Groups: []string{}})), berth.ErrNoPlacement},
	})
}
