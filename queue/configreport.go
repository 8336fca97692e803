package queue

import (
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/berthsched/berth"
)

// This file is what a configuration parser says beside the typed
// configuration it returns: the keys YARN knows that Berth does not model,
// and the keys neither knows. Each scheduler keeps its own table of YARN's
// keys ([KeyRule]) and classifies what it read with it; the report, its
// strict-mode error and the typo suggestions are shared here.

// KeySupport tells what Berth does with a configuration key YARN knows.
type KeySupport uint8

const (
	// KeyModelled: the parser reads the key into the typed configuration.
	KeyModelled KeySupport = iota
	// KeyElsewhere: another package of Berth reads the key (for example
	// the preemption policy's keys in capacity-scheduler.xml); the parser
	// leaves it alone.
	KeyElsewhere
	// KeyNotModelled: YARN gives the key a meaning that Berth does not
	// reproduce; the rule says what Berth does instead.
	KeyNotModelled
)

// String names the support level.
func (s KeySupport) String() string {
	switch s {
	case KeyModelled:
		return "modelled"
	case KeyElsewhere:
		return "elsewhere"
	case KeyNotModelled:
		return "not modelled"
	}
	return fmt.Sprintf("KeySupport(%d)", uint8(s))
}

// KeyRule is one entry of a scheduler's table of YARN's configuration
// keys: a pattern, the support Berth gives it, and, unless modelled, what
// Berth does instead (or which package reads it).
//
// A pattern is a dot-separated key in which the segment "*" stands for one
// segment of any text (a user, a label) and a final "**" for one or more
// segments (a template's whole property). Whether the pattern is a whole
// key or the suffix after a queue path is the table's business.
type KeyRule struct {
	// Pattern is the key, with "*" and "**" wildcards.
	Pattern string
	// Support is what Berth does with keys that match.
	Support KeySupport
	// Instead says what Berth does instead (KeyNotModelled) or which
	// package reads the key (KeyElsewhere); "" when modelled.
	Instead string
}

// Match reports whether key matches the rule's pattern.
func (r KeyRule) Match(key string) bool { return matchPattern(r.Pattern, key) }

// literal reports whether the pattern has no wildcard (it can then be
// offered as a suggestion).
func (r KeyRule) literal() bool { return !strings.Contains(r.Pattern, "*") }

// matchPattern compares segment by segment without allocating: tables
// are matched against every key of a file.
func matchPattern(pattern, key string) bool {
	if strings.IndexByte(pattern, '*') < 0 {
		return pattern == key
	}
	for {
		p, prest, pmore := strings.Cut(pattern, ".")
		if p == "**" && !pmore {
			return key != "" && !strings.HasPrefix(key, ".") && !strings.HasSuffix(key, ".") && !strings.Contains(key, "..")
		}
		k, krest, kmore := strings.Cut(key, ".")
		if p == "*" {
			if k == "" {
				return false
			}
		} else if p != k {
			return false
		}
		if !pmore || !kmore {
			return pmore == kmore
		}
		pattern, key = prest, krest
	}
}

// KeyTable is an ordered list of rules; the first match wins.
type KeyTable []KeyRule

// Lookup returns the first rule matching key.
func (t KeyTable) Lookup(key string) (KeyRule, bool) {
	for _, r := range t {
		if r.Match(key) {
			return r, true
		}
	}
	return KeyRule{}, false
}

// Literals returns the patterns without wildcards, in table order: the
// keys a suggestion may name.
func (t KeyTable) Literals() []string {
	var out []string
	for _, r := range t {
		if r.literal() {
			out = append(out, r.Pattern)
		}
	}
	return out
}

// NoteKind classifies a report entry.
type NoteKind uint8

const (
	// NoteNotModelled: YARN knows the key; Berth does not model it.
	NoteNotModelled NoteKind = iota
	// NoteUnknown: neither YARN nor Berth knows the key (usually a typo).
	NoteUnknown
	// NoteElsewhere: YARN knows the key and another Berth package reads
	// it; informational, never an error in strict mode.
	NoteElsewhere
	// NoteRead: the parser read the key into the typed configuration;
	// such notes are kept apart, in [ConfigReport].Read.
	NoteRead
)

// String names the kind.
func (k NoteKind) String() string {
	switch k {
	case NoteNotModelled:
		return "not modelled"
	case NoteUnknown:
		return "unknown"
	case NoteElsewhere:
		return "read elsewhere"
	case NoteRead:
		return "read"
	}
	return fmt.Sprintf("NoteKind(%d)", uint8(k))
}

// ConfigNote is one entry of a [ConfigReport].
type ConfigNote struct {
	// Kind of the entry.
	Kind NoteKind
	// Key as written in the file (a property name, or an element path
	// such as "queue[root.a].wieght").
	Key string
	// Value as written, when there is one.
	Value string
	// Instead says what Berth does instead (NoteNotModelled) or which
	// package reads the key (NoteElsewhere).
	Instead string
	// Suggestion is the closest key Berth knows (NoteUnknown), "" when
	// nothing is close.
	Suggestion string
}

// String formats the entry on one line.
func (n ConfigNote) String() string {
	switch n.Kind {
	case NoteUnknown:
		if n.Suggestion != "" {
			return fmt.Sprintf("unknown key %s (did you mean %s?)", n.Key, n.Suggestion)
		}
		return "unknown key " + n.Key
	case NoteElsewhere:
		return fmt.Sprintf("%s: read by %s", n.Key, n.Instead)
	case NoteRead:
		return fmt.Sprintf("read %s = %q", n.Key, n.Value)
	}
	return fmt.Sprintf("not modelled: %s: %s", n.Key, n.Instead)
}

