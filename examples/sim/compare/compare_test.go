package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/sim/report"
	"github.com/berthsched/berth/examples/sim/scenario"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const capacityXML = `<configuration>
  <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>
  <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>60</value></property>
  <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>40</value></property>
</configuration>`

const fairXML = `<allocations>
  <queue name="a"><weight>3</weight></queue>
  <queue name="b"><weight>2</weight><maxResources>8192 mb, 8 vcores</maxResources></queue>
</allocations>`

// jobs: a keeps the two nodes busy; b's job arrives behind it.
const slsJobs = `{"job.id": "a1", "job.queue.name": "a", "job.start.ms": 0,
 "job.tasks": [{"count": 30, "container.host": "/r1/n1", "duration.ms": 20000}, {"count": 10, "container.host": "/r1/n2", "duration.ms": 20000}]}
{"job.id": "b1", "job.queue.name": "b", "job.start.ms": 5000, "job.tasks": [{"count": 8, "duration.ms": 15000}]}
{"job.id": "b2", "job.queue.name": "b", "job.start.ms": 9000, "job.tasks": [{"count": 4, "duration.ms": 5000}]}`

// base is the test's base configuration: the SLS trace under the capacity
// scheduler (or the fair one, whose file the base does not have).
func base(sched string) (scenario.Inputs, error) {
	in := scenario.Inputs{Scheduler: "capacity", SchedulerConf: scenario.File{Name: "capacity-scheduler.xml", Data: []byte(capacityXML)},
		TraceType: "SLS", Traces: []scenario.File{{Name: "jobs.json", Data: []byte(slsJobs)}}}
	if sched == "fair" {
		in.Scheduler, in.SchedulerConf = "fair", scenario.File{}
	}
	return in, nil
}

func open(path string) (scenario.File, error) {
	if path == "fair-scheduler.xml" {
		return scenario.File{Name: path, Data: []byte(fairXML)}, nil
	}
	return scenario.File{}, os.ErrNotExist
}

const whatIf = `{
  "description": "What if b had more?",
  "variants": [
    {"name": "today"},
    {"name": "b-70", "scheduler-keys": {"yarn.scheduler.capacity.root.a.capacity": "30", "yarn.scheduler.capacity.root.b.capacity": "70"}},
    {"name": "fair", "scheduler": "fair", "scheduler-conf": "fair-scheduler.xml"}
  ],
  "sweep": [{"names": ["hb1", "hb3"], "site-keys": {"yarn.sls.nm.heartbeat.interval.ms": ["1000", "3000"]}}]
}`

func resolve(t *testing.T, doc string) ([]Variant, string) {
	t.Helper()
	s, err := ParseSweep([]byte(doc), "whatif.json")
	require.NoError(t, err)
	vs, fp, err := s.Resolve(base, open)
	require.NoError(t, err)
	return vs, fp
}

func setting(v Variant, source, key string) (string, bool) {
	for _, s := range v.Settings {
		if s.Source == source && s.Key == key {
			return s.Value, true
		}
	}
	return "", false
}

