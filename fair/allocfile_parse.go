package fair

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// fair-scheduler.xml's parser: the entry points, the XML tree, the report
// of what YARN would ignore, and the value parsers the element decoders
// share (allocfile_defaults.go reads <allocations>' own elements,
// allocfile_queue.go each <queue>).

// ParseOptions tell the parser about the cluster's configuration.
type ParseOptions struct {
	// ResourceTypes are the configured extended resource types, in order;
	// new-style resource strings may name them.
	ResourceTypes []string
	// Strict refuses a file with elements or attributes the fair
	// scheduler does not know (YARN ignores them): the error is a
	// *queue.ConfigReportError holding the report.
	Strict bool
	// Rules are the host's placement rules, by the name a <rule name="…">
	// uses; a name neither built in nor registered is a
	// *queue.UnknownNameError. Nil: the built-ins only.
	Rules *queue.Registry[Rule]
	// Policies are the host's scheduling policies, by the name a
	// <schedulingPolicy> or <defaultQueueSchedulingPolicy> uses; the
	// built-in names (fair, fifo, drf and YARN's class names) always win.
	// A name neither built in nor registered is a *berth.FieldError that
	// also matches *queue.UnknownNameError. Nil: the built-ins only.
	Policies *queue.Registry[SchedulingPolicy]
}

// xnode is a parsed XML element: the DOM subset the allocation file needs.
type xnode struct {
	name     string
	attrs    map[string]string
	children []*xnode
	text     strings.Builder
}

func (n *xnode) attr(name string) (string, bool) {
	v, ok := n.attrs[name]
	return v, ok
}

// parseXML reads a document into an element tree.
func parseXML(r io.Reader) (*xnode, error) {
	dec := xml.NewDecoder(r)
	var stack []*xnode
	var root *xnode
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, berth.InvalidField("allocations", "", "malformed XML: "+err.Error())
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &xnode{name: t.Name.Local, attrs: map[string]string{}}
			for _, a := range t.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			} else if root == nil {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text.Write(t)
			}
		}
	}
	if root == nil {
		return nil, berth.InvalidField("allocations", "", "Bad fair scheduler config file: no top-level element")
	}
	return root, nil
}

// allocParser carries the options and collects the report.
type allocParser struct {
	opts ParseOptions
	rep  queue.ConfigReport
}

// The elements and attributes YARN's allocation file parser reads, per
// context: anything else is reported as unknown, with the closest of
// these as a suggestion. Berth models all of them.
var (
	allocElements = []string{"queue", "pool", "user", "userMaxAppsDefault", "queueMaxAppsDefault",
		"queueMaxResourcesDefault", "queueMaxAMShareDefault", "defaultQueueSchedulingPolicy",
		"defaultQueueSchedulingMode", "defaultMinSharePreemptionTimeout", "defaultFairSharePreemptionTimeout",
		"fairSharePreemptionTimeout", "defaultFairSharePreemptionThreshold", "queuePlacementPolicy",
		"reservation-agent", "reservation-policy", "reservation-planner"}
	queueElements = []string{"minResources", "maxResources", "maxChildResources", "maxContainerAllocation",
		"maxRunningApps", "maxAMShare", "weight", "minSharePreemptionTimeout", "fairSharePreemptionTimeout",
		"fairSharePreemptionThreshold", "schedulingPolicy", "schedulingMode", "aclSubmitApps",
		"aclAdministerApps", "aclAdministerReservations", "aclListReservations", "aclSubmitReservations",
		"reservation", "allowPreemptionFrom", "queue", "pool"}
	userElements   = []string{"maxRunningApps"}
	queueAttrs     = []string{"name", "type"}
	userAttrs      = []string{"name"}
	ruleAttrs      = []string{"name", "create", "queue"}
	placementElems = []string{"rule"}
)

// unknown reports an element (or attribute, named "@attr") that YARN
// ignores, under the field path at.
func (p *allocParser) unknown(at, name, value string, known []string) {
	key := name
	if at != "" {
		key = at + "." + name
	}
	sug, _ := queue.Closest(name, known, queue.SuggestLimit(name))
	if sug != "" && at != "" {
		sug = at + "." + sug
	}
	p.rep.Add(queue.ConfigNote{Kind: queue.NoteUnknown, Key: key, Value: value, Suggestion: sug})
}

// read lists an element the parser read into the typed file.
func (p *allocParser) read(key, value string) {
	p.rep.Add(queue.ConfigNote{Kind: queue.NoteRead, Key: key, Value: value})
}

// checkAttrs reports the attributes of el that are not in known.
func (p *allocParser) checkAttrs(at string, el *xnode, known []string) {
	for _, a := range sortedAttrs(el) {
		if !slices.Contains(known, a) {
			p.unknown(at, "@"+a, el.attrs[a], prefixAll("@", known))
		}
	}
}

