package capacity

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

func appPriorityOf(t *testing.T, s *Scheduler, id string) int32 {
	t.Helper()
	for _, a := range s.Snapshot().Apps {
		if a.ID == id {
			return a.Priority
		}
	}
	t.Fatalf("no app %s", id)
	return 0
}

// The priority an application runs at (checkAndGetApplicationPriority).
func TestAppPriority(t *testing.T) {
	acls, err := ParsePriorityACLs("[user=alice max_priority=5 default_priority=3] [group=eng max_priority=2 default_priority=1] [user=dave max_priority=20 default_priority=15]")
	require.NoError(t, err)
	cases := []struct {
		name       string
		clusterMax int32
		aclEnable  bool
		spec       AppSpec
		want       int32
		refused    bool
	}{
		{name: "YARN's cluster maximum 0 lowers every priority", spec: AppSpec{User: "bob", Priority: 5}, want: 0},
		{name: "negative priorities are kept", spec: AppSpec{User: "bob", Priority: -3}, want: -3},
		{name: "below the cluster maximum", clusterMax: 10, spec: AppSpec{User: "bob", Priority: 5}, want: 5},
		{name: "above the cluster maximum", clusterMax: 10, spec: AppSpec{User: "bob", Priority: 50}, want: 10},
		{name: "no priority: the leaf's default", clusterMax: 10, spec: AppSpec{User: "bob", NoPriority: true}, want: 4},
		{name: "ACLs off: ignored", clusterMax: 10, spec: AppSpec{User: "carol", Priority: 8}, want: 8},
		{name: "ACL: the user's default", clusterMax: 10, aclEnable: true, spec: AppSpec{User: "alice", NoPriority: true}, want: 3},
		{name: "ACL: a group's default", clusterMax: 10, aclEnable: true, spec: AppSpec{User: "bob", Groups: []string{"eng"}, NoPriority: true}, want: 1},
		{name: "ACL: within the user's maximum", clusterMax: 10, aclEnable: true, spec: AppSpec{User: "alice", Priority: 5}, want: 5},
		{name: "ACL: above the user's maximum", clusterMax: 10, aclEnable: true, spec: AppSpec{User: "alice", Priority: 6}, refused: true},
		{name: "ACL: a user no group names", clusterMax: 10, aclEnable: true, spec: AppSpec{User: "carol", Priority: 0}, refused: true},
		{name: "ACL: a group maximum above the cluster's is lowered", clusterMax: 10, aclEnable: true, spec: AppSpec{User: "dave", Priority: 12}, want: 10},
		{name: "ACL: no priority and no group names the user: refused", clusterMax: 10, aclEnable: true, spec: AppSpec{User: "carol", NoPriority: true}, refused: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.MaxAppPriority, cfg.ACLEnable = c.clusterMax, c.aclEnable
			a := Queue("a", 100)
			a.Settings.DefaultAppPriority = 4
			a.Settings.PriorityACLs = acls
			cfg.Root.Children = []QueueConfig{a}
			cfg.Clock = berth.NewManualClock(0)
			s, err := New(cfg)
			require.NoError(t, err)
			spec := c.spec
			spec.ID, spec.Queue = "app", "a"
			_, err = s.SubmitApp(spec)
			if c.refused {
				require.ErrorIs(t, err, berth.ErrPermissionDenied)
				assert.Empty(t, s.Snapshot().Apps)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, appPriorityOf(t, s, "app"))
		})
	}
}

// Waiting applications are activated by priority, then submission
// (FifoOrderingPolicyForPendingApps); an update of the priority moves an
// application in both orders.
func TestPriorityActivationOrder(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxAppPriority = 10
	a := Queue("a", 100)
	a.Settings.MaxAMResourcePercent = 0.1 // one 1 GB AM at a time on 10 GB
	cfg.Root.Children = []QueueConfig{a}
	h := newHarness(t, cfg, mkNode("n1", 10*gb, 10))
	for _, sp := range []AppSpec{{ID: "first", Priority: 0}, {ID: "low", Priority: 1}, {ID: "high", Priority: 5}, {ID: "mid", Priority: 3}} {
		sp.Queue, sp.User, sp.AMResource = "a", "u", berth.New(gb, 1)
		_, err := h.s.SubmitApp(sp)
		require.NoError(t, err)
	}
	active := func() []string { return activeApps(h) }
	assert.Equal(t, []string{"first"}, active())
	p, err := h.s.UpdateAppPriority("low", 9)
	require.NoError(t, err)
	assert.Equal(t, int32(9), p)
	var order []string
	for _, id := range []string{"first", "low", "high", "mid"} {
		_, err := h.s.FinishApp(id)
		require.NoError(t, err)
		require.NoError(t, h.s.Check())
		order = append(order, active()...)
	}
	assert.Equal(t, []string{"low", "high", "mid"}, order)

	// Update: capped at the cluster's maximum, refused for an unknown id.
	_, err = h.s.UpdateAppPriority("nope", 1)
	require.ErrorIs(t, err, berth.ErrNotFound)
}