// TestResolve: variants × dimensions in order, named, each with its keys
// changed and nothing else.
func TestResolve(t *testing.T) {
	vs, fp := resolve(t, whatIf)
	var names []string
	for i, v := range vs {
		names = append(names, v.Name)
		assert.Equal(t, i, v.Index)
		hb, _ := setting(v, SourceSite, "yarn.sls.nm.heartbeat.interval.ms")
		assert.Equal(t, map[bool]string{true: "1000", false: "3000"}[strings.HasSuffix(v.Name, "hb1")], hb, v.Name)
		assert.Equal(t, map[bool]berth.Duration{true: 1000, false: 3000}[strings.HasSuffix(v.Name, "hb1")], v.Scenario.Heartbeat, v.Name)
	}
	assert.Equal(t, []string{"today+hb1", "today+hb3", "b-70+hb1", "b-70+hb3", "fair+hb1", "fair+hb3"}, names)
	a, _ := setting(vs[0], SourceScheduler, "yarn.scheduler.capacity.root.a.capacity")
	assert.Equal(t, "60", a)
	a, _ = setting(vs[2], SourceScheduler, "yarn.scheduler.capacity.root.a.capacity")
	assert.Equal(t, "30", a)
	w, ok := setting(vs[4], SourceScheduler, "queue[a].weight")
	assert.True(t, ok, "the allocation file flattened")
	assert.Equal(t, "3", w)
	sched, _ := setting(vs[4], SourceRun, "scheduler")
	assert.Equal(t, "fair", sched)
	assert.Len(t, fp, 16)

	// The same comparison has the same fingerprint; another has another.
	_, again := resolve(t, whatIf)
	assert.Equal(t, fp, again)
	_, other := resolve(t, strings.Replace(whatIf, `"3000"`, `"2000"`, 1))
	assert.NotEqual(t, fp, other)

	// A null value removes a key; a sweep alone names its steps by key.
	vs, _ = resolve(t, `{"variants": [{"name": "x", "scheduler-keys": {"yarn.scheduler.capacity.root.a.capacity": "50", "yarn.scheduler.capacity.root.b.capacity": "50"},
	  "site-keys": {"yarn.sls.nm.heartbeat.interval.ms": null}}]}`)
	_, ok = setting(vs[0], SourceSite, "yarn.sls.nm.heartbeat.interval.ms")
	assert.False(t, ok)
	vs, _ = resolve(t, `{"sweep": [{"site-keys": {"yarn.sls.nm.heartbeat.interval.ms": ["500", "1000"]}}]}`)
	assert.Equal(t, "interval.ms=500", vs[0].Name)
	assert.Equal(t, "interval.ms=1000", vs[1].Name)
	vs, _ = resolve(t, `{}`)
	assert.Equal(t, "base", vs[0].Name)
}

// TestSweepErrors: a bad comparison file is refused before anything
// runs, naming the file, the field and the value.
func TestSweepErrors(t *testing.T) {
	for _, c := range []struct{ doc, field string }{
		{`{"variants": [{"scheduler": "fair"}]}`, "variants[0].name"},
		{`{"variants": [{"name": "a/b"}]}`, "variants[0].name"},
		{`{"variants": [{"name": ".."}]}`, "variants[0].name"},
		{`{"variants": [{"name": "compare.html"}]}`, "variants[0].name"},
		{`{"variants": [{"name": "a"}, {"name": "a"}]}`, "variants[1].name"},
		{`{"variants": [{"name": "a", "scheduler": "fifo"}]}`, "variants[0].scheduler"},
		{`{"sweep": [{}]}`, "sweep[0].scheduler-keys"},
		{`{"sweep": [{"site-keys": {"x": ["1", "2"], "y": ["1"]}}]}`, "sweep[0].site-keys.y"},
		{`{"sweep": [{"names": ["one"], "site-keys": {"x": ["1", "2"]}}]}`, "sweep[0].names"},
		{`{"sweep": [{"site-keys": {"x": ["1","2","3","4","5","6","7","8","9","10"]}}, {"site-keys": {"y": ["1","2","3","4","5","6","7","8","9","10"]}},
		  {"site-keys": {"z": ["1","2","3","4","5","6","7","8","9","10","11"]}}]}`, "sweep"},
		{`{"variants": [], "colour": 1}`, ""},
		{`{"variants": []} {}`, ""},
	} {
		_, err := ParseSweep([]byte(c.doc), "whatif.json")
		var ie *scenario.InputError
		if assert.True(t, errors.As(err, &ie), "%s: %v", c.doc, err) {
			assert.Equal(t, "whatif.json", ie.File)
			assert.Equal(t, c.field, ie.Field, c.doc)
		}
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	}
	// Variants that cannot load are refused by name.
	for _, c := range []struct{ doc, want string }{
		{`{"variants": [{"name": "bad", "scheduler-keys": {"yarn.scheduler.capacity.root.a.capacity": "70"}}]}`, `variant "bad"`},
		{`{"variants": [{"name": "f", "scheduler": "fair"}]}`, "the fair scheduler needs its configuration file"},
		{`{"variants": [{"name": "f", "scheduler": "fair", "scheduler-conf": "fair-scheduler.xml", "scheduler-keys": {"k": "v"}}]}`, "give the fair scheduler's allocation file whole"},
		{`{"variants": [{"name": "m", "conf": "missing.xml"}]}`, `variant "m"`},
	} {
		s, err := ParseSweep([]byte(c.doc), "whatif.json")
		require.NoError(t, err)
		_, _, err = s.Resolve(base, open)
		require.Error(t, err, c.doc)
		assert.Contains(t, err.Error(), c.want)
	}
}

