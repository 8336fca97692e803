package compare

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/berthsched/berth/examples/sim/report"
	"github.com/berthsched/berth/examples/sim/scenario"
)

// MaxVariants bounds a comparison: a sweep whose product of dimensions
// exceeds it is refused rather than run for days.
const MaxVariants = 1000

// Sweep is a comparison file: the configurations to run the same trace
// under. Each entry of Variants is one configuration; each dimension of
// Sweep multiplies them by its values (a dimension's keys move together,
// value i of every key making step i, so that "analytics 30 %, research
// 10 %" is one step). Without Variants the base configuration is swept.
//
//	{
//	  "description": "What if analytics got 30 %?",
//	  "variants": [
//	    {"name": "today"},
//	    {"name": "analytics-30", "scheduler-keys": {
//	      "yarn.scheduler.capacity.root.analytics.capacity": "30",
//	      "yarn.scheduler.capacity.root.research.capacity": "10"}},
//	    {"name": "no-preemption", "site-keys": {"yarn.resourcemanager.scheduler.monitor.enable": "false"}},
//	    {"name": "fair", "scheduler": "fair", "scheduler-conf": "fair-scheduler.xml"}
//	  ],
//	  "sweep": [
//	    {"names": ["hb-1s", "hb-3s"], "site-keys": {"yarn.sls.nm.heartbeat.interval.ms": ["1000", "3000"]}}
//	  ]
//	}
type Sweep struct {
	// Description says what the comparison asks; it heads the report.
	Description string `json:"description"`
	// Variants are the configurations; empty means the base alone.
	Variants []VariantSpec `json:"variants"`
	// Sweep multiplies every variant by each dimension's steps.
	Sweep []Dimension `json:"sweep"`
}

// VariantSpec is one configuration as a comparison file writes it: the
// base configuration (the command's flags) with these changes.
type VariantSpec struct {
	// Name names the variant in the report and its output directory
	// (letters, digits, '.', '_', '-', '=' and '+').
	Name string `json:"name"`
	// Scheduler is "capacity" or "fair" ("": the base's).
	Scheduler string `json:"scheduler"`
	// SchedulerConf and Conf replace the scheduler's file and the site
	// file (paths relative to the comparison file).
	SchedulerConf string `json:"scheduler-conf"`
	Conf          string `json:"conf"`
	// SchedulerKeys and SiteKeys set keys of capacity-scheduler.xml and
	// of the site file; null removes a key.
	SchedulerKeys map[string]*string `json:"scheduler-keys"`
	SiteKeys      map[string]*string `json:"site-keys"`
}

// Dimension is one axis of a sweep: Steps values for each key, taken
// together; Names label the steps (default: the first key's last two
// segments and its value, "analytics.capacity=30").
type Dimension struct {
	Names         []string            `json:"names"`
	SchedulerKeys map[string][]string `json:"scheduler-keys"`
	SiteKeys      map[string][]string `json:"site-keys"`
}

// steps is how many values the dimension's keys have (they must agree).
func (d *Dimension) steps() int {
	for _, m := range []map[string][]string{d.SchedulerKeys, d.SiteKeys} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			return len(m[k])
		}
	}
	return 0
}

