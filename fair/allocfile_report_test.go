package fair

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A file that uses every element YARN reads reports nothing.
func TestAllocationReportOfFullFile(t *testing.T) {
	body := e01[len(`<?xml version="1.0"?>`+"\n<allocations>") : len(e01)-len("</allocations>")]
	doc := allocXML(body + `<queuePlacementPolicy><rule name="specified" create="false"/>
		<rule name="nestedUserQueue"><rule name="primaryGroup" create="false"/></rule><rule name="default" queue="a"/></queuePlacementPolicy>
		<reservation-agent>x</reservation-agent><reservation-policy>y</reservation-policy><reservation-planner>z</reservation-planner>`)
	af, rep, err := ParseAllocationFileReport([]byte(doc), ParseOptions{ResourceTypes: []string{"a-custom-resource"}, Strict: true})
	require.NoError(t, err)
	require.NotNil(t, af)
	assert.Empty(t, rep.Notes, rep.String())
	// Every element is listed as read, the reservation settings included.
	for key, v := range map[string]string{"allocations.reservation-agent": "x", "allocations.reservation-policy": "y",
		"allocations.reservation-planner": "z", "queue[root.queueB].schedulingPolicy": "fair",
		"allocations.userMaxAppsDefault": "5"} {
		got, ok := rep.ReadValue(key)
		assert.True(t, ok, key)
		assert.Equal(t, v, got, key)
	}
	for _, n := range rep.Read {
		assert.Equal(t, queue.NoteRead, n.Kind)
	}
	// A reservable queue's <reservation/> is read as an element.
	_, rep, err = ParseAllocationFileReport([]byte(allocXML(`<queue name="plan"><reservation/></queue>`)), ParseOptions{})
	require.NoError(t, err)
	_, ok := rep.ReadValue("queue[root.plan].reservation")
	assert.True(t, ok)
}

// Elements and attributes YARN ignores are reported with where they sit
// and the name they were probably meant to be.
func TestAllocationReportUnknown(t *testing.T) {
	doc := allocXML(`
		<queue name="a" typ="parent"><wieght>2</wieght><maxRunningApps>3</maxRunningApps>
			<queue name="b"><minResource>1024 mb, 1 vcores</minResource></queue></queue>
		<user name="bob"><maxRunningApp>2</maxRunningApp></user>
		<userMaxAppDefault>4</userMaxAppDefault>
		<somethingElse>1</somethingElse>
		<queuePlacementPolicy><rule name="user" create="false" craete="false"/><rul name="x"/><rule name="default"/></queuePlacementPolicy>`)
	af, rep, err := ParseAllocationFileReport([]byte(doc), ParseOptions{})
	require.NoError(t, err)
	require.NotNil(t, af)
	w := af.Settings("root.a").Weight
	assert.Equal(t, float32(1), w, "the misspelt weight is not read")
	want := map[string]string{
		"queue[root.a].@typ":                   "queue[root.a].@type",
		"queue[root.a].wieght":                 "queue[root.a].weight",
		"queue[root.a.b].minResource":          "queue[root.a.b].minResources",
		"user[bob].maxRunningApp":              "user[bob].maxRunningApps",
		"allocations.userMaxAppDefault":        "allocations.userMaxAppsDefault",
		"allocations.somethingElse":            "",
		"queuePlacementPolicy.rule[1].@craete": "queuePlacementPolicy.rule[1].@create",
		"queuePlacementPolicy.rul":             "queuePlacementPolicy.rule",
	}
	got := map[string]string{}
	for _, n := range rep.Notes {
		assert.Equal(t, queue.NoteUnknown, n.Kind, n.Key)
		got[n.Key] = n.Suggestion
	}
	assert.Equal(t, want, got)

	_, rep2, err := ParseAllocationFileReport([]byte(doc), ParseOptions{Strict: true})
	require.Error(t, err)
	assert.True(t, errors.Is(err, berth.ErrInvalidArgument))
	var re *queue.ConfigReportError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, rep, rep2)
	assert.Equal(t, "fair-scheduler.xml", re.File)
	_, err = ParseAllocationFile([]byte(doc), ParseOptions{Strict: true})
	assert.ErrorAs(t, err, &re)
	_, err = ParseAllocationFile([]byte(doc), ParseOptions{})
	assert.NoError(t, err)
}

