package fair

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// Defaults of the allocation file (YARN's AllocationConfiguration).
const (
	// DefaultMaxAMShare is queueMaxAMShareDefault's default.
	DefaultMaxAMShare = 0.5
	// DefaultFairSharePreemptionThreshold is
	// defaultFairSharePreemptionThreshold's default.
	DefaultFairSharePreemptionThreshold = 0.5
	// NoTimeout is the "never" preemption timeout (Long.MAX_VALUE).
	NoTimeout berth.Duration = math.MaxInt64
	// Inherit marks a per-queue timeout or threshold that follows the parent.
	Inherit = -1
)

// AllocationFile is a parsed fair-scheduler.xml: the queue tree with each
// queue's settings as written, the per-user limits, the defaults that apply
// to everything the file does not set, and the placement policy. It is
// plain typed data; [ParseAllocationFile] builds it and [Scheduler.Reload]
// applies it.
type AllocationFile struct {
	// Root is the root queue; its Children are the top-level queues in
	// file order.
	Root QueueConfig
	// UserMaxApps holds per-user maxRunningApps from <user> elements.
	UserMaxApps map[string]int
	// UserMaxAppsDefault is userMaxAppsDefault (math.MaxInt32 when absent).
	UserMaxAppsDefault int
	// QueueMaxAppsDefault is queueMaxAppsDefault (math.MaxInt32).
	QueueMaxAppsDefault int
	// QueueMaxResourcesDefault is queueMaxResourcesDefault (unbounded).
	QueueMaxResourcesDefault ConfigurableResource
	// QueueMaxAMShareDefault is queueMaxAMShareDefault (0.5, clamped to 1).
	QueueMaxAMShareDefault float32
	// DefaultPolicy is defaultQueueSchedulingPolicy (fair; never FIFO).
	DefaultPolicy Policy
	// DefaultSchedulingPolicy, when set, is a host's policy named by
	// defaultQueueSchedulingPolicy through ParseOptions.Policies (or set in
	// Go); it takes precedence over DefaultPolicy.
	DefaultSchedulingPolicy SchedulingPolicy
	// DefaultMinSharePreemptionTimeout and DefaultFairSharePreemptionTimeout
	// are in milliseconds (the file gives seconds); NoTimeout when absent.
	DefaultMinSharePreemptionTimeout  berth.Duration // defaultMinSharePreemptionTimeout, ms
	DefaultFairSharePreemptionTimeout berth.Duration // defaultFairSharePreemptionTimeout, ms
	// DefaultFairSharePreemptionThreshold is in [0, 1] (0.5).
	DefaultFairSharePreemptionThreshold float32
	// Reservation holds the reservation settings every reservable queue
	// shares: the reservation-agent, reservation-policy and
	// reservation-planner elements over YARN's defaults, which the file
	// cannot change otherwise (YARN's fair scheduler reads no window,
	// average or instantaneous limit, enforcement window or move-on-expiry
	// from it; a host may set them here in Go). Nil when the file sets
	// none: YARN's defaults. The reservation ACLs are per queue
	// (QueueConfig); Reservation.ACLs is not used.
	Reservation *queue.ReservationSettings
	// Placement is the queuePlacementPolicy; nil means the implicit policy
	// built from the scheduler's Config.
	Placement *PlacementPolicy
}

