package capacity

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// maxQueueDepth bounds the queue tree read from a file, so that a hostile
// file cannot recurse without end.
const maxQueueDepth = 64

// ParseXML reads a capacity-scheduler.xml (Hadoop configuration format)
// into a validated Config. Keys are the `yarn.scheduler.capacity.*` ones,
// the reservation keys of each queue included (QueueSettings.Reservation),
// plus yarn.scheduler.minimum/maximum-allocation-mb/-vcores, the
// placement keys yarn.scheduler.queue-placement-rules[.app-name] and the
// ResourceManager's reservation-system keys (Config.ReservationSystem)
// when present; keys it does not model are ignored, as YARN ignores keys it
// does not know: [ParseXMLReport] says which. Every error is a
// *berth.FieldError whose Field is the offending key.
func ParseXML(r io.Reader) (Config, error) {
	cfg, _, err := ParseXMLReport(r, XMLOptions{})
	return cfg, err
}

// XMLOptions tune [ParseXMLReport].
type XMLOptions struct {
	// Strict refuses a file that has keys Berth does not model or that
	// nobody knows: the error is a *queue.ConfigReportError holding the
	// report (kind berth.ErrInvalidArgument).
	Strict bool
	// IgnoreLeafOrderingOnParents reads ordering-policy fifo or fair on a
	// parent queue as YARN 2.8 did (ignored, noted in the report) instead
	// of refusing the file as YARN 2.9 and later do.
	IgnoreLeafOrderingOnParents bool
	// NodeSortings are the host's multi-node sorting policies by class
	// name (multi-node-sorting.policy.<name>.class); the built-in
	// ResourceUsageMultiNodeLookupPolicy always resolves.
	NodeSortings *NodeSortings
	// AppOrderings and ChildOrderings are the host's ordering policies by
	// the name an ordering-policy key uses, for leaves and for parents; the
	// built-in names always win. A name neither built in nor registered is
	// a *berth.FieldError naming the key that also matches
	// *queue.UnknownNameError. Nil: the built-ins only.
	AppOrderings   *AppOrderings
	ChildOrderings *ChildOrderings
	// ReadFile reads the file mapping-rule-json-file names (without
	// inline rules); nil refuses such a file, as Berth reads no files
	// itself.
	ReadFile func(path string) ([]byte, error)
}

// ParseXMLReport is [ParseXML] with a report of what the file says that
// the typed Config does not carry: keys YARN knows that Berth does not
// model (auto-created queues, lifetimes, per-queue maximum allocations,
// …), each with what Berth does instead; keys neither knows, with the
// closest known key as a suggestion; and keys another package reads (the
// preemption policy's). Notes are in key order; the report's Read lists
// the keys read into the typed Config, with their values, the reservation
// keys of the queues and of the ResourceManager included. The report is
// returned with the error of a file that fails to parse only when the
// failure is the strict mode's.
func ParseXMLReport(r io.Reader, opts XMLOptions) (Config, queue.ConfigReport, error) {
	props, err := queue.ReadHadoopConf(r)
	if err != nil {
		return Config{}, queue.ConfigReport{}, err
	}
	cfg, notes, err := parsePropsNotes(props, opts)
	if err != nil {
		return Config{}, queue.ConfigReport{}, err
	}
	var paths []string
	var walk func(q QueueConfig, path string)
	walk = func(q QueueConfig, path string) {
		paths = append(paths, path)
		for _, c := range q.Children {
			walk(c, path+"."+c.Name)
		}
	}
	walk(cfg.Root, "root")
	slices.Sort(paths)
	rep := classifyKeys(props, paths)
	for _, n := range notes {
		rep.Add(n)
	}
	rep.Sort()
	if opts.Strict {
		if err := rep.Err("capacity-scheduler.xml"); err != nil {
			return Config{}, rep, err
		}
	}
	return cfg, rep, nil
}

func parseProps(props map[string]string) (Config, error) {
	return parsePropsWith(props, XMLOptions{})
}

