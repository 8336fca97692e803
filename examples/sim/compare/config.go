package compare

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/berthsched/berth/examples/sim/report"
	"github.com/berthsched/berth/examples/sim/scenario"
)

// Sources of settings, as the report's difference table names them.
const (
	SourceRun       = "run"
	SourceScheduler = "scheduler file"
	SourceSite      = "site file"
)

// withKeys returns a Hadoop configuration file (capacity-scheduler.xml, a
// site file; nil for none) with keys set, or removed where the value is
// nil. The file is written anew, its properties sorted by name: Hadoop's
// Configuration keeps the last of a repeated key, so order does not
// matter to it.
func withKeys(f *scenario.File, keys map[string]*string) (scenario.File, error) {
	out := scenario.File{Name: "site overrides"}
	values := map[string]string{}
	if f != nil {
		s, err := scenario.ParseSite(f.Data, f.Name)
		if err != nil {
			return out, err
		}
		values, out.Name = s.Values, f.Name
	}
	for k, v := range keys {
		if strings.TrimSpace(k) == "" {
			return out, &scenario.InputError{File: out.Name, Field: "key", Reason: "empty key"}
		}
		if v == nil {
			delete(values, k)
		} else {
			values[k] = *v
		}
	}
	out.Data = hadoopXML(values)
	return out, nil
}

// hadoopXML writes properties as a Hadoop configuration file.
func hadoopXML(values map[string]string) []byte {
	var b bytes.Buffer
	b.WriteString("<?xml version=\"1.0\"?>\n<configuration>\n")
	for _, k := range slices.Sorted(maps.Keys(values)) {
		b.WriteString("  <property><name>")
		xml.EscapeText(&b, []byte(k))
		b.WriteString("</name><value>")
		xml.EscapeText(&b, []byte(values[k]))
		b.WriteString("</value></property>\n")
	}
	b.WriteString("</configuration>\n")
	return b.Bytes()
}

// settingsOf lists a configuration key by key: the scheduler, then every
// property of capacity-scheduler.xml or every element of a fair
// scheduler's allocation file (as a path, queue[analytics].weight), then
// every property of the site file.
func settingsOf(in scenario.Inputs) ([]report.Setting, error) {
	out := []report.Setting{{Source: SourceRun, Key: "scheduler", Value: in.Scheduler}}
	add := func(source string, values map[string]string) {
		for k, v := range values {
			out = append(out, report.Setting{Source: source, Key: k, Value: v})
		}
	}
	switch {
	case in.SchedulerConf.Data == nil:
		// The fair scheduler without an allocation file: YARN's defaults.
	case in.Scheduler == "fair":
		values, err := flattenXML(in.SchedulerConf.Data)
		if err != nil {
			return nil, &scenario.InputError{File: in.SchedulerConf.Name, Reason: "malformed allocation file", Err: err}
		}
		add(SourceScheduler, values)
	default:
		s, err := scenario.ParseSite(in.SchedulerConf.Data, in.SchedulerConf.Name)
		if err != nil {
			return nil, err
		}
		add(SourceScheduler, s.Values)
	}
	if len(in.Sites) > 0 || len(in.Overrides) > 0 {
		// The values that stand once the files and overrides are loaded.
		s, err := scenario.LoadSites(in.Sites, in.Overrides)
		if err != nil {
			return nil, err
		}
		add(SourceSite, s.Values)
	}
	sortSettings(out[1:])
	return out, nil
}

// flattenXML turns an XML document into path → value: each element with
// text is one key, named by its ancestors below the root with their name
// attributes ("queue[root].queue[analytics].weight"); other attributes
// are keys of their own ("...maxResources@type"). A path seen again gets
// "#2", "#3".
func flattenXML(data []byte) (map[string]string, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	out := map[string]string{}
	var path []string
	var text []string
	put := func(k, v string) {
		key := k
		for n := 2; ; n++ {
			if _, dup := out[key]; !dup {
				break
			}
			key = fmt.Sprintf("%s#%d", k, n)
		}
		out[key] = v
	}
	depth := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 1 {
				continue // the root (allocations)
			}
			seg := t.Name.Local
			for _, a := range t.Attr {
				if a.Name.Local == "name" {
					seg += "[" + a.Value + "]"
				}
			}
			path = append(path, seg)
			text = append(text, "")
			for _, a := range t.Attr {
				if a.Name.Local != "name" {
					put(strings.Join(path, ".")+"@"+a.Name.Local, a.Value)
				}
			}
		case xml.CharData:
			if len(text) > 0 {
				text[len(text)-1] += string(t)
			}
		case xml.EndElement:
			depth--
			if len(path) == 0 {
				continue
			}
			if v := strings.TrimSpace(text[len(text)-1]); v != "" {
				put(strings.Join(path, "."), v)
			}
			path, text = path[:len(path)-1], text[:len(text)-1]
		}
	}
	return out, nil
}
