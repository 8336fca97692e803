package trace

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/berthsched/berth"
)

// ReadNodes reads an SLS node (topology) file (--nodes) as SLS's
// SLSUtils.parseNodesFromNodeFile does: a sequence of
// {"rack": "r", "nodes": [{"node": "h", "memory-mb": m, "vcores": v,
// "labels": "l1, l2(exclusive=false)"}]} objects. A node's size is read
// from "memory-mb" and "vcores" written on the node object itself; what
// it leaves out comes from d.Node (yarn.sls.nm.memory.mb / vcores).
// Labels are parsed as YARN's YarnClientUtils.buildNodeLabelsFromStr
// parses them.
//
// Where SLS reads a missing name as the text "null" (a node record {}
// is host "null", a rack record without "rack" is rack "/null"), so does
// ReadNodes, with a note. A host named twice is kept once (SLS's node set
// does the same), with a note. Berth also reads a nested
// "resource": {"memory-mb", "vcores"} object, which SLS ignores, with a
// note; flat values win over it.
func ReadNodes(r io.Reader, file string, d Defaults) ([]Node, []Note, error) {
	nr := &nodeReader{file: file, defaults: d, seen: map[string]bool{}}
	if err := records(r, file, nr.rack); err != nil {
		return nil, nil, err
	}
	if len(nr.nodes) == 0 {
		return nil, nil, &Error{File: file, Reason: "no nodes"}
	}
	return nr.nodes, nr.notes, nil
}

// nodeReader is what ReadNodes keeps from one rack record to the next: the
// nodes read so far, the hosts they name and the notes.
type nodeReader struct {
	file     string
	defaults Defaults
	nodes    []Node
	notes    []Note
	seen     map[string]bool
}

func (nr *nodeReader) note(o obj, field, text string) {
	nr.notes = append(nr.notes, Note{File: nr.file, Record: o.rec, Field: o.prefix + field, Text: text})
}

// rack reads one rack record: its name, then each of its nodes.
func (nr *nodeReader) rack(rec int, o obj) error {
	rack, err := o.str("rack", "")
	if err != nil {
		return err
	}
	if !o.has("rack") {
		rack = "null"
		nr.note(o, "rack", `missing: read as rack "/null", as SLS reads it`)
	}
	if strings.Trim(rack, "/") == "" {
		return o.err("rack", rack, "empty", nil)
	}
	o.id = rack
	if !o.has("nodes") {
		return o.err("nodes", nil, "missing (SLS fails on it)", nil)
	}
	nodes, err := o.objects("nodes")
	if err != nil {
		return err
	}
	if len(nodes) == 0 {
		nr.note(o, "nodes", "the rack has no nodes")
	}
	for _, no := range nodes {
		if err := nr.node(no, "/"+strings.TrimPrefix(rack, "/")); err != nil {
			return err
		}
	}
	return nil
}

// node reads one node of a rack: its host name (a host named before is
// skipped), its size and its labels.
func (nr *nodeReader) node(no obj, rack string) error {
	n := Node{Rack: rack, Resource: nr.defaults.Node}
	var err error
	if n.ID, err = no.str("node", ""); err != nil {
		return err
	}
	if !no.has("node") {
		n.ID = "null"
		nr.note(no, "node", fmt.Sprintf(`missing: read as host "%s/null", as SLS reads it`, n.Rack))
	}
	if n.ID == "" || strings.ContainsAny(n.ID, "/ ") {
		return no.err("node", n.ID, "empty, or not a plain host name", nil)
	}
	if nr.seen[n.ID] {
		nr.note(no, "node", fmt.Sprintf("host %s is named again: the first one is kept", n.ID))
		return nil
	}
	nr.seen[n.ID] = true
	if res, ok, err := no.object("resource"); err != nil {
		return err
	} else if ok {
		if n.Resource, err = nodeResource(res, nr.defaults.Node); err != nil {
			return err
		}
		nr.note(no, "resource", "a nested resource object is read by Berth, not by SLS (SLS reads memory-mb and vcores on the node itself)")
	}
	if n.Resource, err = nodeResource(no, n.Resource); err != nil {
		return err
	}
	if no.has("labels") {
		s, err := no.str("labels", "")
		if err != nil {
			return err
		}
		if n.Labels, err = ParseLabels(s); err != nil {
			return no.err("labels", s, err.Error(), nil)
		}
	}
	for _, k := range no.keys() {
		switch k {
		case "node", "labels", "resource", berth.ResourceMemory, berth.ResourceVCores:
		default:
			nr.note(no, k, "not read: SLS reads node, labels, memory-mb and vcores")
		}
	}
	nr.nodes = append(nr.nodes, n)
	return nil
}

// Label is a node label as YARN's NodeLabel: a name and whether it is
// exclusive (only applications asking for it may use its nodes).
type Label struct {
	Name      string
	Exclusive bool
}