// TestRunParallelIsSerial: runs on several workers give the outcomes one
// worker gives, in the variants' order (under -race, the workers share
// nothing).
func TestRunParallelIsSerial(t *testing.T) {
	vs, _ := resolve(t, whatIf)
	one, err := Run(vs, Options{Workers: 1})
	require.NoError(t, err)
	var done []string
	many, err := Run(vs, Options{Workers: 4, Done: func(o *Outcome) { done = append(done, o.Name) }})
	require.NoError(t, err)
	require.Len(t, many, len(vs))
	assert.ElementsMatch(t, done, []string{"today+hb1", "today+hb3", "b-70+hb1", "b-70+hb3", "fair+hb1", "fair+hb3"})
	for i := range vs {
		a, err := json.Marshal(one[i].Run)
		require.NoError(t, err)
		b, err := json.Marshal(many[i].Run)
		require.NoError(t, err)
		assert.Equal(t, vs[i].Name, many[i].Name)
		assert.True(t, bytes.Equal(a, b), "variant %s differs between one worker and four", vs[i].Name)
		assert.Positive(t, many[i].Wall)
	}
	// The variants do differ: b's jobs wait less with 70 %, and the
	// heartbeat interval shows in the waits.
	waitB := func(o Outcome) berth.Duration {
		var w berth.Duration
		for _, j := range o.Run.Jobs {
			if j.Queue == "b" {
				w += j.Wait()
			}
		}
		return w
	}
	assert.Less(t, waitB(many[0]), waitB(many[1]), "a longer heartbeat interval, longer waits")
	assert.LessOrEqual(t, waitB(many[2]), waitB(many[0]), "b with 70 %% waits no longer")
}

func TestShard(t *testing.T) {
	vs := make([]Variant, 7)
	for i := range vs {
		vs[i].Index = i
	}
	var all []int
	for i := range 3 {
		s, err := ParseShard(strings.Join([]string{string(rune('0' + i)), "3"}, "/"))
		require.NoError(t, err)
		for _, v := range s.Select(vs) {
			assert.Equal(t, i, v.Index%3)
			all = append(all, v.Index)
		}
	}
	assert.ElementsMatch(t, []int{0, 1, 2, 3, 4, 5, 6}, all, "the shards cover every variant once")
	assert.Len(t, Shard{}.Select(vs), 7)
	for _, bad := range []string{"", "1", "3/3", "-1/2", "a/b", "0/0"} {
		_, err := ParseShard(bad)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument, bad)
	}
}

// TestPartsMerge: shards written to their directories merge into the
// outcomes of one run; a missing, doubled or foreign part is refused.
func TestPartsMerge(t *testing.T) {
	vs, fp := resolve(t, whatIf)
	h := Header{Comparison: fp, Title: "t", Description: "d", Total: len(vs)}
	whole, err := Run(vs, Options{})
	require.NoError(t, err)
	dir := t.TempDir()
	write := func(sub string, o *Outcome, hh Header) {
		p := filepath.Join(dir, sub, o.Name)
		require.NoError(t, os.MkdirAll(p, 0o755))
		var b bytes.Buffer
		require.NoError(t, EncodePart(&b, hh, o))
		require.NoError(t, os.WriteFile(filepath.Join(p, PartFile), b.Bytes(), 0o644))
	}
	for i := range whole {
		write(ShardOf(i), &whole[i], h)
	}
	gh, got, err := ReadParts([]string{filepath.Join(dir, "p0"), filepath.Join(dir, "p1")})
	require.NoError(t, err)
	assert.Equal(t, h, gh)
	require.Len(t, got, len(whole))
	var a, b bytes.Buffer
	require.NoError(t, WriteReport(&a, h, whole))
	require.NoError(t, WriteReport(&b, gh, got))
	assert.Equal(t, a.String(), b.String(), "the merged report is the whole one")

	_, _, err = ReadParts([]string{filepath.Join(dir, "p0")})
	assert.ErrorContains(t, err, "3 of 6 variants found")
	_, _, err = ReadParts([]string{filepath.Join(dir, "p0"), filepath.Join(dir, "p0"), filepath.Join(dir, "p1")})
	assert.ErrorContains(t, err, "the same variant is also in")
	foreign := h
	foreign.Comparison = "0123456789abcdef"
	write("p2", &whole[0], foreign)
	_, _, err = ReadParts([]string{filepath.Join(dir, "p1"), filepath.Join(dir, "p2")})
	assert.ErrorContains(t, err, "belongs to another comparison")
	_, _, err = ReadParts([]string{filepath.Join(dir, "nothing")})
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	_, err = DecodePart([]byte(`{"version": 9, "total": 1, "run": {}}`), "x")
	assert.ErrorContains(t, err, "version")
}

