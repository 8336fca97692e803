package capacity

import (
	"errors"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func xmlDoc(props ...string) string {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\"?>\n<configuration>\n")
	for i := 0; i+1 < len(props); i += 2 {
		b.WriteString("<property><name>" + props[i] + "</name><value>" + props[i+1] + "</value></property>\n")
	}
	b.WriteString("</configuration>\n")
	return b.String()
}

const sampleXML = `<?xml version="1.0"?>
<configuration>
  <property><name>yarn.scheduler.capacity.maximum-applications</name><value>5000</value></property>
  <property><name>yarn.scheduler.capacity.maximum-am-resource-percent</name><value>0.2</value></property>
  <property><name>yarn.scheduler.capacity.resource-calculator</name>
    <value>org.apache.hadoop.yarn.util.resource.DominantResourceCalculator</value></property>
  <property><name>yarn.scheduler.capacity.node-locality-delay</name><value>20</value></property>
  <property><name>yarn.scheduler.capacity.root.queues</name><value>prod, dev ,plan</value></property>
  <property><name>yarn.scheduler.capacity.root.prod.capacity</name><value>60</value></property>
  <property><name>yarn.scheduler.capacity.root.prod.maximum-capacity</name><value>-1</value></property>
  <property><name>yarn.scheduler.capacity.root.prod.user-limit-factor</name><value>2</value></property>
  <property><name>yarn.scheduler.capacity.root.prod.minimum-user-limit-percent</name><value>25</value></property>
  <property><name>yarn.scheduler.capacity.root.prod.ordering-policy</name><value>fair</value></property>
  <property><name>yarn.scheduler.capacity.root.prod.acl_submit_applications</name><value>alice,bob prod</value></property>
  <property><name>yarn.scheduler.capacity.root.prod.user-settings.alice.weight</name><value>2</value></property>
  <property><name>yarn.scheduler.capacity.root.dev.capacity</name><value>30</value></property>
  <property><name>yarn.scheduler.capacity.root.dev.maximum-capacity</name><value>50</value></property>
  <property><name>yarn.scheduler.capacity.root.dev.state</name><value>STOPPED</value></property>
  <property><name>yarn.scheduler.capacity.root.dev.queues</name><value>x,y</value></property>
  <property><name>yarn.scheduler.capacity.root.dev.ordering-policy</name><value>priority-utilization</value></property>
  <property><name>yarn.scheduler.capacity.root.dev.x.capacity</name><value>50</value></property>
  <property><name>yarn.scheduler.capacity.root.dev.x.priority</name><value>2</value></property>
  <property><name>yarn.scheduler.capacity.root.dev.y.capacity</name><value>50</value></property>
  <property><name>yarn.scheduler.capacity.root.plan.capacity</name><value>10</value></property>
  <property><name>yarn.scheduler.capacity.root.plan.reservable</name><value>true</value></property>
  <property><name>yarn.scheduler.capacity.some.unknown.key</name><value>whatever</value></property>
</configuration>`

func TestParseXML(t *testing.T) {
	cfg, err := ParseXML(strings.NewReader(sampleXML))
	require.NoError(t, err)
	assert.Equal(t, 5000, cfg.MaximumApplications)
	assert.Equal(t, 0.2, cfg.MaximumAMResourcePercent)
	assert.Equal(t, berth.DominantCalculator{}, cfg.Calculator)
	assert.Equal(t, 20, cfg.NodeLocalityDelay)
	require.Len(t, cfg.Root.Children, 3)
	prod, dev, plan := cfg.Root.Children[0], cfg.Root.Children[1], cfg.Root.Children[2]
	assert.Equal(t, "prod", prod.Name)
	assert.Equal(t, queue.Percent(60), prod.Capacity)
	assert.Equal(t, queue.CapacityUnset, prod.MaxCapacity.Kind, "-1 means unset (100%)")
	assert.Equal(t, 2.0, prod.Settings.UserLimitFactor)
	assert.Equal(t, 25.0, prod.Settings.MinUserLimitPercent)
	assert.Equal(t, OrderFair, prod.Settings.AppOrdering)
	assert.Equal(t, map[string]float64{"alice": 2}, prod.Settings.UserWeights)
	require.NotNil(t, prod.SubmitACL)
	assert.True(t, prod.SubmitACL.Allows("bob", nil))
	assert.True(t, prod.SubmitACL.Allows("carol", []string{"prod"}))
	assert.Equal(t, queue.StateStopped, dev.State)
	assert.Equal(t, OrderPriorityUtilization, dev.Settings.ChildOrdering)
	require.Len(t, dev.Children, 2)
	assert.Equal(t, 2, dev.Children[0].Settings.Priority)
	assert.True(t, plan.Reservable)

	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	assert.Equal(t, []string{"root.plan"}, s.PlanQueues())
}

