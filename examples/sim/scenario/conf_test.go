package scenario

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
)

type prop struct {
	name, value string
	final       bool
}

func confFile(name string, props ...prop) File {
	var b strings.Builder
	b.WriteString("<configuration>\n")
	for _, p := range props {
		fmt.Fprintf(&b, "<property><name>%s</name><value>%s</value>", p.name, p.value)
		if p.final {
			b.WriteString("<final>true</final>")
		}
		b.WriteString("</property>\n")
	}
	b.WriteString("</configuration>\n")
	return File{Name: name, Data: []byte(b.String())}
}

// TestLoadSites: later files override earlier ones, a final value stands
// against later files (the refused value listed) but not against a
// command-line override, and each value knows its file.
func TestLoadSites(t *testing.T) {
	a := confFile("a.xml", prop{"k1", "a1", false}, prop{"k2", "a2", true}, prop{"k3", "a3", false}, prop{"k3", "a3bis", false})
	b := confFile("b.xml", prop{"k1", "b1", false}, prop{"k2", "b2", false}, prop{"k2", "a2", false}, prop{"k4", "b4", true})
	s, err := LoadSites([]File{a, b}, []Property{{"k4", "d4"}, {"k5", "d5"}})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"k1": "b1", "k2": "a2", "k3": "a3bis", "k4": "d4", "k5": "d5"}, s.Values)
	assert.Equal(t, map[string]string{"k1": "b.xml", "k2": "a.xml", "k3": "a.xml", "k4": OverrideSource, "k5": OverrideSource}, s.Source)
	assert.Equal(t, []IgnoredOverride{{Key: "k2", Value: "b2", File: "b.xml", KeptFrom: "a.xml"}}, s.Ignored,
		"the same value again is no attempt to override")
	assert.True(t, s.Final["k2"])
	assert.True(t, s.Final["k4"])
	assert.Equal(t, "a.xml, b.xml, "+OverrideSource, s.File)
	assert.Equal(t, []string{"a.xml", "b.xml"}, s.Files)

	empty, err := LoadSites(nil, nil)
	require.NoError(t, err)
	assert.Empty(t, empty.Values)
}

// TestSiteErrors: a bad final flag or an empty override name is refused
// naming the file and the property; a bad value names the file it came
// from.
func TestSiteErrors(t *testing.T) {
	_, err := LoadSites([]File{{Name: "f.xml", Data: []byte(`<configuration><property><name>x</name><value>1</value><final>yes</final></property></configuration>`)}}, nil)
	var ie *InputError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "f.xml", ie.File)
	assert.Equal(t, "property[1].final", ie.Field)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)

	_, err = LoadSites(nil, []Property{{" ", "v"}})
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, OverrideSource, ie.File)

	s, err := LoadSites([]File{confFile("a.xml", prop{KeyNMMemory, "1", false}), confFile("b.xml", prop{KeyNMVCores, "many", false})}, nil)
	require.NoError(t, err)
	_, err = s.Int(KeyNMVCores, 1)
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "b.xml", ie.File, "the file the value came from")
	assert.Equal(t, KeyNMVCores, ie.Field)
}

// TestSiteExpansion: ${name} takes another property's value, through
// chains; an unknown name stays as written; a cycle ends, the same way
// every time.
func TestSiteExpansion(t *testing.T) {
	f := confFile("a.xml", prop{"dir", "/etc/hadoop", false}, prop{"conf", "${dir}/conf", false},
		prop{"alloc", "${conf}/fair.xml", false}, prop{"odd", "${nope}/x${", false},
		prop{"c1", "${c2}", false}, prop{"c2", "${c1}", false})
	s, err := LoadSites([]File{f}, nil)
	require.NoError(t, err)
	assert.Equal(t, "/etc/hadoop/conf/fair.xml", s.Values["alloc"])
	assert.Equal(t, "${nope}/x${", s.Values["odd"])
	for range 20 {
		again, err := LoadSites([]File{f}, nil)
		require.NoError(t, err)
		assert.Equal(t, s.Values, again.Values)
	}
}

// TestLoadSitesModel: random files of random properties load as a simple
// model of Hadoop's Configuration says (a property is set unless an
// earlier one was final; a final flag sticks), whatever the order.
func TestLoadSitesModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		var files []File
		want := map[string]string{}
		final := map[string]bool{}
		source := map[string]string{}
		for f := range 1 + r.IntN(4) {
			name := fmt.Sprintf("f%d.xml", f)
			var props []prop
			for range r.IntN(6) {
				p := prop{fmt.Sprintf("k%d", r.IntN(5)), fmt.Sprintf("v%d", r.IntN(3)), r.IntN(4) == 0}
				props = append(props, p)
				if !final[p.name] {
					want[p.name], source[p.name] = p.value, name
				}
				final[p.name] = final[p.name] || p.final
			}
			files = append(files, confFile(name, props...))
		}
		s, err := LoadSites(files, nil)
		require.NoError(t, err)
		assert.Equal(t, want, s.Values)
		assert.Equal(t, source, s.Source)
		for k := range final {
			assert.Equal(t, final[k], s.Final[k], k)
		}
	}
}

