package scenario

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

func one(f *File) []File { return []File{*f} }

func siteFile(props ...[2]string) *File {
	var b strings.Builder
	b.WriteString("<configuration>")
	for _, p := range props {
		b.WriteString("<property><name>" + p[0] + "</name><value>" + p[1] + "</value></property>")
	}
	b.WriteString("</configuration>")
	return &File{Name: "my-site.xml", Data: []byte(b.String())}
}

// TestSiteReportKinds: each kind of site key is reported as such, with
// what the simulator does instead or the closest known key; keys outside
// the simulator's namespaces are not reported.
func TestSiteReportKinds(t *testing.T) {
	cases := []struct {
		key        string
		kind       queue.NoteKind
		reported   bool
		suggestion string
		instead    string // a part of Instead
	}{
		{key: KeyNMMemory},
		{key: KeyReservationEnable},
		{key: "yarn.sls.nm.memroy.mb", reported: true, kind: queue.NoteUnknown, suggestion: KeyNMMemory},
		{key: "yarn.sls.nm.heartbeat.intreval.ms", reported: true, kind: queue.NoteUnknown, suggestion: KeyNMHeartbeat},
		{key: "yarn.resourcemanager.scheduler.monitor.enabel", reported: true, kind: queue.NoteUnknown, suggestion: KeyMonitorEnable},
		{key: "yarn.resourcemanager.reservation-system.enabled", reported: true, kind: queue.NoteUnknown, suggestion: KeyReservationEnable},
		{key: "yarn.scheduler.fair.preemtion", reported: true, kind: queue.NoteUnknown, suggestion: "yarn.scheduler.fair.preemption"},
		{key: "yarn.sls.something.else.entirely", reported: true, kind: queue.NoteUnknown},
		{key: "yarn.sls.runner.pool.size", reported: true, kind: queue.NoteNotModelled, instead: "discrete-event loop"},
		{key: "yarn.sls.metrics.web.address.port", reported: true, kind: queue.NoteNotModelled, instead: "--output-dir"},
		{key: "yarn.sls.am.heartbeat.interval.ms", reported: true, kind: queue.NoteNotModelled, instead: KeyNMHeartbeat},
		{key: "yarn.sls.am.type.mapreduce", reported: false}, // read: it maps am.type to an AM
		{key: "yarn.scheduler.minimum-allocation-mb", reported: true, kind: queue.NoteNotModelled, instead: "--scheduler-conf"},
		{key: "yarn.scheduler.capacity.root.queues", reported: true, kind: queue.NoteNotModelled, instead: "--scheduler-conf"},
		{key: "yarn.nodemanager.resource.memory-mb", reported: true, kind: queue.NoteNotModelled, instead: KeyNMMemory},
		{key: "yarn.scheduler.fair.preemption", reported: true, kind: queue.NoteElsewhere, instead: "ParseFairConfig"},
		{key: "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms", reported: true, kind: queue.NoteElsewhere, instead: "ParseFairConfig"},
		{key: KeyPreemptInterval, reported: true, kind: queue.NoteElsewhere, instead: "ParseProportionalProperties"},
		// Below yarn.scheduler.capacity., yet package preempt reads them.
		{key: "yarn.scheduler.capacity.ordering-policy.priority-utilization.underutilized-preemption.enabled", reported: true, kind: queue.NoteElsewhere, instead: "ParseProportionalProperties"},
		{key: "yarn.scheduler.capacity.root.a.b.disable_preemption", reported: true, kind: queue.NoteElsewhere, instead: "ParseProportionalProperties"},
		// Not the simulator's business.
		{key: "fs.defaultFS"},
		{key: "hadoop.security.authentication"},
		{key: "yarn.nodemanager.aux-services"},
		{key: "yarn.timeline-service.enabled"},
	}
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			f := siteFile([2]string{c.key, "1"})
			s, err := ParseSite(f.Data, f.Name)
			require.NoError(t, err)
			rep := SiteReport(s)
			if !c.reported {
				assert.Empty(t, rep.Notes)
				return
			}
			require.Len(t, rep.Notes, 1)
			n := rep.Notes[0]
			assert.Equal(t, c.kind, n.Kind)
			assert.Equal(t, c.key, n.Key)
			assert.Equal(t, "1", n.Value)
			assert.Equal(t, c.suggestion, n.Suggestion)
			if c.kind != queue.NoteUnknown {
				assert.Contains(t, n.Instead, c.instead)
			}
		})
	}
}

