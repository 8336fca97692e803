package scenario

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/berthsched/berth"
)

// Site is a Hadoop configuration as YARN and SLS load it: the properties
// of one or more files (yarn-site.xml, sls-runner.xml, ...) in the order
// given, each overriding the ones before as Hadoop's Configuration does
// when resources are added in turn, then the command-line overrides.
//
// As in Configuration.loadProperty, a property a file marks
// <final>true</final> keeps its value: a later file's value for it is
// ignored (and listed in Ignored), while a command-line override (-D,
// Configuration.set) still wins. Values are expanded as Configuration.get
// expands them: ${name} is replaced by the property name's value (a name
// with no value is left as written), up to 20 levels deep.
type Site struct {
	// File names the configuration in messages: its file, or its files
	// joined by ", ".
	File string
	// Files are the files loaded, in order.
	Files []string
	// Values holds the expanded value of each property.
	Values map[string]string
	// Source is the file each value came from (OverrideSource for a
	// command-line override).
	Source map[string]string
	// Final lists the properties a file marked final.
	Final map[string]bool
	// Ignored lists, in load order, the values a later file gave a final
	// property, which were not used.
	Ignored []IgnoredOverride
}

// OverrideSource is the Site.Source of a command-line override.
const OverrideSource = "command line (-D)"

// IgnoredOverride is a later file's value for a property an earlier file
// marked final: Hadoop keeps the final value and warns.
type IgnoredOverride struct {
	Key, Value, File string
	// KeptFrom is the file whose final value stands.
	KeptFrom string
}

// Property is one name and value, as a command-line override gives it.
type Property struct {
	Name, Value string
}

// maxSubst bounds variable expansion, as Configuration's MAX_SUBST does.
const maxSubst = 20

// ParseSite reads one Hadoop configuration file.
func ParseSite(data []byte, file string) (*Site, error) {
	return LoadSites([]File{{Name: file, Data: data}}, nil)
}

// LoadSites loads configuration files in order, later ones overriding
// earlier ones unless final, then the overrides (see Site). No files
// and no overrides give an empty configuration.
func LoadSites(files []File, overrides []Property) (*Site, error) {
	s := &Site{Values: map[string]string{}, Source: map[string]string{}, Final: map[string]bool{}}
	for _, f := range files {
		s.Files = append(s.Files, f.Name)
		props, err := parseProperties(f)
		if err != nil {
			return nil, err
		}
		for _, p := range props {
			switch old, set := s.Values[p.name]; {
			case !s.Final[p.name]:
				s.Values[p.name], s.Source[p.name] = p.value, f.Name
			case !set || old != p.value:
				s.Ignored = append(s.Ignored, IgnoredOverride{Key: p.name, Value: p.value, File: f.Name, KeptFrom: s.Source[p.name]})
			}
			if p.final {
				s.Final[p.name] = true
			}
		}
	}
	for i, p := range overrides {
		name := strings.TrimSpace(p.Name)
		if name == "" {
			return nil, &InputError{File: OverrideSource, Field: fmt.Sprintf("override[%d]", i+1), Value: p.Name + "=" + p.Value, Reason: "expected name=value"}
		}
		s.Values[name], s.Source[name] = strings.TrimSpace(p.Value), OverrideSource
	}
	names := s.Files
	if len(overrides) > 0 {
		names = append(slices.Clip(names), OverrideSource)
	}
	s.File = strings.Join(names, ", ")
	s.expand()
	return s, nil
}

type property struct {
	name, value string
	final       bool
}

// parseProperties reads a configuration file's properties in order.
func parseProperties(f File) ([]property, error) {
	var doc struct {
		Props []struct {
			Name  string `xml:"name"`
			Value string `xml:"value"`
			Final string `xml:"final"`
		} `xml:"property"`
	}
	dec := xml.NewDecoder(bytes.NewReader(f.Data))
	if err := dec.Decode(&doc); err != nil {
		return nil, &InputError{File: f.Name, Reason: "malformed configuration XML", Err: err}
	}
	out := make([]property, 0, len(doc.Props))
	for i, p := range doc.Props {
		name := strings.TrimSpace(p.Name)
		if name == "" {
			return nil, &InputError{File: f.Name, Field: fmt.Sprintf("property[%d].name", i+1), Reason: "empty"}
		}
		final := false
		switch v := strings.TrimSpace(p.Final); strings.ToLower(v) {
		case "", "false":
		case "true":
			final = true
		default:
			return nil, &InputError{File: f.Name, Field: fmt.Sprintf("property[%d].final", i+1), Value: v, Reason: "must be true or false"}
		}
		out = append(out, property{name: name, value: strings.TrimSpace(p.Value), final: final})
	}
	return out, nil
}

// expand replaces ${name} references in every value, each from the
// values as loaded (so the result does not depend on the order of the
// keys, even for references in a cycle).
func (s *Site) expand() {
	raw := maps.Clone(s.Values)
	for k, v := range raw {
		for range maxSubst {
			next := substitute(v, raw)
			if next == v {
				break
			}
			v = next
		}
		s.Values[k] = v
	}
}

