package berth_test

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"math"
	"reflect"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/follower"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/berthsched/berth/preempt"
	"github.com/berthsched/berth/queue"
	"github.com/berthsched/berth/rle"
)

// errWrite is what refusingWriter returns; an error wrapping it is the
// caller's own, so it counts as typed.
var errWrite = errors.New("write refused")

type refusingWriter struct{}

func (refusingWriter) Write([]byte) (int, error) { return 0, errWrite }

// replayReader reads data from the start again before every call.
type replayReader struct {
	data []byte
	r    *bytes.Reader
}

func newReplay(b []byte) *replayReader { return &replayReader{data: b, r: bytes.NewReader(b)} }

func (r *replayReader) Read(p []byte) (int, error) { return r.r.Read(p) }
func (r *replayReader) reset()                     { r.r = bytes.NewReader(r.data) }

var apiErrKinds = []error{
	berth.ErrInvalidArgument, berth.ErrNotFound, berth.ErrAlreadyExists, berth.ErrConflict,
	berth.ErrCapacityExceeded, berth.ErrNoPlacement, berth.ErrPermissionDenied, berth.ErrInvalidState,
	berth.ErrCorruptState, berth.ErrUnsupportedVersion, errWrite,
	// The packages' own sentinels.
	plan.ErrNoAgent, plan.ErrIDPrefix, plan.ErrIDFields, plan.ErrIDNumber, plan.ErrReadOnlyView,
	agent.ErrContract, policy.ErrOverCommitted, policy.ErrQuotaExceeded, fair.ErrBadRule,
}

// apiFixture is a small world every call may use: two schedulers with a
// reservable queue, nodes, applications and containers; a plan with a
// reservation in a reservation system; a follower; preemption policies;
// agents, policies, series. Names are shared so that the same strings
// mean something to every object: queues "default" and "dedicated", nodes
// "n1" and "n2", applications "app1" and "app2", user "alice".
type apiFixture struct {
	t        testing.TB
	clock    *berth.ManualClock
	cs       *capacity.Scheduler
	fs       *fair.Scheduler
	af       *fair.AllocationFile
	plan     *plan.Plan
	sys      *plan.System
	alloc    *plan.Allocation
	fol      *follower.Follower
	prop     *preempt.Proportional
	fairPr   *preempt.FairPreemptor
	series   *rle.Series
	periodic *rle.Periodic
	tree     *queue.Tree[int]
	reqs     *queue.Requests[int]
	csSnap   []byte
	round    *preempt.ProportionalRound
	pool     []any
	gen      *apiGen
}

const (
	apiCapacityXML = `<configuration>
<property><name>yarn.scheduler.capacity.root.queues</name><value>default,dedicated</value></property>
<property><name>yarn.scheduler.capacity.root.default.capacity</name><value>50</value></property>
<property><name>yarn.scheduler.capacity.root.dedicated.capacity</name><value>50</value></property>
<property><name>yarn.scheduler.capacity.root.dedicated.reservable</name><value>true</value></property>
<property><name>yarn.scheduler.capacity.root.dedicated.average-capacity</name><value>60</value></property>
</configuration>`
	apiFairXML = `<allocations><queue name="default"/><queue name="dedicated"><reservation/></queue>
<reservation-agent>AlignedPlannerWithGreedy</reservation-agent></allocations>`
)

// must unwraps a fixture step that cannot fail.
func must[T any](v T, err error) T {
	if err != nil {
		panic("api fixture: " + err.Error())
	}
	return v
}

