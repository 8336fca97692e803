package fair

import (
	"math"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// allocDecoders read the top-level elements of <allocations>, one decoder
// per element name YARN's AllocationFileLoaderService reads; allocElements
// lists the same names for suggestions.
var allocDecoders = map[string]func(*allocBuild, *xnode, string) error{
	"queue":                               (*allocBuild).queue,
	"pool":                                (*allocBuild).queue,
	"user":                                (*allocBuild).user,
	"userMaxAppsDefault":                  (*allocBuild).userMaxAppsDefault,
	"queueMaxAppsDefault":                 (*allocBuild).queueMaxAppsDefault,
	"queueMaxResourcesDefault":            (*allocBuild).queueMaxResourcesDefault,
	"queueMaxAMShareDefault":              (*allocBuild).queueMaxAMShareDefault,
	"defaultQueueSchedulingPolicy":        (*allocBuild).defaultPolicy,
	"defaultQueueSchedulingMode":          (*allocBuild).defaultPolicy,
	"defaultMinSharePreemptionTimeout":    (*allocBuild).defaultMinShareTimeout,
	"defaultFairSharePreemptionTimeout":   (*allocBuild).defaultFairShareTimeout,
	"fairSharePreemptionTimeout":          (*allocBuild).legacyFairShareTimeout,
	"defaultFairSharePreemptionThreshold": (*allocBuild).defaultFairShareThreshold,
	"queuePlacementPolicy":                (*allocBuild).placementPolicy,
	"reservation-agent":                   (*allocBuild).reservation,
	"reservation-policy":                  (*allocBuild).reservation,
	"reservation-planner":                 (*allocBuild).reservation,
}

// allocBuild is the file being read from <allocations>: the settings read
// so far and the <queue> elements, read once the defaults are known.
type allocBuild struct {
	p      *allocParser
	af     *AllocationFile
	queues []*xnode
	// legacyFairTimeout is fairSharePreemptionTimeout, YARN's old name of
	// defaultFairSharePreemptionTimeout, which wins when both are set.
	legacyFairTimeout *berth.Duration
	fairTimeoutSet    bool
}

// parse decodes <allocations>: each element by its decoder, in file
// order, then the queues.
func (p *allocParser) parse(root *xnode) (*AllocationFile, error) {
	if root.name != "allocations" {
		return nil, fieldErr(root.name, root.name, "Bad fair scheduler config file: top-level element not <allocations>")
	}
	b := &allocBuild{p: p, af: DefaultAllocationFile()}
	for _, el := range root.children {
		text := strings.TrimSpace(el.text.String())
		decode, ok := allocDecoders[el.name]
		if !ok {
			p.unknown("allocations", el.name, text, allocElements)
			continue
		}
		if err := decode(b, el, text); err != nil {
			return nil, err
		}
		if el.name != "queue" && el.name != "pool" {
			p.read("allocations."+el.name, text)
		}
	}
	if b.legacyFairTimeout != nil && !b.fairTimeoutSet {
		b.af.DefaultFairSharePreemptionTimeout = *b.legacyFairTimeout
	}
	if err := b.parseQueues(); err != nil {
		return nil, err
	}
	return b.af, nil
}

// parseQueues reads the top-level <queue> elements under root. A
// top-level "root" queue must stand alone; its content is root's.
func (b *allocBuild) parseQueues() error {
	for _, q := range b.queues {
		if name, _ := q.attr("name"); unicodeTrim(name) == queue.RootName && len(b.queues) > 1 {
			return fieldErr("queue[root]", "root", "If configuring root queue, no other queues can be placed alongside it.")
		}
	}
	if len(b.queues) == 1 {
		if name, _ := b.queues[0].attr("name"); unicodeTrim(name) == queue.RootName {
			root, err := b.p.parseQueue(b.queues[0], "")
			if err != nil {
				return err
			}
			root.Parent = true
			b.af.Root = root
			return nil
		}
	}
	for _, q := range b.queues {
		c, err := b.p.parseQueue(q, queue.RootName)
		if err != nil {
			return err
		}
		b.af.Root.Children = append(b.af.Root.Children, c)
	}
	return nil
}

func (b *allocBuild) queue(el *xnode, _ string) error {
	b.queues = append(b.queues, el)
	return nil
}

// user reads <user name="…"><maxRunningApps>.
func (b *allocBuild) user(el *xnode, _ string) error {
	name, _ := el.attr("name")
	at := "user[" + name + "]"
	b.p.checkAttrs(at, el, userAttrs)
	for _, c := range el.children {
		v := strings.TrimSpace(c.text.String())
		if c.name != "maxRunningApps" {
			b.p.unknown(at, c.name, v, userElements)
			continue
		}
		n, err := countElem(at+".maxRunningApps", v)
		if err != nil {
			return err
		}
		b.af.UserMaxApps[name] = n
		b.p.read(at+".maxRunningApps", v)
	}
	return nil
}

func (b *allocBuild) userMaxAppsDefault(el *xnode, text string) (err error) {
	b.af.UserMaxAppsDefault, err = countElem(el.name, text)
	return err
}

func (b *allocBuild) queueMaxAppsDefault(el *xnode, text string) (err error) {
	b.af.QueueMaxAppsDefault, err = countElem(el.name, text)
	return err
}

func (b *allocBuild) queueMaxResourcesDefault(el *xnode, text string) (err error) {
	b.af.QueueMaxResourcesDefault, err = ParseResource(el.name, text, b.p.opts.ResourceTypes, math.MaxInt64)
	return err
}

func (b *allocBuild) queueMaxAMShareDefault(el *xnode, text string) (err error) {
	b.af.QueueMaxAMShareDefault, err = amShareElem(el.name, text)
	return err
}

// defaultPolicy reads defaultQueueSchedulingPolicy (or its old name
// defaultQueueSchedulingMode): any policy a parent may have, so not FIFO.
func (b *allocBuild) defaultPolicy(el *xnode, text string) error {
	pol, custom, err := b.p.policyElem(el.name, text)
	if err == nil && (pol == PolicyFIFO || custom != nil && leafOnly(custom)) {
		err = fieldErr(el.name, text, "Bad fair scheduler config file: defaultQueueSchedulingPolicy or defaultQueueSchedulingMode can't be FIFO.")
	}
	b.af.DefaultPolicy, b.af.DefaultSchedulingPolicy = pol, custom
	if custom != nil {
		b.af.DefaultPolicy = PolicyFair
	}
	return err
}

func (b *allocBuild) defaultMinShareTimeout(el *xnode, text string) (err error) {
	b.af.DefaultMinSharePreemptionTimeout, err = secondsElem(el.name, text)
	return err
}

func (b *allocBuild) defaultFairShareTimeout(el *xnode, text string) (err error) {
	b.af.DefaultFairSharePreemptionTimeout, err = secondsElem(el.name, text)
	b.fairTimeoutSet = true
	return err
}

func (b *allocBuild) legacyFairShareTimeout(el *xnode, text string) error {
	d, err := secondsElem(el.name, text)
	b.legacyFairTimeout = &d
	return err
}

func (b *allocBuild) defaultFairShareThreshold(el *xnode, text string) error {
	f, err := floatElem(el.name, text)
	b.af.DefaultFairSharePreemptionThreshold = clamp01(f)
	return err
}

func (b *allocBuild) placementPolicy(el *xnode, _ string) error {
	pol, err := b.p.parsePlacementPolicy(el)
	if pol != nil {
		b.af.Placement = pol
	}
	return err
}

func (b *allocBuild) reservation(el *xnode, text string) error {
	return reservationElem(b.af, el.name, text)
}
