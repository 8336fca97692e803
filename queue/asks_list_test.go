package queue

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendAsksListsOutstandingEntriesInOrder(t *testing.T) {
	var r Requests[struct{}]
	c := berth.New(1024, 1)
	for _, a := range []struct {
		ask  Ask
		rack bool
	}{
		{Ask{Priority: 1, ResourceName: "h2", Capability: c, Count: 2}, false},
		{Ask{Priority: 1, ResourceName: "h1", Capability: c, Count: 1, StrictLocality: true}, false},
		{Ask{Priority: 1, ResourceName: "/r1", Capability: c, Count: 3}, true},
		{Ask{Priority: 1, ResourceName: "/r0", Capability: c, Count: 0}, true},
		{Ask{Priority: 1, ResourceName: AnyResource, Capability: c, Count: 3}, false},
	} {
		_, err := r.Update(a.ask, a.rack)
		require.NoError(t, err)
	}
	got := r.Key(1).AppendAsks(nil)
	names := make([]string, len(got))
	for i, a := range got {
		names[i] = a.ResourceName
		assert.Equal(t, c, a.Capability)
		assert.Equal(t, int32(1), a.Priority)
	}
	assert.Equal(t, []string{AnyResource, "/r1", "h1", "h2"}, names, "ANY, racks, hosts; entries at 0 left out")
	assert.True(t, got[2].StrictLocality)
	assert.Equal(t, 2, got[3].Count)
	require.True(t, r.Key(1).Allocate(NodeLocal, "h1", "/r1"))
	got = r.Key(1).AppendAsks(nil)
	assert.Len(t, got, 3, "h1 reached 0 and left")
}
