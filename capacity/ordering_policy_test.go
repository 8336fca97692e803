package capacity

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sjf orders by pending memory; keyed adds the fast path; nan makes the
// key NaN (misbehaving).
type sjf struct{}

func (sjf) Name() string { return "sjf" }
func (sjf) Compare(a, b AppView) int {
	return cmp.Compare(a.Pending().Memory, b.Pending().Memory)
}

type keyedSJF struct {
	sjf
	nan bool
}

func (k keyedSJF) AppSortKey(a AppView) (AppSortKey, bool) {
	if k.nan && a.ID() == "app03" {
		return AppSortKey{Major: [3]float64{math.NaN()}}, true
	}
	return AppSortKey{Major: [3]float64{float64(a.Pending().Memory)}}, true
}
func (keyedSJF) UsageInKey() bool { return true }

// chaoticApps is not a strict weak order: it answers from a counter.
type chaoticApps struct{ n *int }

func (chaoticApps) Name() string { return "chaos" }
func (c chaoticApps) Compare(a, b AppView) int {
	*c.n++
	return []int{-1, 1, 0}[*c.n%3]
}

// lastFirst visits the children in reverse configuration order.
type lastFirst struct{}

func (lastFirst) Name() string               { return "last-first" }
func (lastFirst) Compare(a, b QueueView) int { return b.Position() - a.Position() }

type keyedLastFirst struct{ lastFirst }

func (keyedLastFirst) ChildSortKey(q QueueView) (ChildSortKey, bool) {
	return ChildSortKey{Major: [5]float64{-float64(q.Position())}}, true
}

type chaoticKids struct{ n *int }

func (chaoticKids) Name() string { return "chaos" }
func (c chaoticKids) Compare(a, b QueueView) int {
	*c.n++
	return []int{-1, 1, 0}[*c.n%3]
}

// runLeaf submits n applications to a single leaf ordered by pol,
// application i asking n-i containers of 1 GB, offers a node fitting k and
// returns who got them, checking the books after every heartbeat.
func runLeaf(t *testing.T, pol AppOrderingPolicy, n, k int) (*Scheduler, []string) {
	t.Helper()
	cfg := DefaultConfig()
	jobs := Queue("jobs", 100)
	jobs.Settings.AppOrderingPolicy = pol
	cfg.Root.Children = []QueueConfig{jobs}
	cfg.MaxOffSwitchAssignments = 1
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	s.checkOrder = true
	for i := range n {
		id := fmt.Sprintf("app%02d", i)
		_, err := s.SubmitApp(AppSpec{ID: id, Queue: "jobs", User: "u"})
		require.NoError(t, err)
		_, err = s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: n - i}}, nil)
		require.NoError(t, err)
	}
	require.NoError(t, s.AddNode(NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(int64(k)*1024, int64(k))}))
	var served []string
	for range k {
		clock.Advance(1000)
		al, err := s.Heartbeat("n1", nil)
		require.NoError(t, err)
		for _, a := range al {
			served = append(served, a.App)
		}
		require.NoError(t, s.Check())
	}
	return s, served
}

func TestCustomAppOrderingChangesDecisions(t *testing.T) {
	for _, pol := range []AppOrderingPolicy{sjf{}, keyedSJF{}} {
		t.Run(fmt.Sprintf("%T", pol), func(t *testing.T) {
			_, served := runLeaf(t, pol, 20, 4)
			// app19 asks 1, app18 2, …: the smallest outstanding demand
			// first, re-ordered as containers are granted.
			assert.Equal(t, []string{"app19", "app18", "app18", "app17"}, served)
		})
	}
	_, served := runLeaf(t, nil, 20, 4)
	assert.Equal(t, []string{"app00", "app00", "app00", "app00"}, served, "fifo serves the first submitted")
}

func TestCustomChildOrderingChangesDecisions(t *testing.T) {
	for _, tc := range []struct {
		pol ChildOrderingPolicy
		fan int
	}{{lastFirst{}, 16}, {keyedLastFirst{}, 16}, {keyedLastFirst{}, 0}} {
		t.Run(fmt.Sprintf("%T/fan%d", tc.pol, tc.fan), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Root.Settings.ChildOrderingPolicy = tc.pol
			cfg.Root.Children = []QueueConfig{Queue("a", 40), Queue("b", 30), Queue("c", 30)}
			cfg.MaxOffSwitchAssignments = 1
			clock := berth.NewManualClock(0)
			cfg.Clock = clock
			s, err := New(cfg)
			require.NoError(t, err)
			s.checkOrder = true
			s.sortFan = tc.fan
			for _, q := range []string{"a", "b", "c"} {
				_, err := s.SubmitApp(AppSpec{ID: "app-" + q, Queue: q, User: q})
				require.NoError(t, err)
				_, err = s.Allocate("app-"+q, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 1}}, nil)
				require.NoError(t, err)
			}
			require.NoError(t, s.AddNode(NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(8192, 8)}))
			clock.Advance(1000)
			al, err := s.Heartbeat("n1", nil)
			require.NoError(t, err)
			require.Len(t, al, 1)
			assert.Equal(t, "app-c", al[0].App, "the last configured child goes first")
			require.NoError(t, s.Check())
		})
	}
}