// substitute replaces one level of ${name} references; unknown names
// stay as written.
func substitute(v string, values map[string]string) string {
	var b strings.Builder
	for {
		i := strings.Index(v, "${")
		if i < 0 {
			b.WriteString(v)
			return b.String()
		}
		j := strings.IndexByte(v[i:], '}')
		if j < 0 {
			b.WriteString(v)
			return b.String()
		}
		name := v[i+2 : i+j]
		b.WriteString(v[:i])
		if val, ok := values[name]; ok && name != "" {
			b.WriteString(val)
		} else {
			b.WriteString(v[i : i+j+1])
		}
		v = v[i+j+1:]
	}
}

// source names the file a key's value came from, for errors.
func (s *Site) source(k string) string {
	if f, ok := s.Source[k]; ok {
		return f
	}
	return s.File
}

func (s *Site) get(k string) (string, bool) {
	if s == nil {
		return "", false
	}
	v, ok := s.Values[k]
	return v, ok
}

// Int reads a positive integer key, def when absent.
func (s *Site) Int(k string, def int64) (int64, error) {
	v, ok := s.get(k)
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, &InputError{File: s.source(k), Field: k, Value: v, Reason: "must be a positive integer"}
	}
	return n, nil
}

// Bool reads a boolean key, def when absent.
func (s *Site) Bool(k string, def bool) (bool, error) {
	v, ok := s.get(k)
	if !ok {
		return def, nil
	}
	switch strings.ToLower(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, &InputError{File: s.source(k), Field: k, Value: v, Reason: "must be true or false"}
}

// InputError is a bad input file or setting of a scenario, naming the file
// and the field; it unwraps to berth.ErrInvalidArgument and the cause.
type InputError struct {
	File, Field string
	Value       any
	Reason      string
	Err         error
}

func (e *InputError) Error() string {
	msg := e.File
	if e.Field != "" {
		msg += ": " + e.Field
	}
	msg += ": " + e.Reason
	if e.Value != nil {
		msg += fmt.Sprintf(" (value: %v)", e.Value)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap exposes the kind and the cause.
func (e *InputError) Unwrap() []error {
	if e.Err != nil {
		return []error{berth.ErrInvalidArgument, e.Err}
	}
	return []error{berth.ErrInvalidArgument}
}

// Keys that choose the scheduler and find its own file.
const (
	// KeySchedulerClass names the ResourceManager's scheduler (YARN's
	// default: the capacity scheduler).
	KeySchedulerClass = "yarn.resourcemanager.scheduler.class"
	// KeyFairAllocationFile names the fair scheduler's allocation file
	// (default fair-scheduler.xml).
	KeyFairAllocationFile = "yarn.scheduler.fair.allocation.file"
)

// Default names of the schedulers' own files, as YARN finds them on its
// classpath.
const (
	DefaultCapacityFile = "capacity-scheduler.xml"
	DefaultFairFile     = "fair-scheduler.xml"
)

// schedulerClasses maps the scheduler classes YARN and SLS name to the
// simulator's schedulers; FIFO is refused (SLS refuses it too).
var schedulerClasses = map[string]string{
	"org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler": "capacity",
	"org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler":         "fair",
	"org.apache.hadoop.yarn.sls.scheduler.SLSCapacityScheduler":                          "capacity",
	"org.apache.hadoop.yarn.sls.scheduler.SLSFairScheduler":                              "fair",
}

// SchedulerName returns the scheduler the configuration names, "capacity"
// or "fair", from yarn.resourcemanager.scheduler.class (the capacity
// scheduler when unset or with no configuration, as in YARN).
func (s *Site) SchedulerName() (string, error) {
	class, ok := s.get(KeySchedulerClass)
	if !ok {
		return "capacity", nil
	}
	if name, ok := schedulerClasses[class]; ok {
		return name, nil
	}
	reason := "the simulator runs the capacity scheduler (CapacityScheduler) or the fair scheduler (FairScheduler)"
	if strings.HasSuffix(class, ".FifoScheduler") {
		reason = "the FIFO scheduler is not supported (SLS does not support it either); " + reason
	}
	return "", &InputError{File: s.source(KeySchedulerClass), Field: KeySchedulerClass, Value: class, Reason: reason}
}

// SchedulerFile returns where the ResourceManager would find the
// scheduler's own file, as paths to try in order: for the fair scheduler
// yarn.scheduler.fair.allocation.file (default fair-scheduler.xml), for
// the capacity scheduler capacity-scheduler.xml. YARN looks a relative
// name up on its classpath, i.e. its configuration directory; the
// simulator tries the directory of the site file that set the name (for
// the default name, of each site file, the last loaded first), then the
// working directory. An absolute name, or one given by a command-line
// override, is taken as it is.
func (s *Site) SchedulerFile(scheduler string) []string {
	name, from := DefaultCapacityFile, ""
	if scheduler == "fair" {
		name = DefaultFairFile
		if v, ok := s.get(KeyFairAllocationFile); ok && v != "" {
			name, from = v, s.Source[KeyFairAllocationFile]
		}
	}
	if filepath.IsAbs(name) || from == OverrideSource {
		return []string{name}
	}
	var dirs []string
	switch {
	case from != "":
		dirs = append(dirs, filepath.Dir(from))
	case s != nil:
		for i := len(s.Files) - 1; i >= 0; i-- {
			dirs = append(dirs, filepath.Dir(s.Files[i]))
		}
	}
	var out []string
	for _, d := range append(dirs, ".") {
		p := filepath.Join(d, name)
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