// TestSLSSampleKeys: the keys of SLS's own sls-runner.xml and sample
// yarn-site.xml are all known: each is modelled, read by package preempt
// or reported as not modelled, never as unknown.
func TestSLSSampleKeys(t *testing.T) {
	keys := []string{
		"yarn.sls.runner.pool.size", "yarn.sls.nm.memory.mb", "yarn.sls.nm.vcores", "yarn.sls.nm.heartbeat.interval.ms",
		"yarn.sls.am.heartbeat.interval.ms", "yarn.sls.am.type.mapreduce", "yarn.sls.am.type.stream",
		"yarn.sls.container.memory.mb", "yarn.sls.container.vcores", "yarn.sls.metrics.switch", "yarn.sls.metrics.web.address.port",
		"org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler",
		"org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler",
		"org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler",
		"yarn.resourcemanager.scheduler.class", "yarn.resourcemanager.webapp.address", "yarn.resourcemanager.resource-tracker.address",
		"yarn.resourcemanager.scheduler.address", "yarn.resourcemanager.address", "yarn.resourcemanager.admin.address",
		"hadoop.security.token.service.use_ip", "yarn.scheduler.capacity.maximum-applications",
		"yarn.scheduler.fair.preemption", "yarn.scheduler.fair.assignmultiple",
	}
	s := &Site{File: "sls", Values: map[string]string{}}
	for _, k := range keys {
		s.Values[k] = "x"
	}
	rep := SiteReport(s)
	assert.Empty(t, rep.Of(queue.NoteUnknown), "%s", rep)
	for _, n := range rep.Of(queue.NoteNotModelled) {
		assert.NotEmpty(t, n.Instead, n.Key)
	}
	// Everything but the eight keys the simulator reads (two of them the
	// AM types, one the scheduler's class), the one package preempt reads
	// and the five outside its namespaces.
	assert.Len(t, rep.Of(queue.NoteNotModelled), len(keys)-8-1-5, "%s", rep)
	assert.Len(t, rep.Of(queue.NoteElsewhere), 1)
	for _, n := range rep.Notes {
		assert.NotContains(t, []string{"yarn.resourcemanager.webapp.address", "yarn.resourcemanager.resource-tracker.address",
			"yarn.resourcemanager.address", "yarn.resourcemanager.admin.address", "hadoop.security.token.service.use_ip"}, n.Key)
	}
}

// TestDefaultSiteClean: the shipped default scenario's site file has no
// unknown key and nothing the simulator does not model; what it reports
// is only the keys package preempt reads.
func TestDefaultSiteClean(t *testing.T) {
	for _, sched := range []string{"capacity", "fair"} {
		in := Default(sched)
		in.StrictConfig = true
		sc, err := Load(in)
		require.NoError(t, err, sched)
		assert.True(t, sc.SiteReport.Clean(), "%s: %s", sched, sc.SiteReport)
		assert.Empty(t, sc.SiteReport.Of(queue.NoteUnknown))
		assert.Empty(t, sc.SiteReport.Of(queue.NoteNotModelled))
		for _, n := range sc.SiteReport.Notes {
			assert.Contains(t, n.Instead, "package preempt", n.Key)
		}
	}
}