func TestOrderingPolicyXML(t *testing.T) {
	apps := &AppOrderings{Kind: "application ordering policy"}
	require.NoError(t, apps.Register("sjf", keyedSJF{}))
	require.NoError(t, apps.Register("fair", sjf{})) // built-in names win
	kids := &ChildOrderings{Kind: "queue ordering policy"}
	require.NoError(t, kids.Register("last-first", lastFirst{}))
	doc := func(leafPol, rootPol string) string {
		return `<configuration>
<property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>
<property><name>yarn.scheduler.capacity.root.a.capacity</name><value>50</value></property>
<property><name>yarn.scheduler.capacity.root.b.capacity</name><value>50</value></property>
<property><name>yarn.scheduler.capacity.root.a.ordering-policy</name><value>` + leafPol + `</value></property>
<property><name>yarn.scheduler.capacity.root.ordering-policy</name><value>` + rootPol + `</value></property>
</configuration>`
	}
	opts := XMLOptions{AppOrderings: apps, ChildOrderings: kids}
	cfg, _, err := ParseXMLReport(strings.NewReader(doc("sjf", "last-first")), opts)
	require.NoError(t, err)
	assert.Equal(t, keyedSJF{}, cfg.Root.Children[0].Settings.AppOrderingPolicy)
	assert.Equal(t, lastFirst{}, cfg.Root.Settings.ChildOrderingPolicy)
	cfg.Clock = berth.NewManualClock(0)
	_, err = New(cfg)
	require.NoError(t, err)

	cfg, _, err = ParseXMLReport(strings.NewReader(doc("fair", "utilization")), opts)
	require.NoError(t, err)
	assert.Nil(t, cfg.Root.Children[0].Settings.AppOrderingPolicy)
	assert.Equal(t, OrderFair, cfg.Root.Children[0].Settings.AppOrdering)

	for _, tc := range []struct{ leaf, root, key, name string }{
		{"lifo", "utilization", "yarn.scheduler.capacity.root.a.ordering-policy", "lifo"},
		{"fifo", "sjf", "yarn.scheduler.capacity.root.ordering-policy", "sjf"}, // a leaf's name on a parent
	} {
		_, _, err := ParseXMLReport(strings.NewReader(doc(tc.leaf, tc.root)), opts)
		var fe *berth.FieldError
		require.True(t, errors.As(err, &fe), "%v", err)
		assert.Equal(t, tc.key, fe.Field)
		var un *queue.UnknownNameError
		require.True(t, errors.As(err, &un))
		assert.Equal(t, tc.name, un.Name)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	}
	_, _, err = ParseXMLReport(strings.NewReader(doc("sjf", "utilization")), XMLOptions{})
	assert.ErrorIs(t, err, berth.ErrInvalidArgument, "no registry: only the built-ins")
}

// A misbehaving policy changes only the order: the books stay right and
// every application or child is still visited.
func TestMisbehavingOrderingPolicy(t *testing.T) {
	t.Run("app order not a strict weak order", func(t *testing.T) {
		n := 0
		_, served := runLeaf(t, chaoticApps{&n}, 12, 6)
		assert.Len(t, served, 6)
		assert.Positive(t, n)
	})
	t.Run("NaN app key placed last", func(t *testing.T) {
		s, served := runLeaf(t, keyedSJF{nan: true}, 6, 3)
		assert.NotContains(t, served, "app03")
		var order []string
		s.byPath["root.jobs"].leaf.sched.Ascend(func(a *app) bool { order = append(order, a.id); return true })
		assert.Equal(t, "app03", order[len(order)-1])
	})
	t.Run("child order not a strict weak order", func(t *testing.T) {
		n := 0
		cfg := DefaultConfig()
		cfg.Root.Settings.ChildOrderingPolicy = chaoticKids{&n}
		cfg.Root.Children = nil
		for i := range 20 {
			cfg.Root.Children = append(cfg.Root.Children, Queue(fmt.Sprintf("q%02d", i), 5))
		}
		cfg.MaxOffSwitchAssignments = 20
		clock := berth.NewManualClock(0)
		cfg.Clock = clock
		s, err := New(cfg)
		require.NoError(t, err)
		for i := range 20 {
			id := fmt.Sprintf("app%02d", i)
			_, err := s.SubmitApp(AppSpec{ID: id, Queue: fmt.Sprintf("q%02d", i), User: id})
			require.NoError(t, err)
			_, err = s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 1}}, nil)
			require.NoError(t, err)
		}
		require.NoError(t, s.AddNode(NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(20*1024, 20)}))
		got := map[string]bool{}
		for range 20 {
			clock.Advance(1000)
			al, err := s.Heartbeat("n1", nil)
			require.NoError(t, err)
			for _, a := range al {
				got[a.App] = true
			}
			require.NoError(t, s.Check())
		}
		assert.Len(t, got, 20, "every child served")
		assert.Positive(t, n)
	})
}

