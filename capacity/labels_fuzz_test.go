package capacity

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/berthsched/berth"
)

// labelFuzzKeys are the label keys FuzzParseLabels gives values to, over a
// fixed tree (root: a (a1, a2), b).
var labelFuzzKeys = []string{
	"root.accessible-node-labels",
	"root.accessible-node-labels.x.capacity",
	"root.accessible-node-labels.y.capacity",
	"root.accessible-node-labels.y.maximum-capacity",
	"root.a.accessible-node-labels",
	"root.a.accessible-node-labels.x.capacity",
	"root.a.accessible-node-labels.x.maximum-capacity",
	"root.a.default-node-label-expression",
	"root.b.accessible-node-labels",
	"root.b.accessible-node-labels.y.capacity",
	"root.b.accessible-node-labels.x.capacity",
	"root.a.a1.accessible-node-labels",
	"root.a.a1.accessible-node-labels.x.capacity",
	"root.a.a1.accessible-node-labels.x.maximum-am-resource-percent",
	"root.a.a2.accessible-node-labels.x.capacity",
	"root.a.a2.default-node-label-expression",
}

// FuzzParseLabels reads capacity-scheduler.xml files whose label keys hold
// the fuzzer's values ('|' separates them, in labelFuzzKeys' order; an
// empty value leaves the key out): the parser either refuses with an
// error naming a key, or its configuration builds a scheduler that runs a
// node of every label it declares, places an application on each, and
// survives a save and restore.
func FuzzParseLabels(f *testing.F) {
	f.Add("*|100|100||x,y|100|100|x|y|100|0|x|50|0.5|50|x")
	f.Add("|100|||x|100||x||||||||")
	f.Add("x||||x|60||||||||||")
	f.Add("*|-1|-1|-1| |[memory=1024,vcores=1]|NaN|z|*|200|1e40|x,y|abc|2|50|")
	f.Add("|||||||" + strings.Repeat("a", 300) + "||||||||")
	f.Fuzz(func(t *testing.T, vals string) {
		if len(vals) > 2048 {
			return
		}
		props := []string{prefix + "root.queues", "a,b", prefix + "root.a.capacity", "50", prefix + "root.b.capacity", "50",
			prefix + "root.a.queues", "a1,a2", prefix + "root.a.a1.capacity", "50", prefix + "root.a.a2.capacity", "50"}
		for i, v := range strings.SplitN(vals, "|", len(labelFuzzKeys)) {
			if v != "" {
				props = append(props, prefix+labelFuzzKeys[i], v)
			}
		}
		cfg, err := ParseXML(strings.NewReader(xmlDoc(props...)))
		if err != nil {
			var fe *berth.FieldError
			if !errors.As(err, &fe) || fe.Field == "" {
				t.Fatalf("error does not name a key: %v", err)
			}
			return
		}
		for i := range cfg.NodeLabels {
			cfg.NodeLabels[i].NonExclusive = i%2 == 1
		}
		cfg.Clock = berth.NewManualClock(0)
		s, err := New(cfg)
		if err != nil {
			t.Fatalf("accepted configuration refused by New: %v", err)
		}
		nodes := []NodeSpec{{ID: "d", Rack: "/r", Capability: berth.New(8192, 8)}}
		for _, l := range cfg.NodeLabels {
			nodes = append(nodes, NodeSpec{ID: "n-" + l.Name, Rack: "/r", Capability: berth.New(8192, 8), Label: l.Name})
		}
		if err := s.AddNodes(nodes...); err != nil {
			t.Fatalf("a node of every declared label: %v", err)
		}
		for i, q := range []string{"a1", "a2", "b"} {
			for _, l := range append([]string{""}, labelNames(cfg)...) {
				id := fmt.Sprintf("app-%s-%s", q, l)
				if _, err := s.SubmitApp(AppSpec{ID: id, Queue: q, User: fmt.Sprint("u", i), AMResource: berth.New(1024, 1), NodeLabelExpression: l}); err != nil {
					if !errors.Is(err, berth.ErrInvalidArgument) && !errors.Is(err, berth.ErrCapacityExceeded) {
						t.Fatalf("submission refused for another reason: %v", err)
					}
					continue
				}
				if _, err := s.Allocate(id, []Ask{{Priority: 1, ResourceName: AnyResource, Capability: berth.New(1024, 1), Count: 3}}, nil); err != nil {
					t.Fatalf("asks of an admitted application: %v", err)
				}
			}
		}
		for range 4 {
			for _, n := range nodes {
				if _, err := s.Heartbeat(n.ID, nil); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := s.SaveState(&buf); err != nil {
			t.Fatal(err)
		}
		cp, err := RestoreScheduler(bytes.NewReader(buf.Bytes()), RestoreEnv{Clock: berth.NewManualClock(0)})
		if err != nil {
			t.Fatalf("restore: %v", err)
		}
		var again bytes.Buffer
		if err := cp.SaveState(&again); err != nil || !bytes.Equal(buf.Bytes(), again.Bytes()) {
			t.Fatalf("a restored scheduler saves other bytes (%v)", err)
		}
	})
}

func labelNames(cfg Config) []string {
	var out []string
	for _, l := range cfg.NodeLabels {
		out = append(out, l.Name)
	}
	return out
}