func parsePropsWith(props map[string]string, opts XMLOptions) (Config, error) {
	cfg, _, err := parsePropsNotes(props, opts)
	return cfg, err
}

// parsePropsNotes parses and returns what the parse itself notes.
func parsePropsNotes(props map[string]string, opts XMLOptions) (Config, []queue.ConfigNote, error) {
	p := parser{props: props, opts: opts, labelKeys: indexLabelKeys(props), named: map[string]bool{}}
	cfg, err := p.parse()
	return cfg, p.notes, err
}

func (p *parser) parse() (Config, error) {
	props := p.props
	p.indexWeights()
	cfg := DefaultConfig()
	p.int(prefix+"maximum-applications", &cfg.MaximumApplications)
	p.int(prefix+"global-queue-max-application", &cfg.GlobalQueueMaxApplications)
	p.float(prefix+"maximum-am-resource-percent", &cfg.MaximumAMResourcePercent)
	p.int(prefix+"node-locality-delay", &cfg.NodeLocalityDelay)
	p.int(prefix+"rack-locality-additional-delay", &cfg.RackLocalityAdditionalDelay)
	p.bool(prefix+"rack-locality-full-reset", &cfg.RackLocalityFullReset)
	p.int(prefix+"per-node-heartbeat.maximum-offswitch-assignments", &cfg.MaxOffSwitchAssignments)
	p.bool(prefix+"per-node-heartbeat.multiple-assignments-enabled", &cfg.MultipleAssignments)
	p.int(prefix+"per-node-heartbeat.maximum-container-assignments", &cfg.MaxContainerAssignments)
	p.bool(prefix+"reservations-continue-look-all-nodes", &cfg.ContinueLooking)
	if v, ok := props[prefix+"resource-calculator"]; ok && p.err == nil {
		switch {
		case strings.HasSuffix(v, "DominantResourceCalculator"):
			cfg.Calculator = berth.DominantCalculator{}
		case strings.HasSuffix(v, "DefaultResourceCalculator"):
			cfg.Calculator = berth.MemoryCalculator{}
		default:
			p.fail(prefix+"resource-calculator", v, "unknown resource calculator")
		}
	}
	p.int64("yarn.scheduler.minimum-allocation-mb", &cfg.MinAllocation.Memory)
	p.int64("yarn.scheduler.minimum-allocation-vcores", &cfg.MinAllocation.VCores)
	p.int64("yarn.scheduler.maximum-allocation-mb", &cfg.MaxAllocation.Memory)
	p.int64("yarn.scheduler.maximum-allocation-vcores", &cfg.MaxAllocation.VCores)
	p.placement(&cfg.Placement)
	if p.err == nil {
		cfg.ReservationSystem, p.err = queue.ParseReservationSystem(props)
	}
	p.globalFeatures(&cfg)
	if p.err != nil {
		return Config{}, p.err
	}
	if _, ok := props[prefix+"root.queues"]; !ok {
		return Config{}, berth.InvalidField(prefix+"root.queues", nil, "Queue configuration missing child queue names for root")
	}
	cfg.Root = p.queue("root", "root", 0)
	if p.err != nil {
		return Config{}, p.err
	}
	cfg.NodeLabels = namedLabels(p.named)
	if err := cfg.validateGlobal(); err != nil {
		return Config{}, err
	}
	if _, err := queue.New(treeConfig(cfg.Root)); err != nil {
		return Config{}, keyError(err)
	}
	if err := cfg.Placement.validate(newConfigIndex(cfg.Root)); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// placement reads the queue mappings, the app-name mappings, their
// override switch and the order of the placement rules.
func (p *parser) placement(dst *Placement) {
	p.bool(mappingsOverrideKey, &dst.Override)
	if v, ok := p.get(queueMappingsKey); ok {
		ms, err := ParseQueueMappings(v)
		if err != nil && p.err == nil {
			p.err = err
		}
		dst.Mappings = ms
	}
	if v, ok := p.get(appNameMappingsKey); ok {
		ms, err := ParseAppNameMappings(v)
		if err != nil && p.err == nil {
			p.err = err
		}
		dst.AppMappings = ms
	}
	if v, ok := p.get(queuePlacementRulesKey); ok {
		rules, err := ParsePlacementRules(v)
		if err != nil && p.err == nil {
			p.err = err
		}
		dst.Rules = rules
	}
}

// parser reads typed values from the properties; the first error sticks.
type parser struct {
	props   map[string]string
	weights map[string][]string // queue path → its user-settings.<u>.weight keys
	// labelKeys and named: the per-label keys (labels.go) and the labels
	// the file names
	labelKeys labelKeys
	named     map[string]bool
	err       error
	opts      XMLOptions
	notes     []queue.ConfigNote // what the parse itself reports (xml_features.go)
}

// indexWeights finds the per-user weight keys once, so that reading a
// queue does not scan every property.
func (p *parser) indexWeights() {
	p.weights = map[string][]string{}
	for _, k := range sortedKeys(p.props) {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		path, tail, ok := strings.Cut(rest, ".user-settings.")
		if !ok || !strings.HasSuffix(tail, ".weight") {
			continue
		}
		if u := strings.TrimSuffix(tail, ".weight"); u != "" && !strings.Contains(u, ".") {
			p.weights[path] = append(p.weights[path], k)
		}
	}
}

func (p *parser) fail(key, v, reason string) {
	if p.err == nil {
		p.err = berth.InvalidField(key, v, reason)
	}
}

// customOrdering resolves a host's ordering policy: a leaf's application
// ordering or a parent's child ordering, by name.
func (p *parser) customOrdering(key, v string, leaf bool, st *QueueSettings) {
	var known []string
	kind := "application ordering policy"
	if leaf {
		if pol, ok := p.opts.AppOrderings.Lookup(v); ok && pol != nil {
			st.AppOrderingPolicy = pol
			return
		}
		known = p.opts.AppOrderings.Names()
	} else {
		kind = "queue ordering policy"
		if pol, ok := p.opts.ChildOrderings.Lookup(v); ok && pol != nil {
			st.ChildOrderingPolicy = pol
			return
		}
		known = p.opts.ChildOrderings.Names()
	}
	if p.err == nil {
		p.err = &berth.FieldError{Field: key, Value: v, Reason: "unknown ordering policy",
			Err: &queue.UnknownNameError{Field: key, Kind: kind, Name: v, Known: known}}
	}
}

func (p *parser) get(key string) (string, bool) {
	if p.err != nil {
		return "", false
	}
	v, ok := p.props[key]
	return v, ok
}

func (p *parser) int(key string, dst *int) {
	if v, ok := p.get(key); ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			p.fail(key, v, "not an integer")
			return
		}
		*dst = n
	}
}

