package fair

import (
	"fmt"
	"math"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// queueDecoders read the child elements of <queue>, one decoder per
// element name YARN's AllocationFileQueueParser reads (nested <queue> and
// <pool> aside: parseQueue reads those); queueElements lists the same
// names for suggestions.
var queueDecoders = map[string]func(*queueBuild, *xnode, string) error{
	"minResources":                 (*queueBuild).minResources,
	"maxResources":                 (*queueBuild).maxResources,
	"maxChildResources":            (*queueBuild).maxResources,
	"maxContainerAllocation":       (*queueBuild).maxContainerAllocation,
	"maxRunningApps":               (*queueBuild).maxRunningApps,
	"maxAMShare":                   (*queueBuild).maxAMShare,
	"weight":                       (*queueBuild).weight,
	"minSharePreemptionTimeout":    (*queueBuild).preemptionTimeout,
	"fairSharePreemptionTimeout":   (*queueBuild).preemptionTimeout,
	"fairSharePreemptionThreshold": (*queueBuild).fairShareThreshold,
	"schedulingPolicy":             (*queueBuild).schedulingPolicy,
	"schedulingMode":               (*queueBuild).schedulingPolicy,
	"aclSubmitApps":                (*queueBuild).acl,
	"aclAdministerApps":            (*queueBuild).acl,
	"aclAdministerReservations":    (*queueBuild).acl,
	"aclListReservations":          (*queueBuild).acl,
	"aclSubmitReservations":        (*queueBuild).acl,
	"reservation":                  (*queueBuild).reservation,
	"allowPreemptionFrom":          (*queueBuild).allowPreemptionFrom,
}

// queueBuild is the <queue> element being read.
type queueBuild struct {
	p             *allocParser
	q             QueueConfig
	maxAMShareSet bool
}

// field names a child element of the queue in errors and the report:
// queue[root.a].weight.
func (b *queueBuild) field(child string) string { return "queue[" + b.q.Path + "]." + child }

// parseQueue reads one <queue> element below parentPath ("" for root):
// its name, then each child element by its decoder, in file order.
func (p *allocParser) parseQueue(el *xnode, parentPath string) (QueueConfig, error) {
	path, err := queuePath(el, parentPath)
	if err != nil {
		return QueueConfig{}, err
	}
	b := &queueBuild{p: p, q: QueueConfig{Path: path}}
	p.checkAttrs("queue["+path+"]", el, queueAttrs)
	if t, _ := el.attr("type"); t == "parent" {
		b.q.Parent = true
	}
	for _, c := range el.children {
		text := strings.TrimSpace(c.text.String())
		if c.name == "queue" || c.name == "pool" {
			child, err := p.parseQueue(c, path)
			if err != nil {
				return QueueConfig{}, err
			}
			b.q.Children = append(b.q.Children, child)
			b.q.Parent = true
			continue
		}
		decode, ok := queueDecoders[c.name]
		if !ok {
			p.unknown("queue["+path+"]", c.name, text, queueElements)
			continue
		}
		if err := decode(b, c, text); err != nil {
			return QueueConfig{}, err
		}
		p.read(b.field(c.name), text)
	}
	if err := b.checkParent(parentPath); err != nil {
		return QueueConfig{}, err
	}
	return b.q, nil
}

// queuePath checks a <queue> element's name and returns its path.
func queuePath(el *xnode, parentPath string) (string, error) {
	raw, _ := el.attr("name")
	name := unicodeTrim(raw)
	elemName := "queue.name"
	if parentPath != "" {
		elemName = "queue[" + parentPath + "].queue.name"
	}
	if strings.Contains(name, ".") {
		return "", fieldErr(elemName, raw, "Bad fair scheduler config file: queue name ("+name+") shouldn't contain period.")
	}
	if name == "" {
		return "", fieldErr(elemName, raw, "Bad fair scheduler config file: queue name shouldn't be empty or consist only of whitespace.")
	}
	if err := queue.ValidateName(name); err != nil {
		return "", &berth.FieldError{Field: elemName, Value: raw, Reason: "invalid queue name", Err: err}
	}
	if parentPath == "" {
		return name, nil
	}
	return parentPath + "." + name, nil
}

// checkParent refuses a parent queue (below root) that also sets what
// only a leaf may: reservation or maxAMShare.
func (b *queueBuild) checkParent(parentPath string) error {
	if !b.q.Parent || parentPath == "" {
		return nil
	}
	msg := "The configuration settings for " + b.q.Path + " are invalid. A queue element that contains child queue elements or that has the type='parent' attribute cannot also include a %s element."
	if b.q.Reservable {
		return fieldErr(b.field("reservation"), "", fmt.Sprintf(msg, "reservation"))
	}
	if b.maxAMShareSet {
		return fieldErr(b.field("maxAMShare"), *b.q.MaxAMShare, fmt.Sprintf(msg, "maxAMShare"))
	}
	return nil
}

// absoluteResource parses a resource that must be absolute amounts, with
// missing for the types it does not name.
func (b *queueBuild) absoluteResource(el *xnode, text string, missing int64) (berth.Resource, error) {
	f := b.field(el.name)
	cr, err := ParseResource(f, text, b.p.opts.ResourceTypes, missing)
	if err != nil {
		return berth.Resource{}, err
	}
	r, ok := cr.Absolute()
	if !ok {
		return berth.Resource{}, fieldErr(f, text, el.name+" must be absolute amounts, not percentages")
	}
	return r, nil
}

func (b *queueBuild) minResources(el *xnode, text string) error {
	r, err := b.absoluteResource(el, text, 0)
	b.q.MinResources = &r
	return err
}

// maxResources reads maxResources and maxChildResources.
func (b *queueBuild) maxResources(el *xnode, text string) error {
	cr, err := ParseResource(b.field(el.name), text, b.p.opts.ResourceTypes, math.MaxInt64)
	if el.name == "maxResources" {
		b.q.MaxResources = &cr
	} else {
		b.q.MaxChildResources = &cr
	}
	return err
}

func (b *queueBuild) maxContainerAllocation(el *xnode, text string) error {
	r, err := b.absoluteResource(el, text, math.MaxInt64)
	b.q.MaxContainerAllocation = &r
	return err
}

func (b *queueBuild) maxRunningApps(el *xnode, text string) error {
	n, err := countElem(b.field(el.name), text)
	b.q.MaxRunningApps = &n
	return err
}

func (b *queueBuild) maxAMShare(el *xnode, text string) error {
	v, err := amShareElem(b.field(el.name), text)
	b.q.MaxAMShare = &v
	b.maxAMShareSet = true
	return err
}

func (b *queueBuild) weight(el *xnode, text string) error {
	f := b.field(el.name)
	v, err := floatElem(f, text)
	if err == nil && v < 0 {
		err = fieldErr(f, text, "must not be negative")
	}
	b.q.Weight = &v
	return err
}

// preemptionTimeout reads minSharePreemptionTimeout and
// fairSharePreemptionTimeout.
func (b *queueBuild) preemptionTimeout(el *xnode, text string) error {
	d, err := secondsElem(b.field(el.name), text)
	if el.name == "minSharePreemptionTimeout" {
		b.q.MinSharePreemptionTimeout = &d
	} else {
		b.q.FairSharePreemptionTimeout = &d
	}
	return err
}

func (b *queueBuild) fairShareThreshold(el *xnode, text string) error {
	v, err := floatElem(b.field(el.name), text)
	v = clamp01(v)
	b.q.FairSharePreemptionThreshold = &v
	return err
}

// schedulingPolicy reads schedulingPolicy (or its old name schedulingMode).
func (b *queueBuild) schedulingPolicy(el *xnode, text string) error {
	pol, custom, err := b.p.policyElem(b.field(el.name), text)
	if custom != nil {
		b.q.SchedulingPolicy = custom
	} else {
		b.q.Policy = &pol
	}
	return err
}

// acl reads the five ACL elements. Their text is not trimmed as a whole:
// " " (nobody) is meaningful.
func (b *queueBuild) acl(el *xnode, _ string) error {
	acl := queue.ParseACL(el.text.String())
	switch el.name {
	case "aclSubmitApps":
		b.q.SubmitACL = &acl
	case "aclAdministerApps":
		b.q.AdministerACL = &acl
	case "aclAdministerReservations":
		b.q.AdministerReservationsACL = &acl
	case "aclListReservations":
		b.q.ListReservationsACL = &acl
	default:
		b.q.SubmitReservationsACL = &acl
	}
	return nil
}

func (b *queueBuild) reservation(*xnode, string) error {
	b.q.Reservable = true
	return nil
}

func (b *queueBuild) allowPreemptionFrom(_ *xnode, text string) error {
	v := strings.EqualFold(text, "true")
	b.q.AllowPreemptionFrom = &v
	return nil
}
