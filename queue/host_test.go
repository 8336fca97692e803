package queue

import (
	"errors"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
)

func TestLocalityString(t *testing.T) {
	for loc, want := range map[Locality]string{
		NodeLocal: "NODE_LOCAL", RackLocal: "RACK_LOCAL", OffSwitch: "OFF_SWITCH", 7: "Locality(7)",
	} {
		assert.Equal(t, want, loc.String())
	}
	assert.Less(t, NodeLocal, RackLocal, "relaxing is loc+1")
	assert.Less(t, RackLocal, OffSwitch)
}

func TestExitStatusString(t *testing.T) {
	for st, want := range map[ExitStatus]string{
		Completed: "COMPLETED", Released: "RELEASED", Killed: "KILLED", Preempted: "PREEMPTED", Lost: "LOST",
		9: "ExitStatus(9)",
	} {
		assert.Equal(t, want, st.String())
	}
}

func TestAskValidate(t *testing.T) {
	tests := []struct {
		name  string
		ask   Ask
		field string // "" = valid
		value any
	}{
		{"any", Ask{ResourceName: AnyResource, Count: 2, Capability: berth.New(1, 1)}, "", nil},
		{"zero count cancels", Ask{ResourceName: "h1"}, "", nil},
		{"empty name", Ask{Count: 1}, "asks[0].resource-name", ""},
		{"negative count", Ask{ResourceName: "/r", Count: -1}, "asks[0].count", -1},
		{"negative capability", Ask{ResourceName: "h", Capability: berth.New(0, -1)}, "asks[0].capability", berth.New(0, -1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.ask.Validate("asks[0]")
			if tc.field == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, berth.ErrInvalidArgument)
			var fe *berth.FieldError
			if assert.True(t, errors.As(err, &fe)) {
				assert.Equal(t, tc.field, fe.Field)
				assert.Equal(t, tc.value, fe.Value)
			}
		})
	}
}

func TestRacks(t *testing.T) {
	var r Racks
	assert.Equal(t, 0, r.Nodes("/r1"))
	assert.True(t, r.IsRack("/r1", false), "a leading slash always means a rack")
	assert.True(t, r.IsRack("/r1", true))
	r.Add("/r1")
	r.Add("/r1")
	r.Add("rackless")
	assert.Equal(t, 2, r.Nodes("/r1"))
	assert.True(t, r.IsRack("rackless", false), "a rack some node sits on")
	assert.False(t, r.IsRack("rackless", true), "a node of that name wins")
	assert.False(t, r.IsRack("h1", false), "unknown names are hosts")
	r.Remove("/r1")
	assert.Equal(t, 1, r.Nodes("/r1"))
	r.Remove("rackless")
	assert.False(t, r.IsRack("rackless", false), "an empty rack is forgotten")
	r.Remove("nowhere")
	assert.Equal(t, 0, r.Nodes("nowhere"))
}

func TestCheckRelease(t *testing.T) {
	owned := func(id ContainerID) bool { return id%2 == 0 }
	assert.NoError(t, CheckRelease(nil, owned))
	assert.NoError(t, CheckRelease([]ContainerID{2, 4}, owned))
	err := CheckRelease([]ContainerID{2, 3, 5}, owned)
	assert.ErrorIs(t, err, berth.ErrNotFound)
	var fe *berth.FieldError
	if assert.True(t, errors.As(err, &fe)) {
		assert.Equal(t, "release[1]", fe.Field, "the first unknown id")
		assert.Equal(t, ContainerID(3), fe.Value)
	}
}

func TestAppSpecValidate(t *testing.T) {
	tests := []struct {
		name  string
		spec  AppSpec
		field string // "" = valid
	}{
		{"minimal", AppSpec{ID: "a", User: "u"}, ""},
		{"with AM", AppSpec{ID: "a", User: "u", AMResource: berth.New(1024, 1)}, ""},
		{"no id", AppSpec{User: "u"}, "app.id"},
		{"no user", AppSpec{ID: "a"}, "app.user"},
		{"negative AM", AppSpec{ID: "a", User: "u", AMResource: berth.New(-1, 1)}, "app.am-resource"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.spec.Validate()
			if tc.field == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, berth.ErrInvalidArgument)
			var fe *berth.FieldError
			if assert.True(t, errors.As(err, &fe)) {
				assert.Equal(t, tc.field, fe.Field)
			}
		})
	}
}