// TestSiteStrict: a misspelt yarn.sls key is reported (and its value not
// used); strict mode refuses the site file, naming the file and the key,
// with the report in the error.
func TestSiteStrict(t *testing.T) {
	in := Default("capacity")
	in.Sites = one(siteFile([2]string{"yarn.sls.nm.memroy.mb", "65536"}, [2]string{"yarn.sls.runner.pool.size", "100"}))
	sc, err := Load(in)
	require.NoError(t, err)
	assert.Equal(t, int64(10240), sc.Defaults.Node.Memory, "the misspelt key is not read")
	unknown := sc.SiteReport.Of(queue.NoteUnknown)
	require.Len(t, unknown, 1)
	assert.Equal(t, KeyNMMemory, unknown[0].Suggestion)
	notes := sc.ConfigNotes()
	var site []string
	for _, n := range notes {
		if n.File == "my-site.xml" {
			site = append(site, n.Kind+" "+n.Key+" "+n.Detail)
		}
	}
	require.Len(t, site, 2)
	assert.Equal(t, "unknown yarn.sls.nm.memroy.mb did you mean yarn.sls.nm.memory.mb?", site[0])
	assert.True(t, strings.HasPrefix(site[1], "not modelled yarn.sls.runner.pool.size no threads"), site[1])

	in.StrictConfig = true
	_, err = Load(in)
	require.Error(t, err)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	var ie *InputError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "my-site.xml", ie.File)
	var re *queue.ConfigReportError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "my-site.xml", re.File)
	assert.Len(t, re.Report.Notes, 2)
	assert.Contains(t, err.Error(), "my-site.xml")
	assert.Contains(t, err.Error(), "yarn.sls.nm.memroy.mb")
	assert.Contains(t, err.Error(), "did you mean yarn.sls.nm.memory.mb?")

	// A site with only keys package preempt reads passes strict mode.
	in.Sites = one(siteFile([2]string{"yarn.scheduler.fair.preemption", "true"}))
	_, err = Load(in)
	assert.NoError(t, err)
}

// TestSiteKeyTable: every literal of the table is found as itself (no
// earlier rule shadows it), every key the package reads is modelled, and
// every literal the table names is either in the simulator's namespaces
// or deliberately listed outside them.
func TestSiteKeyTable(t *testing.T) {
	for _, lit := range siteKeys.Literals() {
		r, ok := siteKeyRule(lit)
		require.True(t, ok, lit)
		assert.Equal(t, lit, r.Pattern, "%s is shadowed by %s", lit, r.Pattern)
		if r.Support != queue.KeyModelled {
			assert.NotEmpty(t, r.Instead, lit)
		}
	}
	for _, k := range []string{KeyNMHeartbeat, KeyNMMemory, KeyNMVCores, KeyContainerMemory, KeyContainerVCores,
		KeyAMMemory, KeyAMVCores, KeyMetricsInterval, KeyReservationEnable, KeyFollowerStep, KeyMonitorEnable,
		KeyMonitorPolicies, KeyFairUpdateInterval, KeySchedulerClass, KeyFairAllocationFile} {
		r, ok := siteKeyRule(k)
		require.True(t, ok, k)
		assert.Equal(t, queue.KeyModelled, r.Support, k)
	}
}

// TestSiteReportDeterministic: the report depends on the file's content
// only, never on map order.
func TestSiteReportDeterministic(t *testing.T) {
	f := siteFile([2]string{"yarn.sls.b", "1"}, [2]string{"yarn.sls.a", "2"}, [2]string{"yarn.sls.runner.pool.size", "3"},
		[2]string{"yarn.scheduler.fair.preemption", "true"}, [2]string{"yarn.sls.nm.vcorse", "4"})
	s, err := ParseSite(f.Data, f.Name)
	require.NoError(t, err)
	first := SiteReport(s)
	require.Len(t, first.Notes, 5)
	assert.True(t, slices.IsSortedFunc(first.Notes, func(a, b queue.ConfigNote) int { return strings.Compare(a.Key, b.Key) }))
	for range 20 {
		assert.Equal(t, first, SiteReport(s))
	}
	assert.Empty(t, SiteReport(nil).Notes)
}

// FuzzSiteReport: no key panics the report; a key is reported at most
// once, an unknown key is always in the simulator's namespaces, and a
// suggestion is a key the table names.
func FuzzSiteReport(f *testing.F) {
	for _, k := range []string{"yarn.sls.nm.memroy.mb", "fs.defaultFS", "yarn.scheduler.capacity.root.disable_preemption",
		"yarn.sls.am.type.", "yarn.sls.am.type..x", "", ".", "yarn.scheduler.", "yarn.resourcemanager.monitor.capacity.preemption.observe_only"} {
		f.Add(k)
	}
	literals := siteKeys.Literals()
	f.Fuzz(func(t *testing.T, key string) {
		rep := SiteReport(&Site{File: "f", Values: map[string]string{key: "v"}})
		require.LessOrEqual(t, len(rep.Notes), 1)
		for _, n := range rep.Notes {
			assert.Equal(t, key, n.Key)
			if n.Kind == queue.NoteUnknown {
				assert.True(t, ownedKey(key), key)
				if n.Suggestion != "" {
					assert.Contains(t, literals, n.Suggestion)
				}
			}
		}
	})
}