// ShardOf puts even variants in p0 and odd ones in p1.
func ShardOf(i int) string { return []string{"p0", "p1"}[i%2] }

// TestComparisonReport: the report parses, shows the differing keys and
// only them, and each queue's percentiles with differences.
func TestComparisonReport(t *testing.T) {
	vs, fp := resolve(t, whatIf)
	outs, err := Run(vs, Options{})
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, WriteReport(&b, Header{Comparison: fp, Title: "what <if>", Description: "What if b had more?", Total: len(vs)}, outs))
	page := b.String()
	assert.Contains(t, page, "<title>what &lt;if&gt;</title>")
	assert.Contains(t, page, "What if b had more?")
	assert.Contains(t, page, `<td>yarn.scheduler.capacity.root.a.capacity</td><td>60</td><td>60</td><td>30</td><td>30</td><td>—</td>`)
	assert.Contains(t, page, `<td>yarn.sls.nm.heartbeat.interval.ms</td>`)
	assert.Contains(t, page, `<td>scheduler</td><td>capacity</td>`)
	assert.Contains(t, page, `<td>yarn.scheduler.capacity.root.queues</td><td>a,b</td><td>a,b</td><td>a,b</td><td>a,b</td><td>—</td>`, "the fair scheduler's file has no such key")
	rvs := make([]report.Variant, 4)
	for i := range rvs {
		rvs[i] = report.Variant{Name: outs[i].Name, Settings: outs[i].Settings, Run: outs[i].Run}
	}
	var keys []string
	for _, d := range report.Differences(rvs) {
		keys = append(keys, d.Key)
	}
	assert.Equal(t, []string{"yarn.scheduler.capacity.root.a.capacity", "yarn.scheduler.capacity.root.b.capacity", "yarn.sls.nm.heartbeat.interval.ms"}, keys,
		"keys all variants share are not differences")
	assert.Contains(t, page, `<a href="b-70&#43;hb1/report.html">report</a>`)
	for _, q := range []string{"a", "b"} {
		assert.Regexp(t, `(?s)<table id="queue-`+q+`">.*?<tr><td>today\+hb3</td><td>\d+ of \d+</td><td>[\d.]+</td><td>[+−=]`, html.UnescapeString(page))
	}
	// Every table fits the page: at most ten columns.
	for _, row := range regexp.MustCompile(`(?s)<tr>.*?</tr>`).FindAllString(page, -1) {
		assert.LessOrEqual(t, strings.Count(row, "<td")+strings.Count(row, "<th"), 10)
	}
	// Two tables of differences: five variants, then the sixth.
	assert.Contains(t, page, `<table id="differences-1"`)
	assert.Len(t, regexp.MustCompile(`<figure id="fig-v-`).FindAllString(page, -1), len(vs), "a chart per configuration")
	assert.Len(t, regexp.MustCompile(`<figure id="fig-q-`).FindAllString(page, -1), 4, "waits and runtimes of a and b")
	diffs := report.Differences([]report.Variant{{Settings: vs[0].Settings}, {Settings: vs[0].Settings}})
	assert.Empty(t, diffs)
}