// QueueConfig is one <queue> element. Pointer fields are nil when the
// element is absent, so that defaults and inheritance stay visible.
type QueueConfig struct {
	// Path is the full path, e.g. "root.a.b".
	Path string
	// Parent is true for type="parent" or a queue with child queues.
	Parent bool
	// MinResources is minResources (types not given are 0).
	MinResources *berth.Resource
	// MaxResources is maxResources (nil: queueMaxResourcesDefault).
	MaxResources *ConfigurableResource
	// MaxChildResources caps ad-hoc children created under this parent.
	MaxChildResources *ConfigurableResource
	// MaxContainerAllocation caps one container (nil: the parent's).
	MaxContainerAllocation *berth.Resource
	// MaxRunningApps (nil: queueMaxAppsDefault).
	MaxRunningApps *int
	// MaxAMShare, clamped to 1; -1 disables the check (nil: default).
	MaxAMShare *float32
	// Weight (nil: 1).
	Weight *float32
	// Policy is schedulingPolicy (nil: the default policy).
	Policy *Policy
	// SchedulingPolicy, when set, is a host's policy for this queue (a
	// registered schedulingPolicy name, or set in Go); it takes precedence
	// over Policy and the default.
	SchedulingPolicy SchedulingPolicy
	// SubmitACL and AdministerACL are aclSubmitApps and aclAdministerApps
	// (nil: root everyone, others nobody).
	SubmitACL, AdministerACL *queue.ACL
	// The reservation ACLs (nil when absent).
	AdministerReservationsACL, ListReservationsACL, SubmitReservationsACL *queue.ACL
	// MinSharePreemptionTimeout and FairSharePreemptionTimeout in ms (nil:
	// inherit); FairSharePreemptionThreshold in [0, 1] (nil: inherit).
	MinSharePreemptionTimeout, FairSharePreemptionTimeout *berth.Duration // ms; nil: inherit
	FairSharePreemptionThreshold                          *float32        // nil: inherit
	// AllowPreemptionFrom false makes the queue and its subtree
	// non-preemptable (nil: true).
	AllowPreemptionFrom *bool
	// Reservable marks a plan queue (<reservation/>); leaves only.
	Reservable bool
	// Children in file order.
	Children []QueueConfig
}

// QueueSettings are one queue's effective settings: the file's values with
// the file's defaults applied (inheritance of timeouts and thresholds is
// left to the scheduler, which knows the tree: they read Inherit here).
type QueueSettings struct {
	MinResources           berth.Resource        // minResources (zero when absent)
	MaxResources           ConfigurableResource  // maxResources or queueMaxResourcesDefault
	MaxChildResources      *ConfigurableResource // maxChildResources, nil when absent
	MaxContainerAllocation *berth.Resource       // nil: inherited from the parent
	MaxRunningApps         int                   // maxRunningApps or queueMaxAppsDefault
	MaxAMShare             float32               // maxAMShare or queueMaxAMShareDefault; -1 disables
	Weight                 float32               // weight (1)
	Policy                 Policy                // schedulingPolicy or the default policy
	SchedulingPolicy       SchedulingPolicy      // a host's policy; nil: Policy
	SubmitACL              queue.ACL             // aclSubmitApps (root: everyone, others: nobody)
	AdministerACL          queue.ACL             // aclAdministerApps (same defaults)

	MinSharePreemptionTimeout    berth.Duration // ms; Inherit when absent (root: the default)
	FairSharePreemptionTimeout   berth.Duration // ms; Inherit when absent (root: the default)
	FairSharePreemptionThreshold float32        // [0, 1]; Inherit when absent (root: the default)
	AllowPreemptionFrom          bool           // false: never preempt from this queue
	Reservable                   bool           // a plan queue
	// Configured is true when the file names the queue.
	Configured bool
}

// DefaultAllocationFile returns the configuration of an empty
// <allocations/> element.
func DefaultAllocationFile() *AllocationFile {
	return &AllocationFile{
		Root:                                QueueConfig{Path: queue.RootName, Parent: true},
		UserMaxApps:                         map[string]int{},
		UserMaxAppsDefault:                  math.MaxInt32,
		QueueMaxAppsDefault:                 math.MaxInt32,
		QueueMaxResourcesDefault:            UnboundedResource(),
		QueueMaxAMShareDefault:              DefaultMaxAMShare,
		DefaultPolicy:                       PolicyFair,
		DefaultMinSharePreemptionTimeout:    NoTimeout,
		DefaultFairSharePreemptionTimeout:   NoTimeout,
		DefaultFairSharePreemptionThreshold: DefaultFairSharePreemptionThreshold,
	}
}

// Queue returns the configuration of the queue at path, or nil when the
// file does not name it.
func (af *AllocationFile) Queue(path string) *QueueConfig {
	var find func(q *QueueConfig) *QueueConfig
	find = func(q *QueueConfig) *QueueConfig {
		if q.Path == path {
			return q
		}
		if !strings.HasPrefix(path, q.Path+".") {
			return nil
		}
		for i := range q.Children {
			if r := find(&q.Children[i]); r != nil {
				return r
			}
		}
		return nil
	}
	return find(&af.Root)
}

// UserMaxRunningApps returns the running-application limit of user.
func (af *AllocationFile) UserMaxRunningApps(user string) int {
	if n, ok := af.UserMaxApps[user]; ok {
		return n
	}
	return af.UserMaxAppsDefault
}