func (p *parser) int64(key string, dst *int64) {
	if v, ok := p.get(key); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			p.fail(key, v, "not an integer")
			return
		}
		*dst = n
	}
}

func (p *parser) float(key string, dst *float64) {
	if v, ok := p.get(key); ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || bad(f) {
			p.fail(key, v, "not a number")
			return
		}
		*dst = f
	}
}

func (p *parser) float32(key string, dst *float32) {
	if v, ok := p.get(key); ok {
		f, err := strconv.ParseFloat(v, 32)
		if err != nil || bad(f) {
			p.fail(key, v, "not a number")
			return
		}
		*dst = float32(f)
	}
}

func (p *parser) string(key string, dst *string) {
	if v, ok := p.get(key); ok {
		*dst = v
	}
}

func (p *parser) bool(key string, dst *bool) {
	if v, ok := p.get(key); ok {
		switch strings.ToLower(v) {
		case "true":
			*dst = true
		case "false":
			*dst = false
		default:
			p.fail(key, v, "not a boolean")
		}
	}
}

// capacity reads a percentage or an absolute "[memory=…,vcores=…]" value.
func (p *parser) capacity(key string, max bool) queue.Capacity {
	v, ok := p.get(key)
	if !ok {
		return queue.Capacity{}
	}
	if w, ok := strings.CutSuffix(v, "w"); ok && !max {
		// A weight (YARN 3.4); the root's capacity is 100 whatever it says.
		f, err := strconv.ParseFloat(w, 32)
		if err != nil || bad(f) {
			p.fail(key, v, "not a weight")
			return queue.Capacity{}
		}
		if strings.HasPrefix(key, prefix+"root.capacity") && key == prefix+"root.capacity" {
			return queue.Capacity{}
		}
		return queue.Weight(float32(f))
	}
	if strings.HasPrefix(v, "[") {
		r, err := parseAbsolute(v)
		if err != nil {
			p.fail(key, v, err.Error())
			return queue.Capacity{}
		}
		return queue.Absolute(r)
	}
	f, err := strconv.ParseFloat(v, 32)
	if err != nil || bad(f) {
		p.fail(key, v, "not a number")
		return queue.Capacity{}
	}
	if max && f == -1 {
		return queue.Capacity{} // YARN's "undefined": 100%
	}
	return queue.Percent(float32(f))
}