// Property: under FIFO ordering a leaf offers each container to the
// active application of highest priority with asks, the earliest
// submitted among equals (FifoComparator); priority updates reorder.
func TestPriorityOrdersWithinLeaf(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 11))
		cfg := DefaultConfig()
		cfg.MaxAppPriority = 5
		cfg.MultipleAssignments = false
		cfg.Root.Children = []QueueConfig{Queue("a", 100)}
		a := &cfg.Root.Children[0]
		a.Settings.UserLimitFactor = 100
		a.Settings.MaxAMResourcePercent = 1
		h := newHarness(t, cfg, mkNode("n1", 1024*gb, 1024))
		type ref struct {
			prio   int32
			seq    int
			asking int
		}
		apps := map[string]*ref{}
		for step := range 80 {
			switch k := r.IntN(5); {
			case k == 0 || len(apps) == 0:
				id := fmt.Sprintf("a%d", step)
				p := int32(r.IntN(9) - 2)
				_, err := h.s.SubmitApp(AppSpec{ID: id, Queue: "a", User: fmt.Sprintf("u%d", r.IntN(3)), Priority: p})
				require.NoError(t, err)
				apps[id] = &ref{prio: min(p, 5), seq: step}
			case k == 1:
				id := sortedKeys(apps)[r.IntN(len(apps))]
				p := int32(r.IntN(9) - 2)
				got, err := h.s.UpdateAppPriority(id, p)
				require.NoError(t, err)
				apps[id].prio = got
			case k == 2:
				id := sortedKeys(apps)[r.IntN(len(apps))]
				n := 1 + r.IntN(3)
				h.ask(id, 1, gb, n)
				apps[id].asking = n
			default:
				// Who should get the next container.
				want := ""
				for id, a := range apps {
					if a.asking == 0 {
						continue
					}
					if b := apps[want]; want == "" || a.prio > b.prio || (a.prio == b.prio && a.seq < b.seq) {
						want = id
					}
				}
				al := h.beat("n1")
				if want == "" {
					require.Empty(t, al)
					continue
				}
				require.Len(t, al, 1, "seed %d step %d", seed, step)
				require.Equal(t, want, al[0].App, "seed %d step %d", seed, step)
				apps[want].asking--
			}
		}
	}
}

func TestParsePriorityACLs(t *testing.T) {
	acls, err := ParsePriorityACLs("[user=a,b group=g MAX_PRIORITY=7 default_priority=-2][ ]  [user=* max_priority=1 default_priority=0]")
	require.NoError(t, err)
	require.Len(t, acls, 2)
	assert.Equal(t, []string{"a", "b"}, acls[0].Who.Users())
	assert.Equal(t, []string{"g"}, acls[0].Who.Groups())
	assert.Equal(t, int32(7), acls[0].Max)
	assert.Equal(t, int32(0), acls[0].Default, "a negative default reads as 0, as YARN")
	assert.True(t, acls[1].Who.AllowsEveryone())

	only, err := ParsePriorityACLs("[group=eng max_priority=2]")
	require.NoError(t, err)
	assert.Empty(t, only[0].Who.Users(), "a group-only ACL keeps groups as groups")
	assert.Equal(t, []string{"eng"}, only[0].Who.Groups())

	none, err := ParsePriorityACLs("*")
	require.NoError(t, err)
	assert.Empty(t, none)

	for _, bad := range []string{"[user=a max_priority=x]", "[user=a foo=1 max_priority=1]", "[user=a default_priority=1]", "[user=a max_priority=99999999999]"} {
		_, err := ParsePriorityACLs(bad)
		assertFieldError(t, err, "acl_application_max_priority")
	}
	for _, bad := range []string{"app1", "a:b", "a::1", "a:b:x", "a:b:99999999999"} {
		_, err := ParseWorkflowPriorities(bad)
		assertFieldError(t, err, "workflow-priority-mappings")
	}
	cfg, err := ParseXML(stringsReader(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100",
		prefix+"root.a.acl_application_max_priority", "[user=a max_priority=x]")))
	assertFieldError(t, err, prefix+"root.a.acl_application_max_priority")
	_ = cfg

	cfg, err = ParseXML(stringsReader(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100",
		prefix+"root.a.default-application-priority", "4", "yarn.cluster.max-application-priority", "9", "yarn.acl.enable", "true",
		prefix+"root.a.acl_application_max_priority", "[user=a max_priority=3 default_priority=2]")))
	require.NoError(t, err)
	assert.Equal(t, int32(4), cfg.Root.Children[0].Settings.DefaultAppPriority)
	assert.Equal(t, int32(9), cfg.MaxAppPriority)
	assert.True(t, cfg.ACLEnable)
	assert.Equal(t, []PriorityACL{{Who: queue.ParseACL("a"), Max: 3, Default: 2}}, cfg.Root.Children[0].Settings.PriorityACLs)
}

