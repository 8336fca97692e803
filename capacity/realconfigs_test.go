package capacity

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// harmless are keys YARN knows whose meaning cannot change a scheduling
// decision in Berth's model: application.fail-fast only decides whether
// YARN's ResourceManager starts when a recovered application's queue is
// gone, and Berth restores its queues with its applications.
var harmless = []string{prefix + "application.fail-fast"}

// Every capacity-scheduler file of the real inputs loads, builds a
// scheduler with a node of every label it declares that takes a
// submission, and reports no key it does not model that would change a
// decision (node-label keys are modelled); what each file turns on is
// read into the typed configuration.
func TestRealCapacityConfigs(t *testing.T) {
	dir := realInput(t, "configs")
	files, err := filepath.Glob(filepath.Join(dir, "*.xml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	type expect struct {
		// lenient: the file sets ordering-policy fifo or fair on a parent,
		// which YARN 2.9+ refuses; it loads with the YARN 2.8 reading.
		lenient bool
		check   func(t *testing.T, cfg Config)
	}
	want := map[string]expect{
		"acl-hierarchy-blog.xml": {lenient: true},
		"azkaban-zeppelin.xml":   {lenient: true},
		"default-hive-typo.xml": {check: func(t *testing.T, cfg Config) {
			hive := cfg.Root.Children[1]
			assert.Equal(t, int64(-1), hive.Settings.MaxAppLifetime)
			assert.Empty(t, hive.Settings.PriorityACLs, "acl_application_max_priority=* sets no group")
		}},
		"yarn-rest-dump-578-queues.xml": {check: func(t *testing.T, cfg Config) {
			assert.True(t, cfg.Async.Enabled)
			assert.True(t, cfg.NonLegacyQueueMode)
		}},
		"yarn-rest-dump-labels.xml": {check: func(t *testing.T, cfg Config) {
			assert.True(t, cfg.Async.Enabled)
			found := map[string]bool{}
			var walk func(q QueueConfig)
			walk = func(q QueueConfig) {
				st := q.Settings
				if st.MaxParallelApps == 11970 {
					found["max-parallel-apps"] = true
				}
				if st.DefaultAppLifetime == 0 {
					found["default-application-lifetime"] = true
				}
				if st.AutoCreate != nil && !st.AutoCreate.V2 {
					found["auto-create-child-queue"] = true
					assert.Equal(t, queue.Percent(15), st.AutoCreate.Leaf.Capacity)
					assert.Equal(t, queue.Percent(100), st.AutoCreate.Leaf.MaxCapacity)
				}
				for _, c := range q.Children {
					walk(c)
				}
			}
			walk(cfg.Root)
			assert.Equal(t, map[string]bool{"max-parallel-apps": true, "default-application-lifetime": true, "auto-create-child-queue": true}, found)
		}},
	}
	seen := 0
	for _, f := range files {
		name := filepath.Base(f)
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		if !strings.Contains(string(data), prefix+"root.queues") {
			continue // a fair-scheduler allocation file or a yarn-site file (their packages' tests)
		}
		seen++
		t.Run(name, func(t *testing.T) {
			exp := want[name]
			if exp.lenient {
				_, err := ParseXML(strings.NewReader(string(data)))
				var fe *berth.FieldError
				require.ErrorAs(t, err, &fe, "YARN 2.9+ refuses a leaf ordering policy on a parent")
				assert.True(t, strings.HasSuffix(fe.Field, ".ordering-policy"), fe.Field)
			}
			cfg, rep, err := ParseXMLReport(strings.NewReader(string(data)), XMLOptions{IgnoreLeafOrderingOnParents: exp.lenient})
			require.NoError(t, err)
			for _, n := range rep.Of(queue.NoteNotModelled) {
				if slices.Contains(harmless, n.Key) {
					continue
				}
				if exp.lenient && strings.HasSuffix(n.Key, ".ordering-policy") {
					continue
				}
				t.Errorf("not modelled: %s=%s (%s)", n.Key, n.Value, n.Instead)
			}
			if exp.check != nil {
				exp.check(t, cfg)
			}
			cfg.Clock = berth.NewManualClock(0)
			s, err := New(cfg)
			require.NoError(t, err)
			nodes := []NodeSpec{{ID: "n1", Rack: "/r", Capability: berth.New(64*gb, 64)}}
			for i, l := range cfg.NodeLabels {
				nodes = append(nodes, NodeSpec{ID: fmt.Sprint("l", i), Rack: "/r", Capability: berth.New(64*gb, 64), Label: l.Name})
			}
			require.NoError(t, s.AddNodes(nodes...))
			leaf, acl := firstLeaf(cfg.Root, "root", nil)
			user, groups := "yarn", []string{}
			if acl != nil && !acl.AllowsEveryone() {
				// A user the leaf's own ACL names (the root's is "*" unless set).
				if us := acl.Users(); len(us) > 0 {
					user = us[0]
				}
				groups = acl.Groups()
			}
			_, err = s.SubmitApp(AppSpec{ID: "probe", Queue: leaf, User: user, Groups: groups, AMResource: berth.New(gb, 1)})
			require.NoError(t, err, "submitting to %s", leaf)
			_, err = s.Allocate("probe", []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(gb, 1), Count: 2}}, nil)
			require.NoError(t, err)
			if cfg.Async.Enabled {
				_, err = s.ScheduleRound()
			} else {
				for _, n := range nodes {
					if _, err = s.Heartbeat(n.ID, nil); err != nil {
						break
					}
				}
			}
			require.NoError(t, err)
			require.NoError(t, s.Check())
			assert.NotEmpty(t, s.Snapshot().Containers, "the probe's AM runs")
		})
	}
	assert.Equal(t, 16, seen, "the README's 16 capacity-scheduler files")
}

// firstLeaf is the path of the first leaf that accepts submissions (not
// a managed parent), depth first, with the nearest submit ACL set on it
// or above.
func firstLeaf(q QueueConfig, path string, acl *queue.ACL) (string, *queue.ACL) {
	if q.SubmitACL != nil {
		acl = q.SubmitACL
	}
	if len(q.Children) == 0 && q.Settings.AutoCreate == nil && !q.Reservable && q.State != queue.StateStopped {
		return path, acl
	}
	for _, c := range q.Children {
		if p, a := firstLeaf(c, path+"."+c.Name, acl); p != "" {
			return p, a
		}
	}
	return "", nil
}
