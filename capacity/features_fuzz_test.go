package capacity

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/berthsched/berth"
)

// Fuzz targets of the YARN 3.x settings' parsers (the priority ACLs' is
// in priority_test.go, the JSON mapping rules' in mappingrules_test.go).

// parseResourceList (maximum-allocation, the templates'): never panics,
// never yields a negative amount, and reads back what it formats.
func FuzzParseResourceList(f *testing.F) {
	for _, s := range []string{"memory-mb=8192,vcores=4", "memory=8Gi,vcores=2,yarn.io/gpu=1", "vcores=1", "memory-mb=1T",
		"memory-mb=,vcores=1", "x", "memory-mb=-1", "memory-mb=9223372036854775807", "gpu=1,gpu=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		r, err := parseResourceList(v)
		if err != nil {
			return
		}
		if r.AnyNegative() {
			t.Fatalf("%q read as %v", v, r)
		}
		parts := []string{fmt.Sprintf("memory-mb=%d", r.Memory), fmt.Sprintf("vcores=%d", r.VCores)}
		for _, q := range r.Extras() {
			if q.Name == "" || strings.ContainsAny(q.Name, ",=") || strings.TrimSpace(q.Name) != q.Name {
				t.Fatalf("%q read a resource named %q", v, q.Name)
			}
			parts = append(parts, fmt.Sprintf("%s=%d", q.Name, q.Value))
		}
		again, err := parseResourceList(strings.Join(parts, ","))
		if err != nil || !again.Equal(r) {
			t.Fatalf("%q: %v formats as %q, read back as %v (%v)", v, r, strings.Join(parts, ","), again, err)
		}
	})
}

// ParseWorkflowPriorities: never panics and reads back what it formats.
func FuzzParseWorkflowPriorities(f *testing.F) {
	for _, s := range []string{"wf1:root.a:3,WF2:root.b:-1", " a : b : 1 ", "a:b", "a:b:c", "a:b:99999999999", ",,", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		ws, err := ParseWorkflowPriorities(v)
		if err != nil {
			if !errors.Is(err, berth.ErrInvalidArgument) {
				t.Fatalf("%q: untyped error %v", v, err)
			}
			return
		}
		parts := make([]string, len(ws))
		for i, w := range ws {
			parts[i] = fmt.Sprintf("%s:%s:%d", w.WorkflowID, w.Queue, w.Priority)
		}
		again, err := ParseWorkflowPriorities(strings.Join(parts, ","))
		if err != nil || fmt.Sprint(again) != fmt.Sprint(ws) {
			t.Fatalf("%q: %v read back as %v (%v)", v, ws, again, err)
		}
	})
}

// FuzzParseXML's properties on files that use the YARN 3.x keys: an
// error names a key, and what loads builds a scheduler.
func FuzzParseXMLFeatures(f *testing.F) {
	base := []string{prefix + "root.queues", "a,p", prefix + "root.a.capacity", "50", prefix + "root.p.capacity", "50"}
	seed := func(props ...string) { f.Add(xmlDoc(append(append([]string{}, base...), props...)...)) }
	seed(prefix+"root.a.max-parallel-apps", "2", prefix+"user.max-parallel-apps", "3", prefix+"user.bob.max-parallel-apps", "1")
	seed("yarn.cluster.max-application-priority", "10", prefix+"root.a.default-application-priority", "3",
		"yarn.acl.enable", "true", prefix+"root.a.acl_application_max_priority", "[user=alice max_priority=5 default_priority=2]")
	seed(prefix+"root.a.maximum-application-lifetime", "200", prefix+"root.a.default-application-lifetime", "100")
	seed(prefix+"root.a.maximum-allocation", "memory-mb=2048,vcores=2", prefix+"root.p.maximum-allocation-mb", "4096")
	seed(prefix+"root.p.auto-queue-creation-v2.enabled", "true", prefix+"root.p.auto-queue-creation-v2.leaf-template.capacity", "2w")
	seed(prefix+"root.p.auto-create-child-queue.enabled", "true", prefix+"root.p.leaf-queue-template.capacity", "10")
	seed(prefix+"schedule-asynchronously.enable", "true", prefix+"multi-node-placement-enabled", "true",
		prefix+"multi-node-sorting.policy.names", "usage", prefix+"multi-node-sorting.policy", "usage",
		prefix+"multi-node-sorting.policy.usage.class", "org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.ResourceUsageMultiNodeLookupPolicy")
	seed(prefix+"root.a.user-limit-factor", "-1", prefix+"maximum-am-resource-percent", "10", prefix+"root.p.ordering-policy", "fair")
	seed(prefix+"mapping-rule-format", "json", prefix+"mapping-rule-json",
		`{"rules":[{"type":"user","matches":"*","policy":"user","parentQueue":"root","fallbackResult":"placeDefault"}]}`)
	seed(prefix+"workflow-priority-mappings", "wf:root.a:2", prefix+"workflow-priority-mappings-override.enable", "true")
	f.Fuzz(func(t *testing.T, doc string) {
		cfg, _, err := ParseXMLReport(strings.NewReader(doc), XMLOptions{})
		if err != nil {
			var fe *berth.FieldError
			if !errors.As(err, &fe) || fe.Field == "" {
				t.Fatalf("error does not name a key: %v", err)
			}
			return
		}
		cfg.Clock = berth.NewManualClock(0)
		if _, err := New(cfg); err != nil {
			t.Fatalf("accepted configuration refused by New: %v", err)
		}
	})
}
