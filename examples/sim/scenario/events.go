package scenario

import (
	"encoding/json"
	"fmt"

	"github.com/berthsched/berth/examples/sim/engine"
	"github.com/berthsched/berth/examples/sim/trace"
)

// readNodeEvents reads a node-events file (a Berth addition; SLS has none):
// a JSON array of {"time.ms": t, "node": "name" | "rack": "/rack",
// "state": "down" | "up"}. A rack entry applies to each of its nodes.
func readNodeEvents(f *File, nodes []trace.Node) ([]engine.NodeEvent, error) {
	var raw []struct {
		Time  *int64 `json:"time.ms"`
		Node  string `json:"node"`
		Rack  string `json:"rack"`
		State string `json:"state"`
	}
	if err := json.Unmarshal(f.Data, &raw); err != nil {
		return nil, &InputError{File: f.Name, Reason: "expected a JSON array of node events", Err: err}
	}
	known := map[string]bool{}
	racks := map[string][]string{}
	for _, n := range nodes {
		known[n.ID] = true
		racks[n.Rack] = append(racks[n.Rack], n.ID)
	}
	var out []engine.NodeEvent
	for i, r := range raw {
		field := func(k string) string { return fmt.Sprintf("[%d].%s", i, k) }
		if r.Time == nil || *r.Time < 0 {
			return nil, &InputError{File: f.Name, Field: field("time.ms"), Reason: "missing or negative"}
		}
		if r.State != "down" && r.State != "up" {
			return nil, &InputError{File: f.Name, Field: field("state"), Value: r.State, Reason: `must be "down" or "up"`}
		}
		var ids []string
		switch {
		case r.Node != "" && r.Rack != "":
			return nil, &InputError{File: f.Name, Field: field("node"), Reason: "give a node or a rack, not both"}
		case r.Node != "":
			if !known[r.Node] {
				return nil, &InputError{File: f.Name, Field: field("node"), Value: r.Node, Reason: "no such node"}
			}
			ids = []string{r.Node}
		case r.Rack != "":
			if ids = racks[r.Rack]; len(ids) == 0 {
				return nil, &InputError{File: f.Name, Field: field("rack"), Value: r.Rack, Reason: "no such rack"}
			}
		default:
			return nil, &InputError{File: f.Name, Field: field("node"), Reason: "missing"}
		}
		for _, id := range ids {
			out = append(out, engine.NodeEvent{At: *r.Time, Node: id, Down: r.State == "down"})
		}
	}
	return out, nil
}
