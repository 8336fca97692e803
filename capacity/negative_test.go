package capacity

import (
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// node-locality-delay -1 is YARN's "no delay" (its shipped file documents
// it): YARN's own formula, min(nodes, -1) < missed, accepts a rack-local
// container at the first opportunity. Below -1 is refused.
func TestNodeLocalityDelayMinusOne(t *testing.T) {
	doc := xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100", prefix+"node-locality-delay", "-1")
	cfg, err := ParseXML(strings.NewReader(doc))
	require.NoError(t, err)
	assert.Equal(t, -1, cfg.NodeLocalityDelay)
	cfg.RackLocalityAdditionalDelay = 5
	h := newHarness(t, cfg,
		NodeSpec{ID: "h1", Rack: "/r1", Capability: berth.New(8*gb, 8)},
		NodeSpec{ID: "h2", Rack: "/r1", Capability: berth.New(8*gb, 8)},
		NodeSpec{ID: "h3", Rack: "/r2", Capability: berth.New(8*gb, 8)})
	h.submit("app", "a", "u")
	one := berth.New(gb, 1)
	_, err = h.s.Allocate("app", []Ask{
		{Priority: 1, ResourceName: "h1", Capability: one, Count: 1},
		{Priority: 1, ResourceName: "/r1", Capability: one, Count: 1},
		{Priority: 1, ResourceName: AnyResource, Capability: one, Count: 1},
	}, nil)
	require.NoError(t, err)
	al := h.beat("h2")
	require.Len(t, al, 1)
	assert.Equal(t, RackLocal, al[0].Locality)

	_, err = ParseXML(strings.NewReader(strings.Replace(doc, "<value>-1</value>", "<value>-2</value>", 1)))
	var fe *berth.FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, prefix+"node-locality-delay", fe.Field)
}