func sortedAttrs(el *xnode) []string {
	out := make([]string, 0, len(el.attrs))
	for a := range el.attrs {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

func prefixAll(p string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = p + x
	}
	return out
}

// fieldErr names an element (its path in the file) and its value.
func fieldErr(elem string, value any, reason string) error {
	return berth.InvalidField(elem, value, reason)
}

// policyElem reads a scheduling policy name: a built-in, else a host's
// registered policy, else a typed error naming the element.
func (p *allocParser) policyElem(field, text string) (Policy, SchedulingPolicy, error) {
	pol, err := ParsePolicy(text)
	if err == nil {
		return pol, nil, nil
	}
	name := strings.TrimSpace(text)
	if c, ok := p.opts.Policies.Lookup(name); ok && c != nil {
		return 0, c, nil
	}
	return 0, nil, &berth.FieldError{Field: field, Value: text, Reason: text + " SchedulingPolicy class not found!",
		Err: &queue.UnknownNameError{Field: field, Kind: "scheduling policy", Name: name, Known: p.opts.Policies.Names()}}
}

// ParseAllocationFile parses YARN's fair-scheduler.xml. It is all or
// nothing: any error returns a nil file and a *berth.FieldError (kind
// berth.ErrInvalidArgument) whose Field names the offending element, e.g.
// "queue[root.a].weight", and whose Value is the offending text.
//
// With opts.Strict, a file with elements or attributes YARN's parser does
// not read is refused (see [ParseAllocationFileReport]).
func ParseAllocationFile(data []byte, opts ParseOptions) (*AllocationFile, error) {
	af, _, err := ParseAllocationFileReport(data, opts)
	return af, err
}

// ParseAllocationFileReport is [ParseAllocationFile] with a report of
// what the file says that the typed AllocationFile does not carry: the
// elements and attributes YARN's parser ignores (it logs "Bad element"),
// with the closest known name as a suggestion (a typo is the usual
// cause). Every element YARN reads is modelled, so the report has no
// not-modelled entries. Keys read "queue[root.a].wieght",
// "allocations.userMaxAppDefault", "queue[root.a].@typ". The report's
// Read lists the elements read, with their text, in the same spelling
// ("allocations.reservation-agent", "queue[root.a].reservation").
func ParseAllocationFileReport(data []byte, opts ParseOptions) (*AllocationFile, queue.ConfigReport, error) {
	root, err := parseXML(bytes.NewReader(data))
	if err != nil {
		return nil, queue.ConfigReport{}, err
	}
	p := &allocParser{opts: opts}
	af, err := p.parse(root)
	if err != nil {
		return nil, queue.ConfigReport{}, err
	}
	p.rep.Sort()
	if opts.Strict {
		if err := p.rep.Err("fair-scheduler.xml"); err != nil {
			return nil, p.rep, err
		}
	}
	return af, p.rep, nil
}

// unicodeTrim strips leading and trailing Unicode white space (YARN trims
// queue names with a Unicode-aware trim, so "\u00a0" is empty).
func unicodeTrim(s string) string { return strings.TrimFunc(s, unicode.IsSpace) }

func parseInt32(s string) (int, error) {
	n, err := strconv.ParseInt(s, 10, 32)
	return int(n), err
}

// countElem parses a count of applications: a non-negative 32-bit
// integer (YARN reads any int; a negative limit means nothing there but
// "no application may run", so it is refused as a mistake).
func countElem(elem, text string) (int, error) {
	n, err := parseInt32(text)
	if err != nil {
		return 0, fieldErr(elem, text, "must be a 32-bit integer")
	}
	if n < 0 {
		return 0, fieldErr(elem, text, "must not be negative")
	}
	return n, nil
}

// amShareElem parses maxAMShare and queueMaxAMShareDefault: a fraction
// (above 1 counts as 1, as in YARN) or -1, YARN's "no AM limit".
func amShareElem(elem, text string) (float32, error) {
	f, err := floatElem(elem, text)
	if err != nil {
		return 0, err
	}
	if math.Abs(float64(f)+1) < 0.0001 {
		return -1, nil
	}
	if f < 0 {
		return 0, fieldErr(elem, text, "must be in [0, 1], or -1 for no limit")
	}
	return min(f, 1), nil
}

// floatElem parses a Java float (single precision; NaN and infinities are
// refused).
func floatElem(elem, text string) (float32, error) {
	f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSuffix(text, "f"), "F"), 32)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fieldErr(elem, text, "must be a finite number")
	}
	return float32(f), nil
}

// secondsElem parses seconds and returns milliseconds. Negative timeouts
// are refused: YARN would preempt at once (its "inherit" sentinel is -1
// ms, which no whole number of seconds in the file produces).
func secondsElem(elem, text string) (berth.Duration, error) {
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, fieldErr(elem, text, "must be an integer number of seconds")
	}
	if n < 0 {
		return 0, fieldErr(elem, text, "must not be negative")
	}
	if n > math.MaxInt64/1000 || n < math.MinInt64/1000 {
		return 0, fieldErr(elem, text, "overflows when converted to milliseconds")
	}
	return n * 1000, nil
}

func clamp01(f float32) float32 { return max(0, min(f, 1)) }

// reservationElem reads a global reservation-agent, reservation-policy or
// reservation-planner element over YARN's defaults.
func reservationElem(af *AllocationFile, elem, text string) error {
	if text == "" {
		return fieldErr(elem, text, "must name a class")
	}
	if af.Reservation == nil {
		r := queue.DefaultReservationSettings()
		af.Reservation = &r
	}
	switch elem {
	case "reservation-agent":
		af.Reservation.Agent = text
	case "reservation-policy":
		af.Reservation.Policy = text
	default:
		af.Reservation.Planner = text
	}
	return nil
}