func TestParseXMLErrorsNameTheKey(t *testing.T) {
	base := []string{prefix + "root.queues", "a,b", prefix + "root.a.capacity", "40", prefix + "root.b.capacity", "60"}
	with := func(kv ...string) string { return xmlDoc(append(append([]string{}, base...), kv...)...) }
	cases := []struct {
		name, doc, key string
	}{
		{"capacity not a number", with(prefix+"root.a.capacity", "forty"), prefix + "root.a.capacity"},
		{"capacity above 100", with(prefix+"root.a.capacity", "140"), prefix + "root.a.capacity"},
		{"sum not 100", with(prefix+"root.a.capacity", "50"), prefix + "root"},
		{"bad state", with(prefix+"root.b.state", "PAUSED"), prefix + "root.b.state"},
		{"bad ulf", with(prefix+"root.b.user-limit-factor", "-2"), prefix + "root.b.user-limit-factor"},
		{"bad bool", with(prefix+"root.b.reservable", "yes"), prefix + "root.b.reservable"},
		{"bad policy", with(prefix+"root.b.ordering-policy", "lifo"), prefix + "root.b.ordering-policy"},
		{"bad global", with(prefix+"maximum-am-resource-percent", "-0.5"), prefix + "maximum-am-resource-percent"},
		{"bad calculator", with(prefix+"resource-calculator", "Foo"), prefix + "resource-calculator"},
		{"bad absolute", with(prefix+"root.a.capacity", "[memory=x]"), prefix + "root.a.capacity"},
		{"missing root queues", xmlDoc(prefix+"maximum-applications", "1"), prefix + "root.queues"},
		{"reservable parent", xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100", prefix+"root.a.queues", "x",
			prefix+"root.a.x.capacity", "100", prefix+"root.a.reservable", "true"), prefix + "root.a"},
		{"not xml", "<configuration><property>", "configuration"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseXML(strings.NewReader(c.doc))
			require.Error(t, err)
			var fe *berth.FieldError
			require.True(t, errors.As(err, &fe), "%v", err)
			assert.True(t, strings.HasPrefix(fe.Field, c.key), "field %q, want prefix %q (%v)", fe.Field, c.key, err)
			assert.ErrorIs(t, err, berth.ErrInvalidArgument)
		})
	}
}

func FuzzParseXML(f *testing.F) {
	f.Add(sampleXML)
	f.Add(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100"))
	f.Add(xmlDoc(prefix+"root.queues", "a,a", prefix+"root.a.capacity", "50"))
	f.Add(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "[memory=1024,vcores=1]"))
	f.Add(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.queues", "a", prefix+"root.a.capacity", "100", prefix+"root.a.a.capacity", "100"))
	f.Add(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "NaN"))
	f.Add(xmlDoc(prefix+"root.queues", "a.b", prefix+"root.a.capacity", "100"))
	f.Add(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100", prefix+"queue-mappings", "u:%user:root.a.%user,g:x:a",
		appNameMappingsKey, "%application:%application", queuePlacementRulesKey, "app-name,user-group"))
	f.Add(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100", prefix+"root.a.capacty", "1", prefix+"root.a.accessible-node-labels.x.capacity", "1"))
	f.Add(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100", prefix+"root.accessible-node-labels.gpu.capacity", "100",
		prefix+"root.a.accessible-node-labels", "gpu", prefix+"root.a.accessible-node-labels.gpu.capacity", "100",
		prefix+"root.a.default-node-label-expression", "gpu"))
	f.Add("<configuration/>")
	f.Add("")
	f.Fuzz(func(t *testing.T, doc string) {
		cfg, rep, err := ParseXMLReport(strings.NewReader(doc), XMLOptions{})
		if err != nil {
			var fe *berth.FieldError
			if !errors.As(err, &fe) || fe.Field == "" {
				t.Fatalf("error does not name a key: %v", err)
			}
			return
		}
		// The report is sorted, and strict mode agrees with it.
		for i := 1; i < len(rep.Notes); i++ {
			if rep.Notes[i-1].Key > rep.Notes[i].Key {
				t.Fatalf("report not in key order: %v", rep)
			}
		}
		_, _, serr := ParseXMLReport(strings.NewReader(doc), XMLOptions{Strict: true})
		if (serr == nil) != rep.Clean() {
			t.Fatalf("strict mode (%v) disagrees with the report %v", serr, rep)
		}
		// A configuration the loader accepts must build a scheduler.
		cfg.Clock = berth.NewManualClock(0)
		if _, err := New(cfg); err != nil {
			t.Fatalf("accepted configuration refused by New: %v", err)
		}
	})
}