// fuzzOrdering answers Compare and the keys from fuzz bytes: contradictory
// orders, keys that disagree with Compare, NaN and refused keys.
type fuzzOrdering struct {
	data []byte
	i    *int
}

func (f fuzzOrdering) next() byte {
	*f.i++
	return f.data[*f.i%len(f.data)]
}

func (fuzzOrdering) Name() string               { return "fuzz" }
func (f fuzzOrdering) Compare(_, _ AppView) int { return int(f.next()%3) - 1 }
func (f fuzzOrdering) UsageInKey() bool         { return f.next()%2 == 0 }
func (f fuzzOrdering) AppSortKey(AppView) (AppSortKey, bool) {
	switch b := f.next(); b % 4 {
	case 0:
		return AppSortKey{}, false
	case 1:
		return AppSortKey{Major: [3]float64{math.NaN()}}, true
	default:
		var k AppSortKey
		k.Major[b%3] = float64(int8(f.next()))
		return k, true
	}
}

type fuzzKids struct{ fuzzOrdering }

func (f fuzzKids) Compare(_, _ QueueView) int { return int(f.next()%3) - 1 }
func (f fuzzKids) ChildSortKey(QueueView) (ChildSortKey, bool) {
	switch b := f.next(); b % 4 {
	case 0:
		return ChildSortKey{}, false
	case 1:
		return ChildSortKey{Major: [5]float64{math.NaN()}}, true
	default:
		var k ChildSortKey
		k.Major[b%5] = float64(int8(f.next()))
		return k, true
	}
}

// FuzzCustomOrdering: whatever a host's orderings answer, every heartbeat
// leaves the books right and nothing panics.
func FuzzCustomOrdering(f *testing.F) {
	f.Add([]byte{0, 1, 2}, uint8(12))
	f.Add([]byte{3, 1, 1, 200, 7}, uint8(30))
	f.Fuzz(func(t *testing.T, data []byte, n uint8) {
		if len(data) == 0 {
			return
		}
		i := 0
		var apps AppOrderingPolicy = fuzzOrdering{data, &i}
		var kids ChildOrderingPolicy = fuzzKids{fuzzOrdering{data, &i}}
		if data[0]%2 == 1 {
			apps = struct{ AppOrderingPolicy }{apps} // compare only
			kids = struct{ ChildOrderingPolicy }{kids}
		}
		cfg := DefaultConfig()
		cfg.Root.Settings.ChildOrderingPolicy = kids
		cfg.Root.Children = nil
		nq := int(n%20) + 1
		for q := range nq {
			c := Queue(fmt.Sprintf("q%02d", q), 0)
			c.Settings.AppOrderingPolicy = apps
			c.Settings.MaxApplications = 100 // zero-capacity queues still accept
			cfg.Root.Children = append(cfg.Root.Children, c)
		}
		cfg.Root.Children[0].Capacity = queue.Percent(100)
		cfg.MaxOffSwitchAssignments = 4
		clock := berth.NewManualClock(0)
		cfg.Clock = clock
		s, err := New(cfg)
		require.NoError(t, err)
		for a := range int(n%32) + 1 {
			id := fmt.Sprintf("app%02d", a)
			_, err := s.SubmitApp(AppSpec{ID: id, Queue: fmt.Sprintf("q%02d", a%nq), User: "u"})
			require.NoError(t, err)
			_, err = s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 1 + a%3}}, nil)
			require.NoError(t, err)
		}
		require.NoError(t, s.AddNode(NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(16*1024, 16)}))
		for range 6 {
			clock.Advance(1000)
			_, err := s.Heartbeat("n1", nil)
			require.NoError(t, err)
			require.NoError(t, s.Check())
		}
	})
}