// validName: a variant's name names its directory, beside ReportFile.
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._=+-]*$`)

// ParseSweep reads a comparison file (JSON, unknown fields refused) and
// checks its form: names, schedulers, dimensions of agreeing lengths.
func ParseSweep(data []byte, file string) (*Sweep, error) {
	var s Sweep
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, &scenario.InputError{File: file, Reason: "malformed comparison file", Err: err}
	}
	if dec.More() {
		return nil, &scenario.InputError{File: file, Reason: "malformed comparison file: data after the object"}
	}
	seen := map[string]bool{}
	for i, v := range s.Variants {
		field := func(f string) string { return fmt.Sprintf("variants[%d].%s", i, f) }
		switch {
		case v.Name == "":
			return nil, &scenario.InputError{File: file, Field: field("name"), Reason: "missing"}
		case !validName.MatchString(v.Name) || v.Name == ReportFile:
			return nil, &scenario.InputError{File: file, Field: field("name"), Value: v.Name, Reason: "use letters, digits and . _ = + -, starting with a letter or digit (it names a directory)"}
		case seen[v.Name]:
			return nil, &scenario.InputError{File: file, Field: field("name"), Value: v.Name, Reason: "two variants have this name"}
		case v.Scheduler != "" && v.Scheduler != "capacity" && v.Scheduler != "fair":
			return nil, &scenario.InputError{File: file, Field: field("scheduler"), Value: v.Scheduler, Reason: `must be "capacity" or "fair"`}
		}
		seen[v.Name] = true
	}
	total := max(1, len(s.Variants))
	for i, d := range s.Sweep {
		field := func(f string) string { return fmt.Sprintf("sweep[%d].%s", i, f) }
		n := d.steps()
		if n == 0 {
			return nil, &scenario.InputError{File: file, Field: field("scheduler-keys"), Reason: "a dimension needs keys with at least one value"}
		}
		for _, m := range []struct {
			name string
			keys map[string][]string
		}{{"scheduler-keys", d.SchedulerKeys}, {"site-keys", d.SiteKeys}} {
			for _, k := range slices.Sorted(maps.Keys(m.keys)) {
				if len(m.keys[k]) != n {
					return nil, &scenario.InputError{File: file, Field: field(m.name + "." + k), Value: len(m.keys[k]),
						Reason: fmt.Sprintf("every key of a dimension needs the same number of values (%d)", n)}
				}
			}
		}
		if d.Names != nil && len(d.Names) != n {
			return nil, &scenario.InputError{File: file, Field: field("names"), Value: len(d.Names), Reason: fmt.Sprintf("one name per step (%d)", n)}
		}
		for _, name := range d.Names {
			if !validName.MatchString(name) {
				return nil, &scenario.InputError{File: file, Field: field("names"), Value: name, Reason: "use letters, digits and . _ = + -"}
			}
		}
		if total *= n; total > MaxVariants {
			return nil, &scenario.InputError{File: file, Field: "sweep", Value: total, Reason: fmt.Sprintf("more than %d variants", MaxVariants)}
		}
	}
	return &s, nil
}

// Schedulers is the quick form of a comparison: the base configuration
// under each named scheduler.
func Schedulers(names ...string) *Sweep {
	s := &Sweep{}
	for _, n := range names {
		s.Variants = append(s.Variants, VariantSpec{Name: n, Scheduler: n})
	}
	return s
}

// Base gives the base configuration under a scheduler ("" for the base's
// own): the inputs every variant starts from (the command's flags, or the
// default scenario's files for that scheduler). An empty SchedulerConf
// says the base has no file for that scheduler: the variant must give
// one.
type Base func(scheduler string) (scenario.Inputs, error)

// Open reads a file a comparison file names.
type Open func(path string) (scenario.File, error)

// Variant is one configuration of a comparison, loaded and checked.
type Variant struct {
	// Index is the variant's place in the comparison; Name its name.
	Index int
	Name  string
	// Settings is the configuration key by key: the scheduler, then the
	// scheduler's file and the site file as Berth reads them.
	Settings []report.Setting
	// Scenario is the loaded configuration.
	Scenario *scenario.Scenario
	inputs   scenario.Inputs
}

// Resolve builds and loads every variant of the sweep over base, in
// order (the variants, each multiplied by the dimensions, the first
// dimension outermost), before anything runs: the first bad one stops it
// with an error naming the variant. The fingerprint identifies the
// comparison (its variants' settings and traces), so that parts of
// different comparisons do not merge.
func (s *Sweep) Resolve(base Base, open Open) (vs []Variant, fingerprint string, err error) {
	specs := s.Variants
	if len(specs) == 0 {
		specs = []VariantSpec{{Name: "base"}}
	}
	type step struct {
		name        string
		sched, site map[string]*string
	}
	combos := [][]step{nil}
	for _, d := range s.Sweep {
		var next [][]step
		for _, c := range combos {
			for i := range d.steps() {
				st := step{sched: pick(d.SchedulerKeys, i), site: pick(d.SiteKeys, i)}
				if d.Names != nil {
					st.name = d.Names[i]
				} else {
					st.name = stepName(d, i)
				}
				next = append(next, append(slices.Clone(c), st))
			}
		}
		combos = next
	}
	h := sha256.New()
	traces := map[string][32]byte{} // each trace hashed once
	for _, spec := range specs {
		for _, c := range combos {
			var parts []string
			if len(s.Variants) > 0 || len(c) == 0 {
				parts = append(parts, spec.Name)
			}
			sched, site := maps.Clone(spec.SchedulerKeys), maps.Clone(spec.SiteKeys)
			for _, st := range c {
				parts = append(parts, st.name)
				sched = merge(sched, st.sched)
				site = merge(site, st.site)
			}
			v, err := build(len(vs), strings.Join(parts, "+"), spec, sched, site, base, open)
			if err != nil {
				return nil, "", err
			}
			for _, st := range v.Settings {
				fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\n", v.Name, st.Source, st.Key, st.Value)
			}
			for _, t := range v.inputs.Traces {
				if _, ok := traces[t.Name]; !ok {
					traces[t.Name] = sha256.Sum256(t.Data)
				}
				fmt.Fprintf(h, "%s\x00%x\n", t.Name, traces[t.Name])
			}
			vs = append(vs, v)
		}
	}
	names := map[string]bool{}
	for _, v := range vs {
		if names[v.Name] {
			return nil, "", &scenario.InputError{File: "comparison", Field: "name", Value: v.Name, Reason: "two variants have this name"}
		}
		names[v.Name] = true
	}
	return vs, hex.EncodeToString(h.Sum(nil))[:16], nil
}

func pick(m map[string][]string, i int) map[string]*string {
	out := map[string]*string{}
	for k, vs := range m {
		v := vs[i]
		out[k] = &v
	}
	return out
}

func merge(dst, src map[string]*string) map[string]*string {
	if dst == nil {
		dst = map[string]*string{}
	}
	maps.Copy(dst, src)
	return dst
}

// stepName labels a step by its first key: "analytics.capacity=30".
func stepName(d Dimension, i int) string {
	for _, m := range []map[string][]string{d.SchedulerKeys, d.SiteKeys} {
		if len(m) == 0 {
			continue
		}
		k := slices.Sorted(maps.Keys(m))[0]
		parts := strings.Split(k, ".")
		short := strings.Join(parts[max(0, len(parts)-2):], ".")
		return sanitize(short) + "=" + sanitize(m[k][i])
	}
	return fmt.Sprint(i)
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._=+-]`)