// String formats the label as YARN writes it: name(exclusive=false) for a
// shared label, the bare name otherwise.
func (l Label) String() string {
	if l.Exclusive {
		return l.Name
	}
	return l.Name + "(exclusive=false)"
}

// ParseLabels parses a comma-separated label list
// "label1, label2(exclusive=false)" as YARN's
// YarnClientUtils.buildNodeLabelsFromStr does (exclusive by default; the
// only property is exclusive=true|false), and checks each name as YARN's
// node-label manager does (a letter or digit, then letters, digits, '-'
// and '_'). An empty list is an error, as in YARN.
func ParseLabels(s string) ([]Label, error) {
	var out []Label
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		l := Label{Name: p, Exclusive: true}
		open, closing := strings.IndexByte(p, '('), strings.IndexByte(p, ')')
		if (open < 0) != (closing < 0) || open > closing || open >= 0 && closing != len(p)-1 {
			return nil, fmt.Errorf("label %q: unbalanced parentheses (expected name or name(exclusive=true|false))", p)
		}
		if open >= 0 {
			l.Name = strings.TrimSpace(p[:open])
			if prop := strings.TrimSpace(p[open+1 : closing]); prop != "" {
				k, v, ok := strings.Cut(prop, "=")
				k, v = strings.TrimSpace(k), strings.TrimSpace(v)
				if !ok || k != "exclusive" || v != "true" && v != "false" {
					return nil, fmt.Errorf("label %q: the only property is exclusive=true|false", p)
				}
				l.Exclusive = v == "true"
			}
		}
		if !validLabelName(l.Name) {
			return nil, fmt.Errorf("label name %q: must start with a letter or digit, then letters, digits, '-' or '_'", l.Name)
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no label in %q", s)
	}
	return out, nil
}

func validLabelName(s string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	for i, c := range s {
		alnum := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alnum && (i == 0 || c != '-' && c != '_') {
			return false
		}
	}
	return true
}

// nodeResource reads memory-mb and vcores of o over def; in a nested
// resource object any other key is an error.
func nodeResource(o obj, def berth.Resource) (berth.Resource, error) {
	if strings.HasSuffix(o.prefix, "resource.") {
		for _, k := range o.keys() {
			if k != berth.ResourceMemory && k != berth.ResourceVCores {
				return def, o.err(k, nil, "unknown resource type (memory-mb and vcores are simulated)", nil)
			}
		}
	}
	r, err := resourceFields(o, "", def)
	if err != nil {
		return r, err
	}
	// SLS parses node sizes with Integer.parseInt.
	for _, f := range []struct {
		k string
		v int64
	}{{berth.ResourceMemory, r.Memory}, {berth.ResourceVCores, r.VCores}} {
		if f.v > math.MaxInt32 {
			return r, o.err(f.k, f.v, "out of the int range", nil)
		}
	}
	return r, nil
}

// GenerateNodes builds the cluster SLS generates from a topology
// (SLSUtils.generateNodes): node i is "node<i>" on rack "/rack<i mod
// racks>", the racks taken round-robin; racks are at least 1 and at most
// the number of nodes.
func GenerateNodes(t Topology, d Defaults) []Node {
	racks := min(max(t.Racks, 1), max(t.Nodes, 1))
	out := make([]Node, max(t.Nodes, 0))
	for i := range out {
		out[i] = Node{ID: fmt.Sprintf("node%d", i), Rack: fmt.Sprintf("/rack%d", i%racks), Resource: d.Node}
	}
	return out
}

// ClusterNodes builds the cluster SLS builds when no node file is given
// (NMRunner with SLSUtils.parseNodesFromSLSTrace / parseNodesFromRumenTrace
// / generateNodes): the nodes each trace's topology generates, then every
// "/rack/host" its tasks name, first seen first, each host once. SLS
// keeps two nodes when the same host name comes on two racks; the
// simulator names nodes by host, so it keeps the first and says so in a
// note.
func ClusterNodes(traces []*Trace, d Defaults) ([]Node, []Note) {
	var out []Node
	var notes []Note
	rackOf := map[string]string{}
	add := func(n Node) {
		if r, dup := rackOf[n.ID]; dup {
			if r != n.Rack {
				notes = append(notes, Note{Text: fmt.Sprintf("host %s is named on racks %s and %s: one node, on %s, is simulated", n.ID, r, n.Rack, r)})
			}
			return
		}
		rackOf[n.ID] = n.Rack
		out = append(out, n)
	}
	for _, t := range traces {
		if t.Topology != nil {
			for _, n := range GenerateNodes(*t.Topology, d) {
				add(n)
			}
		}
	}
	for _, t := range traces {
		for _, h := range t.Hosts() {
			rack, host, err := SplitHost(h)
			if err != nil {
				continue // readers validated the names
			}
			add(Node{ID: host, Rack: rack, Resource: d.Node})
		}
	}
	return out, notes
}