func newAPIFixture(t testing.TB) *apiFixture {
	t.Helper()
	fx := &apiFixture{t: t, clock: berth.NewManualClock(1000)}
	ccfg := must(capacity.ParseXML(bytes.NewReader([]byte(apiCapacityXML))))
	ccfg.Clock = fx.clock
	fx.cs = must(capacity.New(ccfg))
	fx.af = must(fair.ParseAllocationFile([]byte(apiFairXML), fair.ParseOptions{}))
	cfg := fair.DefaultConfig()
	cfg.Allocation = fx.af
	cfg.Clock = fx.clock
	fx.fs = must(fair.New(cfg))
	for _, n := range []string{"n1", "n2"} {
		spec := queue.NodeSpec{ID: n, Rack: "/r1", Capability: berth.New(8192, 8)}
		if err := fx.cs.AddNode(spec); err != nil {
			t.Fatal(err)
		}
		if err := fx.fs.AddNode(spec); err != nil {
			t.Fatal(err)
		}
	}
	ask := queue.Ask{Priority: 1, ResourceName: queue.AnyResource, Capability: berth.New(1024, 1), Count: 3}
	for _, app := range []queue.AppSpec{{ID: "app1", Queue: "default", User: "alice"}, {ID: "app2", Queue: "dedicated", User: "alice"}} {
		must(fx.cs.SubmitApp(app))
		must(fx.cs.Allocate(app.ID, []queue.Ask{ask}, nil))
		app.Queue = "root." + app.Queue
		must(fx.fs.SubmitApp(app))
		must(fx.fs.Allocate(app.ID, []queue.Ask{ask}, nil))
	}
	must(fx.cs.Heartbeat("n1", nil))
	must(fx.fs.Heartbeat("n1", nil))

	pc := plan.DefaultConfig("dedicated", berth.New(8192, 8), fx.clock)
	pc.Agent = must(agent.NewAlignedPlannerWithGreedy(agent.DefaultConfig()))
	pc.Policy = must(policy.NewCapacityOverTime(policy.DefaultCapacityOverTimeConfig()))
	pc.Replanner = must(policy.NewSimpleCapacityReplanner(policy.DefaultReplannerConfig()))
	fx.plan = must(plan.New(pc))
	fx.sys = must(plan.NewSystem(plan.SystemConfig{ClusterTimestamp: 1, Clock: fx.clock}))
	if err := fx.sys.AddPlan(fx.plan); err != nil {
		t.Fatal(err)
	}
	def := apiDefinition()
	if err := fx.sys.Submit(plan.SubmissionRequest{Queue: "dedicated", ID: plan.ReservationID{ClusterTimestamp: 1, Sequence: 1}, Definition: &def, User: "alice"}); err != nil {
		t.Fatal(err)
	}
	fx.alloc, _ = fx.plan.Reservation(plan.ReservationID{ClusterTimestamp: 1, Sequence: 1})
	fx.fol = must(follower.New(follower.Config{Scheduler: fx.cs, Flavor: follower.CapacityFlavor, Plans: follower.Plans{fx.plan}}))
	must(fx.fol.Run(fx.clock.Now()))
	fx.prop = must(preempt.NewProportional(preempt.ProportionalSetup{State: fx.cs, Actor: fx.cs, Config: preempt.DefaultProportionalConfig()}))
	// A round of the policy, as a selector sees it.
	capture := &roundCapture{}
	pr := must(preempt.NewProportional(preempt.ProportionalSetup{State: fx.cs, Actor: fx.cs, Config: preempt.DefaultProportionalConfig(), Selectors: []preempt.Selector{capture}}))
	must(pr.Round(fx.clock.Now()))
	fx.round = capture.r
	fx.fairPr = must(preempt.NewFairPreemptor(preempt.FairPreemptorSetup{State: fx.fs, Actor: fx.fs, Config: preempt.DefaultFairConfig()}))

	fx.series = rle.New()
	if err := fx.series.Add(berth.Interval{Start: 0, End: 5000}, berth.New(2048, 2)); err != nil {
		t.Fatal(err)
	}
	fx.periodic = must(rle.NewPeriodicFrom(fx.series, 10_000))
	fx.tree = must(queue.New(queue.TreeConfig[int]{CheckCapacitySums: true,
		Root: queue.Config[int]{Name: "root", Children: []queue.Config[int]{
			{Name: "default", Capacity: queue.Percent(50)}, {Name: "dedicated", Capacity: queue.Percent(50), Reservable: true}}}}))
	fx.reqs = &queue.Requests[int]{}
	if _, err := fx.reqs.Update(ask, false); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := fx.cs.SaveState(&buf); err != nil {
		t.Fatal(err)
	}
	fx.csSnap = buf.Bytes()

	fx.pool = []any{fx.clock, fx.cs, fx.fs, fx.plan, fx.sys, fx.alloc, fx.fol, fx.prop, fx.fairPr, fx.series, fx.periodic,
		fx.tree, fx.reqs, fx.af,
		berth.MemoryCalculator{}, berth.DominantCalculator{}, pc.Agent, pc.Policy, pc.Replanner, policy.NoOverCommit{},
		&agent.LegacyGreedy{}, follower.CapacityFlavor, follower.FairFlavor, queue.StaticGroups{"alice": {"staff"}},
		slog.New(slog.NewTextHandler(io.Discard, nil)), queue.NopObserver{}, plan.NopObserver{}, preempt.NopObserver{},
		newReplay(nil), newReplay([]byte("not a snapshot")), newReplay(fx.csSnap), newReplay([]byte(apiCapacityXML)),
		&bytes.Buffer{}, refusingWriter{}, fx.round, fx.round.Cluster,
		// Typed nils: readers, writers and a clock that compare unequal to nil.
		(*bytes.Reader)(nil), (*bytes.Buffer)(nil), (*berth.ManualClock)(nil),
		berth.NewStateEncoder(&bytes.Buffer{}, "k", 1), must(berth.NewStateDecoder(bytes.NewReader(fx.csSnap), "capacity.Scheduler", 3))}
	fx.gen = newAPIGen(fx)
	return fx
}