// parseAbsolute reads "[memory=10240,vcores=10]" (memory in MB; extra
// resource types by name).
func parseAbsolute(v string) (berth.Resource, error) {
	if !strings.HasSuffix(v, "]") {
		return berth.Resource{}, fmt.Errorf("absolute resource must be [name=value,...]")
	}
	var r berth.Resource
	body := strings.TrimSpace(v[1 : len(v)-1])
	if body == "" {
		return r, fmt.Errorf("empty absolute resource")
	}
	for _, part := range strings.Split(body, ",") {
		name, val, ok := strings.Cut(part, "=")
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		if !ok || name == "" {
			return r, fmt.Errorf("bad resource entry %q", part)
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(val, "Mi"), 10, 64)
		if err != nil || n < 0 {
			return r, fmt.Errorf("bad amount for %s", name)
		}
		switch name {
		case "memory", "memory-mb":
			r.Memory = n
		case "vcores":
			r.VCores = n
		default:
			r = r.With(name, n)
		}
	}
	return r, nil
}

// queue reads the queue at path and, recursively, its children.
func (p *parser) queue(name, path string, depth int) QueueConfig {
	key := prefix + path + "."
	q := QueueConfig{Name: name, Settings: DefaultSettings()}
	if depth > maxQueueDepth {
		p.fail(key+"queues", "", "queue tree too deep")
		return q
	}
	q.Capacity = p.capacity(key+"capacity", false)
	if path == "root" && q.Capacity.Kind == queue.CapacityUnset {
		q.Capacity = queue.Percent(100)
	}
	q.MaxCapacity = p.capacity(key+"maximum-capacity", true)
	st := &q.Settings
	p.float(key+"user-limit-factor", &st.UserLimitFactor)
	p.float(key+"minimum-user-limit-percent", &st.MinUserLimitPercent)
	p.int(key+"maximum-applications", &st.MaxApplications)
	p.float(key+"maximum-am-resource-percent", &st.MaxAMResourcePercent)
	if st.MaxAMResourcePercent < 0 && p.props[key+"maximum-am-resource-percent"] != "" {
		// Negative is Berth's "use the system value" in Go; written in
		// the file it has no meaning in YARN.
		p.fail(key+"maximum-am-resource-percent", p.props[key+"maximum-am-resource-percent"], "must be in [0, 1]")
	}
	p.labels(key, path, st, p.named)
	p.int(key+"priority", &st.Priority)
	p.bool(key+"ordering-policy.fair.enable-size-based-weight", &st.FairSizeBasedWeight)
	p.bool(key+"reservable", &q.Reservable)
	st.Reservation = p.reservation(key)
	if v, ok := p.get(key + "state"); ok {
		switch strings.ToUpper(v) {
		case "RUNNING":
			q.State = queue.StateRunning
		case "STOPPED":
			q.State = queue.StateStopped
		default:
			p.fail(key+"state", v, "Invalid queue state configuration. We can only use RUNNING or STOPPED.")
		}
	}
	for _, acl := range []struct {
		k   string
		dst **queue.ACL
	}{{"acl_submit_applications", &q.SubmitACL}, {"acl_administer_queue", &q.AdminACL}} {
		if v, ok := p.props[key+acl.k]; ok {
			a := queue.ParseACL(v)
			*acl.dst = &a
		}
	}
	for _, k := range p.weights[path] {
		u := strings.TrimSuffix(k[len(key+"user-settings."):], ".weight")
		var w float64
		p.float(k, &w)
		if st.UserWeights == nil {
			st.UserWeights = map[string]float64{}
		}
		st.UserWeights[u] = w
	}
	children := splitList(p.props[key+"queues"])
	leaf := len(children) == 0 && !p.managedParent(key)
	if v, ok := p.get(key + "ordering-policy"); ok {
		p.orderingPolicy(key+"ordering-policy", strings.TrimSpace(v), leaf, st)
	}
	p.queueFeatures(key, path, &q, depth)
	seen := make(map[string]bool, len(children))
	for _, c := range children {
		if p.err != nil {
			break
		}
		if seen[c] {
			// Refuse here: re-reading the same subtree twice per level
			// would make the parse exponential.
			p.fail(key+"queues", c, "duplicate child queue name")
			break
		}
		seen[c] = true
		if err := queue.ValidateName(c); err != nil {
			p.fail(key+"queues", c, "invalid queue name")
			break
		}
		q.Children = append(q.Children, p.queue(c, path+"."+c, depth+1))
	}
	return q
}

