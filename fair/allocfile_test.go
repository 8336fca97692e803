package fair

import (
	"errors"
	"math"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const e01 = `<?xml version="1.0"?>
<allocations>
  <queue name="queueA"><minResources>1024mb,0vcores</minResources><maxResources>2048mb,10vcores</maxResources></queue>
  <queue name="queueB"><minResources>2048mb,0vcores</minResources><maxResources>5120mb,110vcores</maxResources>
    <aclAdministerApps>alice,bob admins</aclAdministerApps><schedulingPolicy>fair</schedulingPolicy></queue>
  <queue name="queueC"><minResources>5120mb,0vcores</minResources><aclSubmitApps>alice,bob admins</aclSubmitApps></queue>
  <queue name="queueD"><maxRunningApps>3</maxRunningApps><maxAMShare>0.4</maxAMShare></queue>
  <queue name="queueE"><minSharePreemptionTimeout>60</minSharePreemptionTimeout></queue>
  <queue name="queueF" type="parent"><maxChildResources>2048mb,64vcores</maxChildResources></queue>
  <queue name="queueG"><maxChildResources>2048mb,64vcores</maxChildResources>
    <fairSharePreemptionTimeout>120</fairSharePreemptionTimeout><minSharePreemptionTimeout>50</minSharePreemptionTimeout>
    <fairSharePreemptionThreshold>0.6</fairSharePreemptionThreshold>
    <maxContainerAllocation>vcores=16, memory-mb=512, a-custom-resource=10</maxContainerAllocation>
    <queue name="queueH"><fairSharePreemptionTimeout>180</fairSharePreemptionTimeout><minSharePreemptionTimeout>40</minSharePreemptionTimeout>
      <fairSharePreemptionThreshold>0.7</fairSharePreemptionThreshold><maxContainerAllocation>1024mb,8vcores</maxContainerAllocation></queue>
  </queue>
  <queueMaxAppsDefault>15</queueMaxAppsDefault>
  <queueMaxResourcesDefault>4096mb,100vcores</queueMaxResourcesDefault>
  <userMaxAppsDefault>5</userMaxAppsDefault>
  <queueMaxAMShareDefault>0.5</queueMaxAMShareDefault>
  <defaultMinSharePreemptionTimeout>120</defaultMinSharePreemptionTimeout>
  <defaultFairSharePreemptionTimeout>300</defaultFairSharePreemptionTimeout>
  <defaultFairSharePreemptionThreshold>0.4</defaultFairSharePreemptionThreshold>
  <defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
  <user name="user1"><maxRunningApps>10</maxRunningApps></user>
</allocations>`

// E-01: every element of the allocation file.
func TestAllocationFileParsing(t *testing.T) {
	af, err := ParseAllocationFile([]byte(e01), ParseOptions{ResourceTypes: []string{"a-custom-resource"}})
	require.NoError(t, err)
	cfg := DefaultConfig()
	cfg.ResourceTypes = []string{"a-custom-resource"}
	cfg.Allocation = af
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	sn := s.Snapshot()
	var leaves, parents []string
	for _, q := range sn.Queues {
		if q.Leaf && !q.Dynamic && q.Path != "root.default" {
			leaves = append(leaves, q.Path)
		} else if !q.Leaf && q.Path != "root" {
			parents = append(parents, q.Path)
		}
	}
	assert.Len(t, leaves, 6)
	assert.ElementsMatch(t, []string{"root.queueF", "root.queueG"}, parents)

	set := func(p string) QueueSettings { return af.Settings(p) }
	assert.True(t, set("root.default").MinResources.IsZero())
	assert.True(t, set("root.queueA").MinResources.Equal(berth.New(1024, 0)))
	assert.True(t, set("root.queueB").MinResources.Equal(berth.New(2048, 0)))
	assert.True(t, set("root.queueC").MinResources.Equal(berth.New(5120, 0)))
	abs := func(c ConfigurableResource) berth.Resource { r, ok := c.Absolute(); require.True(t, ok); return r }
	assert.True(t, abs(set("root.queueA").MaxResources).Equal(berth.New(2048, 10)))
	assert.True(t, abs(set("root.queueB").MaxResources).Equal(berth.New(5120, 110)))
	for _, p := range []string{"root.queueC", "root.queueD", "root.queueG.queueH"} {
		assert.True(t, abs(set(p).MaxResources).Equal(berth.New(4096, 100)), p)
	}
	require.NotNil(t, set("root.queueF").MaxChildResources)
	assert.True(t, abs(*set("root.queueF").MaxChildResources).Equal(berth.New(2048, 64)))
	assert.Nil(t, set("root.queueA").MaxChildResources)
	for p, want := range map[string]int{"root.default": 15, "root.queueA": 15, "root.queueD": 3, "root.queueE": 15} {
		assert.Equal(t, want, set(p).MaxRunningApps, p)
	}
	assert.Equal(t, 10, af.UserMaxRunningApps("user1"))
	assert.Equal(t, 5, af.UserMaxRunningApps("user2"))
	assert.Equal(t, float32(0.4), set("root.queueD").MaxAMShare)
	assert.Equal(t, float32(0.5), set("root.queueA").MaxAMShare)
	assert.Nil(t, set("root.queueA").MaxContainerAllocation)
	assert.True(t, set("root.queueG").MaxContainerAllocation.Equal(berth.NewWithExtras(512, 16, berth.Quantity{Name: "a-custom-resource", Value: 10})))
	assert.True(t, set("root.queueG.queueH").MaxContainerAllocation.Equal(berth.New(1024, 8)))
	assert.Equal(t, berth.Duration(120000), set("root").MinSharePreemptionTimeout)
	assert.Equal(t, berth.Duration(Inherit), set("root.queueA").MinSharePreemptionTimeout)
	assert.Equal(t, berth.Duration(60000), set("root.queueE").MinSharePreemptionTimeout)
	assert.Equal(t, berth.Duration(50000), set("root.queueG").MinSharePreemptionTimeout)
	assert.Equal(t, berth.Duration(40000), set("root.queueG.queueH").MinSharePreemptionTimeout)
	assert.Equal(t, berth.Duration(300000), set("root").FairSharePreemptionTimeout)
	assert.Equal(t, berth.Duration(Inherit), set("root.queueF").FairSharePreemptionTimeout)
	assert.Equal(t, berth.Duration(120000), set("root.queueG").FairSharePreemptionTimeout)
	assert.Equal(t, berth.Duration(180000), set("root.queueG.queueH").FairSharePreemptionTimeout)
	assert.Equal(t, float32(0.4), set("root").FairSharePreemptionThreshold)
	assert.Equal(t, float32(Inherit), set("root.queueA").FairSharePreemptionThreshold)
	assert.Equal(t, float32(0.6), set("root.queueG").FairSharePreemptionThreshold)
	assert.Equal(t, float32(0.7), set("root.queueG.queueH").FairSharePreemptionThreshold)
	assert.Equal(t, PolicyDRF, set("root").Policy)
	assert.Equal(t, PolicyDRF, set("root.queueA").Policy)
	assert.Equal(t, PolicyFair, set("root.queueB").Policy)
	assert.Equal(t, PolicyDRF, set("root.newqueue").Policy)
	assert.True(t, set("root.queueC").SubmitACL.Allows("alice", nil))
	assert.True(t, set("root.queueC").SubmitACL.Allows("zed", []string{"admins"}))
	assert.False(t, set("root.queueC").SubmitACL.Allows("zed", nil))
	assert.True(t, set("root.queueB").AdministerACL.Allows("bob", nil))
	// inheritance in the scheduler: queueA inherits root's timeouts
	qa := sn.Queue("root.queueA")
	assert.Equal(t, berth.Duration(120000), qa.MinSharePreemptionTimeout)
	assert.Equal(t, float32(0.4), qa.FairSharePreemptionThreshold)
	assert.Equal(t, berth.Duration(40000), sn.Queue("root.queueG.queueH").MinSharePreemptionTimeout)
}

// E-02: <pool> tags and legacy elements.
func TestBackwardsCompatibleAllocationFile(t *testing.T) {
	af, err := ParseAllocationFile([]byte(allocXML(`
<pool name="queueA"><minResources>1024mb,0vcores</minResources></pool>
<pool name="queueB"><minResources>2048mb,0vcores</minResources><aclAdministerApps>alice,bob admins</aclAdministerApps></pool>
<pool name="queueC"><aclAdministerApps>alice,bob admins</aclAdministerApps></pool>
<pool name="queueD"><maxRunningApps>3</maxRunningApps></pool>
<pool name="queueE"><minSharePreemptionTimeout>60</minSharePreemptionTimeout><fairSharePreemptionThreshold>0.3</fairSharePreemptionThreshold></pool>
<queueMaxAppsDefault>15</queueMaxAppsDefault><userMaxAppsDefault>5</userMaxAppsDefault>
<queueMaxResourcesDefault>4096mb,100vcores</queueMaxResourcesDefault><queueMaxAMShareDefault>0.5</queueMaxAMShareDefault>
<defaultMinSharePreemptionTimeout>120</defaultMinSharePreemptionTimeout><fairSharePreemptionTimeout>300</fairSharePreemptionTimeout>
<defaultFairSharePreemptionThreshold>0.6</defaultFairSharePreemptionThreshold><defaultQueueSchedulingMode>drf</defaultQueueSchedulingMode>
<user name="user1"><maxRunningApps>10</maxRunningApps></user>`)), ParseOptions{})
	require.NoError(t, err)
	assert.Len(t, af.Root.Children, 5)
	assert.True(t, af.Settings("root.queueA").MinResources.Equal(berth.New(1024, 0)))
	assert.True(t, af.Settings("root.queueC").MinResources.IsZero())
	assert.Equal(t, 3, af.Settings("root.queueD").MaxRunningApps)
	assert.Equal(t, 15, af.Settings("root.queueE").MaxRunningApps)
	assert.Equal(t, 10, af.UserMaxRunningApps("user1"))
	assert.Equal(t, berth.Duration(300000), af.Settings("root").FairSharePreemptionTimeout)
	assert.Equal(t, berth.Duration(60000), af.Settings("root.queueE").MinSharePreemptionTimeout)
	assert.Equal(t, float32(0.6), af.Settings("root").FairSharePreemptionThreshold)
	assert.Equal(t, float32(0.3), af.Settings("root.queueE").FairSharePreemptionThreshold)
	assert.Equal(t, PolicyDRF, af.DefaultPolicy)
}

// E-03..E-14 and other rejected files: each error names its element.
func TestAllocationFileErrors(t *testing.T) {
	for _, tc := range []struct{ name, xml, field, msg string }{
		{"E-03", allocXML(`<queue name="root"/><queue name="other"/>`), "queue[root]", "no other queues can be placed alongside it"},
		{"E-04", allocXML(`<queue name="parent1.child"/>`), "queue[root].queue.name", "shouldn't contain period"},
		{"E-05", allocXML(`<queue name="      "/>`), "queue[root].queue.name", "shouldn't be empty"},
		{"E-06", allocXML("<queue name=\"\u00a0\"/>"), "queue[root].queue.name", "shouldn't be empty"},
		{"E-07", allocXML(`<defaultQueueSchedulingPolicy>fifo</defaultQueueSchedulingPolicy>`), "defaultQueueSchedulingPolicy", "can't be FIFO"},
		{"E-08", allocXML(`<queue name="parent" type="parent"><reservation/></queue>`), "queue[root.parent].reservation",
			"The configuration settings for root.parent are invalid. A queue element that contains child queue elements or that has the type='parent' attribute cannot also include a reservation element."},
		{"E-09", allocXML(`<queue name="parent"><queue name="child"/><reservation/></queue>`), "queue[root.parent].reservation", "cannot also include a reservation element."},
		{"E-10", allocXML(`<queue name="parent" type="parent"><maxAMShare>0.75</maxAMShare></queue>`), "queue[root.parent].maxAMShare", "cannot also include a maxAMShare element."},
		{"E-11", allocXML(`<queue name="parent"><queue name="child"/><maxAMShare>0.76</maxAMShare></queue>`), "queue[root.parent].maxAMShare", "cannot also include a maxAMShare element."},
		{"E-14", allocXML(`<queue name="q" type="parent"><reservation/></queue>`), "queue[root.q].reservation", "reservation element"},
		{"top", `<foo/>`, "foo", "top-level element not <allocations>"},
		{"weight", allocXML(`<queue name="a"><weight>heavy</weight></queue>`), "queue[root.a].weight", "finite number"},
		{"minResources", allocXML(`<queue name="a"><minResources>1024</minResources></queue>`), "queue[root.a].minResources", "Cannot parse resource values"},
		{"maxRunningApps", allocXML(`<queue name="a"><maxRunningApps>x</maxRunningApps></queue>`), "queue[root.a].maxRunningApps", "integer"},
		{"policy", allocXML(`<queue name="a"><schedulingPolicy>com.x.Y</schedulingPolicy></queue>`), "queue[root.a].schedulingPolicy", "com.x.Y SchedulingPolicy class not found!"},
		{"timeout", allocXML(`<defaultMinSharePreemptionTimeout>9223372036854775807</defaultMinSharePreemptionTimeout>`), "defaultMinSharePreemptionTimeout", "overflows"},
		{"user", allocXML(`<user name="u"><maxRunningApps>many</maxRunningApps></user>`), "user[u].maxRunningApps", "integer"},
		{"xml", `<allocations><queue name="a">`, "allocations", "malformed XML"},
		{"empty placement", allocXML(`<queuePlacementPolicy/>`), "queuePlacementPolicy", "Empty configuration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			af, err := ParseAllocationFile([]byte(tc.xml), ParseOptions{})
			require.Error(t, err)
			assert.Nil(t, af)
			assert.ErrorIs(t, err, berth.ErrInvalidArgument)
			var fe *berth.FieldError
			require.True(t, errors.As(err, &fe))
			assert.Equal(t, tc.field, fe.Field)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

// E-12, E-13 and other accepted shapes.
func TestAllocationFileShapes(t *testing.T) {
	af, err := ParseAllocationFile([]byte(allocXML(`<queue name="parent" type="parent"><queue name="child"/></queue>
<queue name="reservable"><reservation/></queue><queue name="other"/>
<reservation-agent>DummyAgentName</reservation-agent><reservation-policy>AnyAdmissionPolicy</reservation-policy>`)), ParseOptions{})
	require.NoError(t, err)
	cfg := DefaultConfig()
	cfg.Allocation = af
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	sn := s.Snapshot()
	assert.False(t, sn.Queue("root.parent").Leaf)
	assert.True(t, sn.Queue("root.parent.child").Leaf)
	assert.True(t, sn.Queue("root.reservable").Plan)
	assert.False(t, sn.Queue("root.reservable").Leaf)
	assert.False(t, sn.Queue("root.other").Plan)
	// E-13: the named agent and policy over YARN's other defaults.
	want := queue.DefaultReservationSettings()
	want.Agent, want.Policy = "DummyAgentName", "AnyAdmissionPolicy"
	require.NotNil(t, af.Reservation)
	assert.Equal(t, want, *af.Reservation)
	assert.Equal(t, []string{"root.reservable"}, s.PlanQueues())

	// a lone <queue name="root"> configures root itself
	af, err = ParseAllocationFile([]byte(allocXML(`<queue name="root"><aclSubmitApps>alice</aclSubmitApps><queue name="a"><weight>2.5</weight></queue></queue>`)), ParseOptions{})
	require.NoError(t, err)
	assert.False(t, af.Settings("root").SubmitACL.Allows("bob", nil))
	assert.Equal(t, float32(2.5), af.Settings("root.a").Weight)
	// clamps
	af, err = ParseAllocationFile([]byte(allocXML(`<queueMaxAMShareDefault>3</queueMaxAMShareDefault><defaultFairSharePreemptionThreshold>7</defaultFairSharePreemptionThreshold>
<queue name="a"><maxAMShare>-1</maxAMShare><fairSharePreemptionThreshold>-2</fairSharePreemptionThreshold><allowPreemptionFrom>false</allowPreemptionFrom></queue>`)), ParseOptions{})
	require.NoError(t, err)
	assert.Equal(t, float32(1), af.QueueMaxAMShareDefault)
	assert.Equal(t, float32(1), af.DefaultFairSharePreemptionThreshold)
	assert.Equal(t, float32(-1), af.Settings("root.a").MaxAMShare)
	assert.Equal(t, float32(0), af.Settings("root.a").FairSharePreemptionThreshold)
	assert.False(t, af.Settings("root.a").AllowPreemptionFrom)
	assert.Equal(t, math.MaxInt32, DefaultAllocationFile().QueueMaxAppsDefault)
}

func FuzzParseAllocationFile(f *testing.F) {
	for _, s := range []string{e01, allocXML(hierXML), allocXML(`<queuePlacementPolicy><rule name="nestedUserQueue"><rule name="primaryGroup"/></rule><rule name="default"/></queuePlacementPolicy>`),
		allocXML(`<queue name="root"><queue name="a"><maxResources>50%</maxResources></queue></queue>`), `<allocations/>`, `<x/>`, ``,
		allocXML(`<queue name="a" type="parent"><reservation/></queue>`), allocXML(`<user name="u"><maxRunningApps>1</maxRunningApps></user>`)} {
		f.Add(s)
	}
	f.Add(allocXML(`<queue name="a" tpye="parent"><wieght>2</wieght></queue><userMaxAppDefault>1</userMaxAppDefault>`))
	f.Fuzz(func(t *testing.T, data string) {
		af, rep, err := ParseAllocationFileReport([]byte(data), ParseOptions{ResourceTypes: []string{"gpu"}})
		if err == nil {
			// Strict mode refuses exactly the files with something to report.
			_, serr := ParseAllocationFile([]byte(data), ParseOptions{ResourceTypes: []string{"gpu"}, Strict: true})
			if (serr == nil) != rep.Clean() {
				t.Fatalf("strict mode (%v) disagrees with the report %v", serr, rep)
			}
		}
		if err != nil {
			var fe *berth.FieldError
			if !errors.As(err, &fe) || fe.Field == "" {
				t.Fatalf("error names no element: %v", err)
			}
			if af != nil {
				t.Fatal("a failed parse returned a file")
			}
			return
		}
		cfg := DefaultConfig()
		cfg.ResourceTypes = []string{"gpu"}
		cfg.Allocation = af
		cfg.Clock = berth.NewManualClock(0)
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AddNode(NodeSpec{ID: "n", Capability: berth.New(8192, 8)}); err != nil {
			t.Fatal(err)
		}
		s.Update()
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
	})
}