// roundCapture is a selector that keeps the round it is given.
type roundCapture struct{ r *preempt.ProportionalRound }

func (*roundCapture) Name() string             { return "capture" }
func (*roundCapture) KillWait() berth.Duration { return 0 }
func (c *roundCapture) Select(r *preempt.ProportionalRound) error {
	c.r = r
	return nil
}

// apiDefinition is a valid one-stage definition for the fixture's plan.
func apiDefinition() plan.Definition {
	return plan.Definition{Arrival: 1000, Deadline: 60_000, Interpreter: plan.RAll,
		Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 2, Concurrency: 2, Duration: 10_000}}}
}

// checkAll is the books' check after a call: both schedulers pass Check.
func (fx *apiFixture) checkAll() error {
	if err := fx.cs.Check(); err != nil {
		return err
	}
	return fx.fs.Check()
}

// apiGen makes candidate argument values by type.
type apiGen struct {
	fx      *apiFixture
	samples map[reflect.Type][]any
}

var apiStrings = []string{"", "app1", "n1", "dedicated", "root.default", "alice", "*", "root", "default",
	"reservation_1_0001", "dedicated-default", "..\x00\xff"}

func newAPIGen(fx *apiFixture) *apiGen {
	g := &apiGen{fx: fx, samples: map[reflect.Type][]any{}}
	add := func(vs ...any) {
		t := reflect.TypeOf(vs[0])
		g.samples[t] = append(g.samples[t], vs...)
	}
	huge := berth.New(math.MaxInt64, math.MaxInt64)
	add(berth.New(1024, 1), berth.Resource{}, huge, berth.New(-1, -1), berth.New(math.MinInt64, math.MinInt64),
		berth.NewWithExtras(1, 1, berth.Quantity{Name: "gpu", Value: math.MaxInt64}))
	add(berth.Interval{Start: 1000, End: 5000}, berth.Interval{}, berth.Interval{Start: math.MinInt64, End: math.MaxInt64},
		berth.Interval{Start: 10, End: 0}, berth.Interval{Start: math.MaxInt64 - 1, End: math.MaxInt64})
	add(queue.NodeSpec{ID: "n9", Rack: "/r1", Capability: berth.New(8192, 8)}, queue.NodeSpec{},
		queue.NodeSpec{ID: "n9", Rack: "/r1", Capability: huge}, queue.NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(-1, 0)})
	add(queue.AppSpec{ID: "app9", Queue: "default", User: "alice"}, queue.AppSpec{},
		queue.AppSpec{ID: "app9", Queue: "dedicated", User: "alice", ReservationID: "reservation_1_0001", Priority: math.MaxInt32, AMResource: huge},
		queue.AppSpec{ID: "app9", Queue: "root.dedicated", User: "alice", AMResource: berth.New(-1, -1)})
	add(queue.Ask{Priority: 1, ResourceName: "*", Capability: berth.New(1024, 1), Count: 2}, queue.Ask{},
		queue.Ask{Priority: 1, ResourceName: "*", Capability: berth.New(1024, 1), Count: 1 << 53},
		queue.Ask{Priority: math.MinInt32, ResourceName: "*", Capability: huge, Count: math.MaxInt},
		queue.Ask{Priority: 2, ResourceName: "n1", Capability: berth.New(1024, 1), Count: -1})
	def := apiDefinition()
	add(def, plan.Definition{},
		plan.Definition{Arrival: math.MinInt64, Deadline: math.MaxInt64, Interpreter: plan.ROrder,
			Stages: []plan.Stage{{Capability: huge, Containers: math.MaxInt64, Concurrency: math.MaxInt64, Duration: math.MaxInt64}}},
		plan.Definition{Arrival: 5000, Deadline: 1000, Interpreter: plan.Interpreter(99), Period: -1,
			Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 1, Concurrency: 1, Duration: -5}}})
	add(def.Stages[0], plan.Stage{}, plan.Stage{Capability: huge, Containers: math.MaxInt64, Concurrency: math.MaxInt64, Duration: math.MaxInt64})
	add(plan.ReservationID{ClusterTimestamp: 1, Sequence: 1}, plan.ReservationID{},
		plan.ReservationID{ClusterTimestamp: math.MaxInt64, Sequence: math.MinInt64})
	add(&def, (*plan.Definition)(nil))
	add(plan.SubmissionRequest{Queue: "dedicated", ID: plan.ReservationID{ClusterTimestamp: 1, Sequence: 9}, Definition: &def, User: "alice"},
		plan.SubmissionRequest{})
	add(plan.DefaultConfig("dedicated", berth.New(8192, 8), fx.clock), plan.Config{},
		plan.Config{Queue: "q", Capacity: huge, Step: math.MaxInt64, MaxPeriodicity: -1, Clock: fx.clock})
	add(capacity.DefaultConfig(), capacity.Config{})
	add(fair.DefaultConfig(), fair.Config{})
	add(queue.Entitlement{Capacity: 0.5, MaxCapacity: 1}, queue.Entitlement{},
		queue.Entitlement{Capacity: float32(math.NaN()), MaxCapacity: float32(math.Inf(1))})
	add(follower.Config{Scheduler: fx.cs, Flavor: follower.CapacityFlavor, Plans: follower.Plans{fx.plan}}, follower.Config{})
	add(plan.RestoreEnv{Clock: fx.clock}, plan.RestoreEnv{})
	add(capacity.RestoreEnv{Clock: fx.clock}, capacity.RestoreEnv{})
	add(fair.RestoreEnv{Clock: fx.clock}, fair.RestoreEnv{})
	add([]byte(apiFairXML), []byte(nil), []byte{}, []byte("<allocations><queue name=\"a\"><weight>NaN</weight></queue></allocations>"), fx.csSnap)
	add(map[string]string{"yarn.scheduler.capacity.root.queues": "a", "yarn.resourcemanager.reservation-system.enable": "true"},
		map[string]string(nil), map[string]string{"": ""})
	add(preempt.DefaultProportionalConfig(), preempt.ProportionalConfig{})
	add(preempt.DefaultFairConfig(), preempt.FairConfig{})
	add(agent.DefaultConfig(), agent.Config{}, agent.Config{SmoothnessFactor: math.MinInt})
	add(policy.DefaultCapacityOverTimeConfig(), policy.CapacityOverTimeConfig{},
		policy.CapacityOverTimeConfig{Window: math.MaxInt64, AveragePercent: float32(math.NaN()), InstantaneousMaxPercent: float32(math.Inf(1))})
	return g
}