// reservationKeys are the per-queue reservation keys, after the queue's
// prefix; a queue that sets none keeps nil settings (YARN's defaults).
var reservationKeys = []string{"reservation-window", "average-capacity", "instantaneous-max-capacity",
	"reservation-agent", "reservation-policy", "reservation-planner", "reservation-enforcement-window",
	"show-reservations-as-queues", "reservation-move-on-expiry",
	"acl_submit_reservations", "acl_list_reservations", "acl_administer_reservations"}

// reservation reads the queue's reservation settings (YARN's
// CapacitySchedulerConfiguration getters), nil when it sets none.
func (p *parser) reservation(key string) *queue.ReservationSettings {
	set := false
	for _, k := range reservationKeys {
		if _, ok := p.props[key+k]; ok {
			set = true
			break
		}
	}
	if !set {
		return nil
	}
	r := queue.DefaultReservationSettings()
	p.int64(key+"reservation-window", &r.Window)
	p.float32(key+"average-capacity", &r.AveragePercent)
	p.float32(key+"instantaneous-max-capacity", &r.InstantaneousMaxPercent)
	p.string(key+"reservation-agent", &r.Agent)
	p.string(key+"reservation-policy", &r.Policy)
	p.string(key+"reservation-planner", &r.Planner)
	p.int64(key+"reservation-enforcement-window", &r.EnforcementWindow)
	p.bool(key+"show-reservations-as-queues", &r.ShowAsQueues)
	p.bool(key+"reservation-move-on-expiry", &r.MoveOnExpiry)
	acls := queue.AllowAllReservations()
	aclSet := false
	for _, a := range []struct {
		k   string
		dst *queue.ACL
	}{{"acl_submit_reservations", &acls.Submit}, {"acl_list_reservations", &acls.List}, {"acl_administer_reservations", &acls.Administer}} {
		if v, ok := p.get(key + a.k); ok {
			*a.dst, aclSet = queue.ParseACL(v), true
		}
	}
	if aclSet {
		r.ACLs = &acls
	}
	return &r
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
