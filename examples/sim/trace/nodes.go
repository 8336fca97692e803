package trace

import (
	"fmt"
	"io"
	"strings"

	"github.com/berthsched/berth"
)

// ReadNodes reads an SLS node (topology) file (--nodes): a sequence of
// {"rack": "r", "nodes": [{"node": "h", "resource": {...}, "labels": "a,b"}]}
// objects. A node's resource may name "memory-mb" and "vcores"; missing
// values come from d.Node (yarn.sls.nm.memory.mb / vcores). Node names must
// be unique.
func ReadNodes(r io.Reader, file string, d Defaults) ([]Node, error) {
	var out []Node
	seen := map[string]bool{}
	err := records(r, file, func(rec int, o obj) error {
		rack, err := o.str("rack", "")
		if err != nil {
			return err
		}
		if rack == "" || strings.HasPrefix(rack, "/") && len(rack) == 1 {
			return o.err("rack", rack, "missing or empty", nil)
		}
		o.id = rack
		nodes, err := o.objects("nodes")
		if err != nil {
			return err
		}
		if len(nodes) == 0 {
			return o.err("nodes", nil, "a rack needs at least one node", nil)
		}
		for _, no := range nodes {
			n := Node{Rack: "/" + strings.TrimPrefix(rack, "/"), Resource: d.Node}
			if n.ID, err = no.str("node", ""); err != nil {
				return err
			}
			if n.ID == "" || strings.ContainsAny(n.ID, "/ ") {
				return no.err("node", n.ID, "missing, or not a plain host name", nil)
			}
			if seen[n.ID] {
				return no.err("node", n.ID, "duplicate node", nil)
			}
			seen[n.ID] = true
			if res, ok, err := no.object("resource"); err != nil {
				return err
			} else if ok {
				if n.Resource, err = nodeResource(res, d.Node); err != nil {
					return err
				}
			}
			labels, err := no.str("labels", "")
			if err != nil {
				return err
			}
			for _, l := range strings.Split(labels, ",") {
				if l = strings.TrimSpace(l); l != "" {
					n.Labels = append(n.Labels, l)
				}
			}
			out = append(out, n)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func nodeResource(o obj, def berth.Resource) (berth.Resource, error) {
	for _, k := range o.keys() {
		if k != berth.ResourceMemory && k != berth.ResourceVCores {
			return def, o.err(k, nil, "unknown resource type (memory-mb and vcores are simulated)", nil)
		}
	}
	return resourceFields(o, "", def)
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

// NodesFromHosts builds nodes from "/rack/host" names (the cluster SLS
// derives from a trace when no node file is given).
func NodesFromHosts(hosts []string, d Defaults) []Node {
	out := make([]Node, 0, len(hosts))
	for _, h := range hosts {
		rack, host, err := SplitHost(h)
		if err != nil {
			continue // readers validated the names
		}
		out = append(out, Node{ID: host, Rack: rack, Resource: d.Node})
	}
	return out
}