// values returns the candidates for an argument of type t: the samples
// registered for t (a valid one first), then values by kind: zero, nil,
// extremes.
func (g *apiGen) values(t reflect.Type, depth int) []reflect.Value {
	var out []reflect.Value
	for _, s := range g.samples[t] {
		out = append(out, reflect.ValueOf(s))
	}
	// Objects of the fixture of that type, or implementing it.
	if t.Kind() == reflect.Interface || t.Kind() == reflect.Pointer {
		for _, o := range g.fx.pool {
			ot := reflect.TypeOf(o)
			if ot == t || t.Kind() == reflect.Interface && ot.Implements(t) {
				out = append(out, reflect.ValueOf(o))
			}
		}
	}
	if len(out) > 0 && t.Kind() != reflect.Interface && t.Kind() != reflect.Pointer && t.Kind() != reflect.Struct {
		return out
	}
	zero := reflect.Zero(t)
	switch t.Kind() {
	case reflect.Bool:
		return []reflect.Value{zero, reflect.ValueOf(true).Convert(t)}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		for _, v := range []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 1000, 1 << 53} {
			x := reflect.New(t).Elem()
			if x.OverflowInt(v) {
				if v > 0 {
					v = int64(1)<<(t.Bits()-1) - 1
				} else {
					v = -int64(1) << (t.Bits() - 1)
				}
			}
			x.SetInt(v)
			out = append(out, x)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		for _, v := range []uint64{0, 1, math.MaxUint64} {
			x := reflect.New(t).Elem()
			if x.OverflowUint(v) {
				v = uint64(1)<<t.Bits() - 1
			}
			x.SetUint(v)
			out = append(out, x)
		}
	case reflect.Float32, reflect.Float64:
		for _, v := range []float64{0.5, 0, -1, math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64} {
			x := reflect.New(t).Elem()
			x.SetFloat(v)
			out = append(out, x)
		}
	case reflect.String:
		for _, s := range apiStrings {
			out = append(out, reflect.ValueOf(s).Convert(t))
		}
	case reflect.Slice:
		out = append(out, zero, reflect.MakeSlice(t, 0, 0))
		if depth < 2 {
			for i, e := range g.values(t.Elem(), depth+1) {
				if i == 4 {
					break
				}
				s := reflect.MakeSlice(t, 1, 1)
				s.Index(0).Set(e)
				out = append(out, s)
			}
		}
	case reflect.Map:
		out = append(out, zero, reflect.MakeMap(t))
		if depth < 2 {
			ks, vs := g.values(t.Key(), depth+1), g.values(t.Elem(), depth+1)
			m := reflect.MakeMap(t)
			m.SetMapIndex(ks[0], vs[0])
			out = append(out, m)
		}
	case reflect.Pointer:
		// A stateful type the fixture builds is passed as that object or
		// nil: its zero value is documented unusable (only its
		// constructor makes one).
		stateful := len(out) > 0
		out = append(out, zero)
		if !stateful && depth < 2 && t.Elem().Kind() != reflect.Interface {
			for i, e := range g.values(t.Elem(), depth+1) {
				if i == 3 {
					break
				}
				p := reflect.New(t.Elem())
				p.Elem().Set(e)
				out = append(out, p)
			}
		}
	case reflect.Interface:
		out = append(out, zero)
		if t.NumMethod() == 0 {
			out = append(out, reflect.ValueOf(1), reflect.ValueOf("x"))
		}
	case reflect.Func:
		out = append(out, reflect.MakeFunc(t, func([]reflect.Value) []reflect.Value {
			res := make([]reflect.Value, t.NumOut())
			for i := range res {
				res[i] = reflect.Zero(t.Out(i))
			}
			return res
		}), zero)
	case reflect.Struct:
		// Registered samples first (a valid one leads), then the zero
		// value and two fills of every exported field: small values, and
		// extremes.
		out = append(out, zero)
		if depth < 2 {
			for _, k := range []int{1, 3} {
				x := reflect.New(t).Elem()
				for i := 0; i < t.NumField(); i++ {
					if f := t.Field(i); f.IsExported() {
						vs := g.values(f.Type, depth+1)
						x.Field(i).Set(vs[min(k, len(vs)-1)])
					}
				}
				out = append(out, x)
			}
		}
	default:
		out = append(out, zero)
	}
	return out
}