// FuzzLoadSites: no file panics the loader; a refusal is an InputError.
func FuzzLoadSites(f *testing.F) {
	f.Add([]byte(`<configuration><property><name>a</name><value>${a}${b</value><final>true</final></property></configuration>`))
	f.Add([]byte(`<configuration><property><name></name></property></configuration>`))
	f.Add([]byte(`<x`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := LoadSites([]File{{Name: "f", Data: data}, {Name: "g", Data: data}}, nil)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("%T: %v", err, err)
			}
			return
		}
		for k := range s.Values {
			if s.Source[k] == "" {
				t.Fatalf("%s has no source", k)
			}
		}
	})
}

// TestSchedulerName: yarn.resourcemanager.scheduler.class chooses the
// scheduler (SLS's wrappers too); unset, it is the capacity scheduler;
// FIFO and unknown classes are refused naming the key.
func TestSchedulerName(t *testing.T) {
	for class, want := range map[string]string{
		"": "capacity",
		"org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler":         "fair",
		"org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler": "capacity",
		"org.apache.hadoop.yarn.sls.scheduler.SLSFairScheduler":                              "fair",
	} {
		var s *Site
		if class != "" {
			var err error
			s, err = LoadSites([]File{confFile("y.xml", prop{KeySchedulerClass, class, false})}, nil)
			require.NoError(t, err)
		}
		got, err := s.SchedulerName()
		require.NoError(t, err, class)
		assert.Equal(t, want, got, class)
	}
	for _, class := range []string{"org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler", "com.example.Mine"} {
		s, err := LoadSites([]File{confFile("y.xml", prop{KeySchedulerClass, class, false})}, nil)
		require.NoError(t, err)
		_, err = s.SchedulerName()
		var ie *InputError
		require.ErrorAs(t, err, &ie, class)
		assert.Equal(t, "y.xml", ie.File)
		assert.Equal(t, KeySchedulerClass, ie.Field)
	}
}

// TestSchedulerFile: a relative allocation file is looked for beside the
// site file that names it, then in the working directory; the default
// names beside each site file, the last first; an absolute name or one
// from the command line as it is.
func TestSchedulerFile(t *testing.T) {
	conf := filepath.Join("etc", "conf", "yarn-site.xml")
	runner := filepath.Join("sls", "sls-runner.xml")
	s, err := LoadSites([]File{confFile(conf, prop{KeyFairAllocationFile, "alloc.xml", false}), confFile(runner)}, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join("etc", "conf", "alloc.xml"), "alloc.xml"}, s.SchedulerFile("fair"))
	assert.Equal(t, []string{filepath.Join("sls", DefaultCapacityFile), filepath.Join("etc", "conf", DefaultCapacityFile), DefaultCapacityFile},
		s.SchedulerFile("capacity"))

	plain, err := LoadSites([]File{confFile(conf)}, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join("etc", "conf", DefaultFairFile), DefaultFairFile}, plain.SchedulerFile("fair"))

	abs, err := filepath.Abs("alloc.xml")
	require.NoError(t, err)
	for _, s := range []struct {
		files []File
		over  []Property
		want  string
	}{
		{[]File{confFile(conf, prop{KeyFairAllocationFile, abs, false})}, nil, abs},
		{[]File{confFile(conf)}, []Property{{KeyFairAllocationFile, "here/alloc.xml"}}, "here/alloc.xml"},
	} {
		site, err := LoadSites(s.files, s.over)
		require.NoError(t, err)
		assert.Equal(t, []string{s.want}, site.SchedulerFile("fair"))
	}
	var none *Site
	assert.Equal(t, []string{DefaultCapacityFile}, none.SchedulerFile("capacity"))
}

// TestSLSConfigurations loads SLS's yarn-site.xml for the fair scheduler
// and its sls-runner.xml together, as SLS does: the fair scheduler with
// its preemption on (from the first file) and the nodes of the second.
// With only the second file the preemption is off: the first must not be
// dropped.
func TestSLSConfigurations(t *testing.T) {
	sites := []File{realFile(t, "yarn-site-fair.xml"), realFile(t, "sls-runner.xml")}
	alloc := realFile(t, "fair-scheduler-allocation.xml")
	load := func(scheduler string, sites []File) *Scenario {
		in := Default("fair")
		in.Scheduler, in.Sites, in.SchedulerConf, in.NodeEvents = scheduler, sites, alloc, nil
		sc, err := Load(in)
		require.NoError(t, err)
		return sc
	}
	sc := load("", sites)
	assert.Equal(t, "fair", sc.Scheduler, "yarn.resourcemanager.scheduler.class of the first file")
	assert.True(t, sc.Preemption, "yarn.scheduler.fair.preemption of the first file")
	assert.Equal(t, int64(100240), sc.Defaults.Node.Memory, "yarn.sls.nm.memory.mb of the second file")
	assert.Equal(t, sites[1].Name, sc.Site.Source[KeyNMMemory])

	only := load("fair", sites[1:])
	assert.False(t, only.Preemption, "without the first file the fair preemption is off")
	site, err := LoadSites(sites[1:], nil)
	require.NoError(t, err)
	name, err := site.SchedulerName()
	require.NoError(t, err)
	assert.Equal(t, "capacity", name, "and the scheduler YARN's default")
}