// ConfigReport lists what a parser read but does not turn into Berth's
// typed configuration, in key order, and apart from it the keys it did
// read. The zero value is an empty report.
type ConfigReport struct {
	// Notes in key order: keys not modelled, unknown, or read elsewhere.
	Notes []ConfigNote
	// Read lists, in key order, the keys the parser read into the typed
	// configuration, each with its value (kind NoteRead). They are no
	// finding: String, Clean and the strict mode ignore them.
	Read []ConfigNote
}

// Add appends a note (to Read when its kind is NoteRead).
func (r *ConfigReport) Add(n ConfigNote) {
	if n.Kind == NoteRead {
		r.Read = append(r.Read, n)
		return
	}
	r.Notes = append(r.Notes, n)
}

// Merge appends the notes of o.
func (r *ConfigReport) Merge(o ConfigReport) {
	r.Notes = append(r.Notes, o.Notes...)
	r.Read = append(r.Read, o.Read...)
}

// Sort orders the notes by key, then kind, so that a report never depends
// on map order.
func (r *ConfigReport) Sort() {
	for _, ns := range [][]ConfigNote{r.Notes, r.Read} {
		sort.SliceStable(ns, func(i, j int) bool {
			a, b := ns[i], ns[j]
			if a.Key != b.Key {
				return a.Key < b.Key
			}
			return a.Kind < b.Kind
		})
	}
}

// ReadValue returns the value the parser read for key, and whether it read
// the key.
func (r ConfigReport) ReadValue(key string) (string, bool) {
	for _, n := range r.Read {
		if n.Key == key {
			return n.Value, true
		}
	}
	return "", false
}

// Of returns the notes of one kind (Read for NoteRead).
func (r ConfigReport) Of(kind NoteKind) []ConfigNote {
	if kind == NoteRead {
		return append([]ConfigNote(nil), r.Read...)
	}
	var out []ConfigNote
	for _, n := range r.Notes {
		if n.Kind == kind {
			out = append(out, n)
		}
	}
	return out
}

// Clean reports whether nothing is unknown or not modelled (notes about
// keys other packages read do not count).
func (r ConfigReport) Clean() bool {
	for _, n := range r.Notes {
		if n.Kind != NoteElsewhere {
			return false
		}
	}
	return true
}

// String formats the report, one note per line ("" when empty).
func (r ConfigReport) String() string {
	var b strings.Builder
	for _, n := range r.Notes {
		b.WriteString(n.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// Err returns nil for a clean report and a *ConfigReportError otherwise:
// what a parser returns in strict mode.
func (r ConfigReport) Err(file string) error {
	if r.Clean() {
		return nil
	}
	return &ConfigReportError{File: file, Report: r}
}

// ConfigReportError is the strict-mode refusal of a configuration that has
// keys Berth does not model or does not know. It unwraps to
// berth.ErrInvalidArgument; Report holds every note, and Error names the
// first offending key.
type ConfigReportError struct {
	// File names the configuration ("capacity-scheduler.xml", ...).
	File string
	// Report is the full report.
	Report ConfigReport
}

// Error names the first offending note and counts the others.
func (e *ConfigReportError) Error() string {
	var bad []ConfigNote
	for _, n := range e.Report.Notes {
		if n.Kind != NoteElsewhere {
			bad = append(bad, n)
		}
	}
	if len(bad) == 0 {
		return e.File + ": strict mode: nothing to report"
	}
	msg := e.File + ": strict mode refuses " + bad[0].String()
	if len(bad) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(bad)-1)
	}
	return msg
}

// Unwrap gives the error kind.
func (e *ConfigReportError) Unwrap() error { return berth.ErrInvalidArgument }

// Closest returns the candidate nearest to key by edit distance (ties to
// the earlier candidate), or "" when none is within maxDist edits.
func Closest(key string, candidates []string, maxDist int) (string, int) {
	best, bestD := "", maxDist+1
	for _, c := range candidates {
		if d := EditDistance(key, c, bestD-1); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		return "", -1
	}
	return best, bestD
}

// SuggestLimit is how many edits a suggestion may be away from what was
// written: a third of its length, at least two.
func SuggestLimit(key string) int { return max(2, len(key)/3) }

// EditDistance is the Levenshtein distance between a and b (bytes), or a
// value above limit as soon as the distance is known to exceed it (limit <
// 0: no limit). The early exit keeps a search over many candidates cheap.
func EditDistance(a, b string, limit int) int {
	if limit >= 0 {
		if d := len(a) - len(b); d > limit || -d > limit {
			return limit + 1
		}
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if limit >= 0 && rowMin > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// ReadHadoopConf reads a Hadoop configuration file (capacity-scheduler.xml,
// yarn-site.xml: <configuration> with <property> name/value pairs) into
// properties; names and values are trimmed and a later property wins, as
// in Hadoop. A file that is not one is a *berth.FieldError naming
// "configuration", a nil r (typed nil included, [berth.CheckNotNil]) one
// naming "reader" (kind berth.ErrInvalidArgument).
func ReadHadoopConf(r io.Reader) (map[string]string, error) {
	if err := berth.CheckNotNil("reader", r); err != nil {
		return nil, err
	}
	var doc struct {
		XMLName    xml.Name `xml:"configuration"`
		Properties []struct {
			Name  string `xml:"name"`
			Value string `xml:"value"`
		} `xml:"property"`
	}
	if err := xml.NewDecoder(r).Decode(&doc); err != nil {
		return nil, &berth.FieldError{Field: "configuration", Reason: "not a Hadoop configuration file", Err: err}
	}
	props := make(map[string]string, len(doc.Properties))
	for _, p := range doc.Properties {
		props[strings.TrimSpace(p.Name)] = strings.TrimSpace(p.Value)
	}
	return props, nil
}