func sanitize(s string) string { return unsafeChars.ReplaceAllString(s, "_") }

// build makes one variant's inputs from the base and loads them.
func build(index int, name string, spec VariantSpec, schedKeys, siteKeys map[string]*string, base Base, open Open) (Variant, error) {
	fail := func(err error) (Variant, error) { return Variant{}, fmt.Errorf("variant %q: %w", name, err) }
	in, err := base(spec.Scheduler)
	if err != nil {
		return fail(err)
	}
	if spec.SchedulerConf != "" {
		if in.SchedulerConf, err = open(spec.SchedulerConf); err != nil {
			return fail(err)
		}
	}
	if in.SchedulerConf.Data == nil {
		// A comparison names every configuration it compares: no fair
		// scheduler on YARN's defaults for want of an allocation file.
		return fail(&scenario.InputError{File: "comparison", Field: "scheduler-conf",
			Reason: "the " + in.Scheduler + " scheduler needs its configuration file"})
	}
	if spec.Conf != "" {
		f, err := open(spec.Conf)
		if err != nil {
			return fail(err)
		}
		in.Sites, in.Overrides = []scenario.File{f}, nil
	}
	if len(schedKeys) > 0 {
		if in.Scheduler != "capacity" {
			return fail(&scenario.InputError{File: in.SchedulerConf.Name, Field: "scheduler-keys",
				Reason: "keys apply to capacity-scheduler.xml; give the fair scheduler's allocation file whole with scheduler-conf"})
		}
		if in.SchedulerConf, err = withKeys(&in.SchedulerConf, schedKeys); err != nil {
			return fail(err)
		}
	}
	if len(siteKeys) > 0 {
		// The keys change the configuration the site files and overrides
		// make, written as one file.
		var merged *scenario.File
		if len(in.Sites) > 0 || len(in.Overrides) > 0 {
			s, err := scenario.LoadSites(in.Sites, in.Overrides)
			if err != nil {
				return fail(err)
			}
			merged = &scenario.File{Name: s.File, Data: hadoopXML(s.Values)}
		}
		f, err := withKeys(merged, siteKeys)
		if err != nil {
			return fail(err)
		}
		in.Sites, in.Overrides = []scenario.File{f}, nil
	}
	sc, err := scenario.Load(in)
	if err != nil {
		return fail(err)
	}
	settings, err := settingsOf(in)
	if err != nil {
		return fail(err)
	}
	return Variant{Index: index, Name: name, Settings: settings, Scenario: sc, inputs: in}, nil
}

// sortSettings orders settings by source, then key.
func sortSettings(s []report.Setting) {
	slices.SortStableFunc(s, func(a, b report.Setting) int {
		return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Key, b.Key))
	})
}