// Negative weights, counts and timeouts are refused with the field named;
// -1 for maxAMShare (YARN's "no AM limit") and thresholds (clamped to 0,
// as YARN does) keep their meaning.
func TestAllocationNegativeValues(t *testing.T) {
	refused := []struct{ body, field string }{
		{`<queue name="a"><weight>-1</weight></queue>`, "queue[root.a].weight"},
		{`<queue name="a"><weight>NaN</weight></queue>`, "queue[root.a].weight"},
		{`<queue name="a"><maxRunningApps>-1</maxRunningApps></queue>`, "queue[root.a].maxRunningApps"},
		{`<queue name="a"><maxAMShare>-0.5</maxAMShare></queue>`, "queue[root.a].maxAMShare"},
		{`<queue name="a"><minSharePreemptionTimeout>-1</minSharePreemptionTimeout></queue>`, "queue[root.a].minSharePreemptionTimeout"},
		{`<queue name="a"><fairSharePreemptionTimeout>-5</fairSharePreemptionTimeout></queue>`, "queue[root.a].fairSharePreemptionTimeout"},
		{`<queue name="a"><minResources>-1024 mb, 1 vcores</minResources></queue>`, "queue[root.a].minResources"},
		{`<queue name="a"><maxResources>memory-mb=-1, vcores=1</maxResources></queue>`, "queue[root.a].maxResources"},
		{`<queue name="a"><maxChildResources>-5%</maxChildResources></queue>`, "queue[root.a].maxChildResources"},
		{`<user name="bob"><maxRunningApps>-2</maxRunningApps></user>`, "user[bob].maxRunningApps"},
		{`<userMaxAppsDefault>-1</userMaxAppsDefault>`, "userMaxAppsDefault"},
		{`<queueMaxAppsDefault>-1</queueMaxAppsDefault>`, "queueMaxAppsDefault"},
		{`<queueMaxAMShareDefault>-2</queueMaxAMShareDefault>`, "queueMaxAMShareDefault"},
		{`<queueMaxResourcesDefault>-1 mb, 1 vcores</queueMaxResourcesDefault>`, "queueMaxResourcesDefault"},
		{`<defaultMinSharePreemptionTimeout>-1</defaultMinSharePreemptionTimeout>`, "defaultMinSharePreemptionTimeout"},
		{`<defaultFairSharePreemptionTimeout>-1</defaultFairSharePreemptionTimeout>`, "defaultFairSharePreemptionTimeout"},
		{`<fairSharePreemptionTimeout>-1</fairSharePreemptionTimeout>`, "fairSharePreemptionTimeout"},
	}
	for _, c := range refused {
		t.Run(c.field, func(t *testing.T) {
			af, err := ParseAllocationFile([]byte(allocXML(c.body)), ParseOptions{})
			assert.Nil(t, af)
			var fe *berth.FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, c.field, fe.Field)
			assert.ErrorIs(t, err, berth.ErrInvalidArgument)
		})
	}
	af, err := ParseAllocationFile([]byte(allocXML(`<queue name="a"><maxAMShare>-1</maxAMShare><weight>0</weight>
		<fairSharePreemptionThreshold>-0.5</fairSharePreemptionThreshold><maxRunningApps>0</maxRunningApps></queue>
		<queueMaxAMShareDefault>-1.0</queueMaxAMShareDefault>`)), ParseOptions{})
	require.NoError(t, err)
	st := af.Settings("root.a")
	assert.Equal(t, float32(-1), st.MaxAMShare)
	assert.Equal(t, float32(0), st.Weight)
	assert.Equal(t, float32(0), st.FairSharePreemptionThreshold)
	assert.Equal(t, 0, st.MaxRunningApps)
	assert.Equal(t, float32(-1), af.QueueMaxAMShareDefault)
}

// TestAllocDecodersMatchKnownElements keeps the decoder tables and the
// names the report suggests from in step: an element with a decoder but
// missing from the list would never be suggested, one listed without a
// decoder would be reported unknown.
func TestAllocDecodersMatchKnownElements(t *testing.T) {
	tables := []struct {
		name   string
		known  []string
		decode []string
	}{
		{"allocations", allocElements, slices.Collect(maps.Keys(allocDecoders))},
		{"queue", queueElements, append(slices.Collect(maps.Keys(queueDecoders)), "queue", "pool")},
	}
	for _, tc := range tables {
		assert.ElementsMatch(t, tc.known, tc.decode, tc.name)
	}
}