// Settings returns the effective settings of the queue at path (which need
// not be in the file: ad-hoc queues get the defaults).
func (af *AllocationFile) Settings(path string) QueueSettings {
	s := QueueSettings{
		MaxResources:                 af.QueueMaxResourcesDefault,
		MaxRunningApps:               af.QueueMaxAppsDefault,
		MaxAMShare:                   af.QueueMaxAMShareDefault,
		Weight:                       1,
		Policy:                       af.DefaultPolicy,
		SchedulingPolicy:             af.DefaultSchedulingPolicy,
		SubmitACL:                    queue.Nobody(),
		AdministerACL:                queue.Nobody(),
		MinSharePreemptionTimeout:    Inherit,
		FairSharePreemptionTimeout:   Inherit,
		FairSharePreemptionThreshold: Inherit,
		AllowPreemptionFrom:          true,
	}
	if path == queue.RootName {
		s.SubmitACL, s.AdministerACL = queue.Everyone(), queue.Everyone()
		s.MinSharePreemptionTimeout = af.DefaultMinSharePreemptionTimeout
		s.FairSharePreemptionTimeout = af.DefaultFairSharePreemptionTimeout
		s.FairSharePreemptionThreshold = af.DefaultFairSharePreemptionThreshold
	}
	q := af.Queue(path)
	if q == nil {
		return s
	}
	s.Configured = true
	if q.MinResources != nil {
		s.MinResources = *q.MinResources
	}
	if q.MaxResources != nil {
		s.MaxResources = *q.MaxResources
	}
	s.MaxChildResources = q.MaxChildResources
	s.MaxContainerAllocation = q.MaxContainerAllocation
	if q.MaxRunningApps != nil {
		s.MaxRunningApps = *q.MaxRunningApps
	}
	if q.MaxAMShare != nil {
		s.MaxAMShare = *q.MaxAMShare
	}
	if q.Weight != nil {
		s.Weight = *q.Weight
	}
	if q.Policy != nil {
		s.Policy, s.SchedulingPolicy = *q.Policy, nil
	}
	if q.SchedulingPolicy != nil {
		s.SchedulingPolicy = q.SchedulingPolicy
	}
	if q.SubmitACL != nil {
		s.SubmitACL = *q.SubmitACL
	}
	if q.AdministerACL != nil {
		s.AdministerACL = *q.AdministerACL
	}
	if q.MinSharePreemptionTimeout != nil {
		s.MinSharePreemptionTimeout = *q.MinSharePreemptionTimeout
	}
	if q.FairSharePreemptionTimeout != nil {
		s.FairSharePreemptionTimeout = *q.FairSharePreemptionTimeout
	}
	if q.FairSharePreemptionThreshold != nil {
		s.FairSharePreemptionThreshold = *q.FairSharePreemptionThreshold
	}
	if q.AllowPreemptionFrom != nil {
		s.AllowPreemptionFrom = *q.AllowPreemptionFrom
	}
	s.Reservable = q.Reservable
	return s
}

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