func FuzzParsePriorityACLs(f *testing.F) {
	for _, s := range []string{"*", "[user=a max_priority=1]", "[group=g max_priority=2 default_priority=1][user=* max_priority=0]", "[", "[]", "[=]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		acls, err := ParsePriorityACLs(s)
		if err != nil {
			if !errors.Is(err, berth.ErrInvalidArgument) {
				t.Fatalf("%q: untyped error %v", s, err)
			}
			return
		}
		for _, a := range acls {
			if a.Default < 0 {
				t.Fatalf("negative default %d from %q", a.Default, s)
			}
		}
		// What parsed is valid configuration.
		cfg := DefaultConfig()
		cfg.Root.Children[0].Settings.PriorityACLs = acls
		cfg.Clock = berth.NewManualClock(0)
		if _, err := New(cfg); err != nil {
			t.Fatalf("%q parsed but refused: %v", s, err)
		}
	})
}

// workflow-priority-mappings: with the override on, a tagged application
// runs at its workflow's priority in the queue or the nearest above it.
func TestWorkflowPriorities(t *testing.T) {
	doc := func(override string) string {
		return xmlDoc(prefix+"root.queues", "p", prefix+"root.p.capacity", "100", prefix+"root.p.queues", "a,b",
			prefix+"root.p.a.capacity", "50", prefix+"root.p.b.capacity", "50",
			"yarn.cluster.max-application-priority", "8",
			prefix+"workflow-priority-mappings", "ETL:root.p.a:3, etl:root.p:5 ,report:root.p.b:9",
			prefix+"workflow-priority-mappings-override.enable", override)
	}
	cfg, err := ParseXML(stringsReader(doc("true")))
	require.NoError(t, err)
	require.Len(t, cfg.WorkflowPriorities, 3)
	assert.Equal(t, WorkflowPriority{WorkflowID: "etl", Queue: "root.p.a", Priority: 3}, cfg.WorkflowPriorities[0])
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	for _, c := range []struct {
		id, queue string
		tags      []string
		want      int32
	}{
		{"a1", "a", []string{"workflowid:etl"}, 3},
		{"b1", "b", []string{"WorkflowID:etl"}, 0}, // the prefix is case-sensitive: no workflow
		{"b2", "b", []string{"workflowid:ETL"}, 5}, // the nearest mapping above b
		{"b3", "b", []string{"workflowid:report"}, 8},
		{"b4", "b", []string{"x", "workflowid:nope"}, 0},
	} {
		_, err := s.SubmitApp(AppSpec{ID: c.id, Queue: c.queue, User: "u", Tags: c.tags})
		require.NoError(t, err)
		assert.Equal(t, c.want, appPriorityOf(t, s, c.id), c.id)
	}
	cfg, err = ParseXML(stringsReader(doc("false")))
	require.NoError(t, err)
	cfg.Clock = berth.NewManualClock(0)
	s, err = New(cfg)
	require.NoError(t, err)
	_, err = s.SubmitApp(AppSpec{ID: "x", Queue: "a", User: "u", Tags: []string{"workflowid:etl"}})
	require.NoError(t, err)
	assert.Equal(t, int32(0), appPriorityOf(t, s, "x"), "override off: the mappings are not used")

	_, err = ParseXML(stringsReader(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100",
		prefix+"workflow-priority-mappings", "etl:root.a")))
	assertFieldError(t, err, prefix+"workflow-priority-mappings")
}