func (p *allocParser) parse(root *xnode) (*AllocationFile, error) {
	if root.name != "allocations" {
		return nil, fieldErr(root.name, root.name, "Bad fair scheduler config file: top-level element not <allocations>")
	}
	af := DefaultAllocationFile()
	var queues []*xnode
	var legacyFairTimeout *berth.Duration
	fairTimeoutSet := false
	for _, el := range root.children {
		text := strings.TrimSpace(el.text.String())
		var err error
		switch el.name {
		case "queue", "pool":
			queues = append(queues, el)
		case "user":
			name, _ := el.attr("name")
			p.checkAttrs("user["+name+"]", el, userAttrs)
			for _, c := range el.children {
				if c.name != "maxRunningApps" {
					p.unknown("user["+name+"]", c.name, strings.TrimSpace(c.text.String()), userElements)
					continue
				}
				v := strings.TrimSpace(c.text.String())
				n, perr := countElem("user["+name+"].maxRunningApps", v)
				if perr != nil {
					return nil, perr
				}
				af.UserMaxApps[name] = n
				p.read("user["+name+"].maxRunningApps", v)
			}
		case "userMaxAppsDefault":
			af.UserMaxAppsDefault, err = countElem(el.name, text)
		case "queueMaxAppsDefault":
			af.QueueMaxAppsDefault, err = countElem(el.name, text)
		case "queueMaxResourcesDefault":
			af.QueueMaxResourcesDefault, err = ParseResource(el.name, text, p.opts.ResourceTypes, math.MaxInt64)
		case "queueMaxAMShareDefault":
			af.QueueMaxAMShareDefault, err = amShareElem(el.name, text)
		case "defaultQueueSchedulingPolicy", "defaultQueueSchedulingMode":
			var pol Policy
			var custom SchedulingPolicy
			pol, custom, err = p.policyElem(el.name, text)
			if err == nil && (pol == PolicyFIFO || custom != nil && leafOnly(custom)) {
				err = fieldErr(el.name, text, "Bad fair scheduler config file: defaultQueueSchedulingPolicy or defaultQueueSchedulingMode can't be FIFO.")
			}
			af.DefaultPolicy, af.DefaultSchedulingPolicy = pol, custom
			if custom != nil {
				af.DefaultPolicy = PolicyFair
			}
		case "defaultMinSharePreemptionTimeout":
			af.DefaultMinSharePreemptionTimeout, err = secondsElem(el.name, text)
		case "defaultFairSharePreemptionTimeout":
			af.DefaultFairSharePreemptionTimeout, err = secondsElem(el.name, text)
			fairTimeoutSet = true
		case "fairSharePreemptionTimeout":
			var d berth.Duration
			d, err = secondsElem(el.name, text)
			legacyFairTimeout = &d
		case "defaultFairSharePreemptionThreshold":
			var f float32
			f, err = floatElem(el.name, text)
			af.DefaultFairSharePreemptionThreshold = clamp01(f)
		case "queuePlacementPolicy":
			var pol *PlacementPolicy
			pol, err = p.parsePlacementPolicy(el)
			if pol != nil {
				af.Placement = pol
			}
		case "reservation-agent", "reservation-policy", "reservation-planner":
			err = reservationElem(af, el.name, text)
		default:
			p.unknown("allocations", el.name, text, allocElements)
		}
		if err != nil {
			return nil, err
		}
		if el.name != "queue" && el.name != "pool" && slices.Contains(allocElements, el.name) {
			p.read("allocations."+el.name, text)
		}
	}
	if legacyFairTimeout != nil && !fairTimeoutSet {
		af.DefaultFairSharePreemptionTimeout = *legacyFairTimeout
	}
	// A top-level "root" queue must stand alone; its content is root's.
	for _, q := range queues {
		if name, _ := q.attr("name"); unicodeTrim(name) == queue.RootName && len(queues) > 1 {
			return nil, fieldErr("queue[root]", "root", "If configuring root queue, no other queues can be placed alongside it.")
		}
	}
	if len(queues) == 1 {
		if name, _ := queues[0].attr("name"); unicodeTrim(name) == queue.RootName {
			rc, err := p.parseQueue(queues[0], "", af)
			if err != nil {
				return nil, err
			}
			rc.Parent = true
			af.Root = rc
			return af, nil
		}
	}
	for _, q := range queues {
		c, err := p.parseQueue(q, queue.RootName, af)
		if err != nil {
			return nil, err
		}
		af.Root.Children = append(af.Root.Children, c)
	}
	return af, nil
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

// validateReservation checks the reservation settings a host may have
// set in Go (the parser's are valid).
func (af *AllocationFile) validateReservation() error {
	if af.Reservation == nil {
		return nil
	}
	return af.Reservation.Validate("allocations.")
}

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

// parseQueue reads one <queue> element below parentPath ("" for root).
func (p *allocParser) parseQueue(el *xnode, parentPath string, af *AllocationFile) (QueueConfig, error) {
	raw, _ := el.attr("name")
	name := unicodeTrim(raw)
	elemName := "queue.name"
	if parentPath != "" {
		elemName = "queue[" + parentPath + "].queue.name"
	}
	if strings.Contains(name, ".") {
		return QueueConfig{}, fieldErr(elemName, raw, "Bad fair scheduler config file: queue name ("+name+") shouldn't contain period.")
	}
	if name == "" {
		return QueueConfig{}, fieldErr(elemName, raw, "Bad fair scheduler config file: queue name shouldn't be empty or consist only of whitespace.")
	}
	if err := queue.ValidateName(name); err != nil {
		return QueueConfig{}, &berth.FieldError{Field: elemName, Value: raw, Reason: "invalid queue name", Err: err}
	}
	path := name
	if parentPath != "" {
		path = parentPath + "." + name
	}
	q := QueueConfig{Path: path}
	p.checkAttrs("queue["+path+"]", el, queueAttrs)
	if t, _ := el.attr("type"); t == "parent" {
		q.Parent = true
	}
	field := func(child string) string { return "queue[" + path + "]." + child }
	maxAMShareSet := false
	for _, c := range el.children {
		text := strings.TrimSpace(c.text.String())
		f := field(c.name)
		var err error
		switch c.name {
		case "minResources":
			var cr ConfigurableResource
			cr, err = ParseResource(f, text, p.opts.ResourceTypes, 0)
			if err == nil {
				r, ok := cr.Absolute()
				if !ok {
					err = fieldErr(f, text, "minResources must be absolute amounts, not percentages")
				}
				q.MinResources = &r
			}
		case "maxResources", "maxChildResources":
			var cr ConfigurableResource
			cr, err = ParseResource(f, text, p.opts.ResourceTypes, math.MaxInt64)
			if c.name == "maxResources" {
				q.MaxResources = &cr
			} else {
				q.MaxChildResources = &cr
			}
		case "maxContainerAllocation":
			var cr ConfigurableResource
			cr, err = ParseResource(f, text, p.opts.ResourceTypes, math.MaxInt64)
			if err == nil {
				r, ok := cr.Absolute()
				if !ok {
					err = fieldErr(f, text, "maxContainerAllocation must be absolute amounts, not percentages")
				}
				q.MaxContainerAllocation = &r
			}
		case "maxRunningApps":
			var n int
			n, err = countElem(f, text)
			q.MaxRunningApps = &n
		case "maxAMShare":
			var v float32
			v, err = amShareElem(f, text)
			q.MaxAMShare = &v
			maxAMShareSet = true
		case "weight":
			var v float32
			v, err = floatElem(f, text)
			if err == nil && v < 0 {
				err = fieldErr(f, text, "must not be negative")
			}
			q.Weight = &v
		case "minSharePreemptionTimeout", "fairSharePreemptionTimeout":
			var d berth.Duration
			d, err = secondsElem(f, text)
			if c.name == "minSharePreemptionTimeout" {
				q.MinSharePreemptionTimeout = &d
			} else {
				q.FairSharePreemptionTimeout = &d
			}
		case "fairSharePreemptionThreshold":
			var v float32
			v, err = floatElem(f, text)
			v = clamp01(v)
			q.FairSharePreemptionThreshold = &v
		case "schedulingPolicy", "schedulingMode":
			var pol Policy
			var custom SchedulingPolicy
			pol, custom, err = p.policyElem(f, text)
			if custom != nil {
				q.SchedulingPolicy = custom
			} else {
				q.Policy = &pol
			}
		case "aclSubmitApps", "aclAdministerApps", "aclAdministerReservations", "aclListReservations", "aclSubmitReservations":
			// ACL text is not trimmed as a whole: " " (nobody) is meaningful.
			acl := queue.ParseACL(c.text.String())
			switch c.name {
			case "aclSubmitApps":
				q.SubmitACL = &acl
			case "aclAdministerApps":
				q.AdministerACL = &acl
			case "aclAdministerReservations":
				q.AdministerReservationsACL = &acl
			case "aclListReservations":
				q.ListReservationsACL = &acl
			default:
				q.SubmitReservationsACL = &acl
			}
		case "reservation":
			q.Reservable = true
		case "allowPreemptionFrom":
			v := strings.EqualFold(text, "true")
			q.AllowPreemptionFrom = &v
		case "queue", "pool":
			var child QueueConfig
			child, err = p.parseQueue(c, path, af)
			q.Children = append(q.Children, child)
			q.Parent = true
		default:
			p.unknown("queue["+path+"]", c.name, text, queueElements)
		}
		if err != nil {
			return QueueConfig{}, err
		}
		if c.name != "queue" && c.name != "pool" && slices.Contains(queueElements, c.name) {
			p.read(f, text)
		}
	}
	if q.Parent && parentPath != "" {
		msg := "The configuration settings for " + path + " are invalid. A queue element that contains child queue elements or that has the type='parent' attribute cannot also include a %s element."
		if q.Reservable {
			return QueueConfig{}, fieldErr(field("reservation"), "", fmt.Sprintf(msg, "reservation"))
		}
		if maxAMShareSet {
			return QueueConfig{}, fieldErr(field("maxAMShare"), *q.MaxAMShare, fmt.Sprintf(msg, "maxAMShare"))
		}
	}
	return q, nil
}
