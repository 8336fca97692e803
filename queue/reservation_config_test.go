package queue_test

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

func TestReservationSettingsDefaultsAndValidate(t *testing.T) {
	var none *queue.ReservationSettings
	def := queue.DefaultReservationSettings()
	assert.Equal(t, def, none.Effective())
	assert.NoError(t, def.Validate("p."))
	assert.Nil(t, none.Clone())
	for _, tc := range []struct {
		field string
		edit  func(*queue.ReservationSettings)
	}{
		{"p.reservation-window", func(s *queue.ReservationSettings) { s.Window = 0 }},
		{"p.reservation-window", func(s *queue.ReservationSettings) { s.Window = math.MaxInt64 }},
		{"p.average-capacity", func(s *queue.ReservationSettings) { s.AveragePercent = float32(math.NaN()) }},
		{"p.instantaneous-max-capacity", func(s *queue.ReservationSettings) { s.InstantaneousMaxPercent = float32(math.Inf(1)) }},
		{"p.reservation-agent", func(s *queue.ReservationSettings) { s.Agent = " " }},
		{"p.reservation-policy", func(s *queue.ReservationSettings) { s.Policy = "" }},
		{"p.reservation-planner", func(s *queue.ReservationSettings) { s.Planner = "" }},
		{"p.reservation-enforcement-window", func(s *queue.ReservationSettings) { s.EnforcementWindow = -1 }},
	} {
		s := def
		tc.edit(&s)
		var fe *berth.FieldError
		require.True(t, errors.As(s.Validate("p."), &fe), tc.field)
		assert.Equal(t, tc.field, fe.Field)
	}
}

func TestParseReservationSystem(t *testing.T) {
	got, err := queue.ParseReservationSystem(map[string]string{"yarn.scheduler.capacity.root.queues": "a"})
	require.NoError(t, err)
	assert.Nil(t, got, "no reservation-system key: YARN's defaults")
	var none *queue.ReservationSystemSettings
	assert.Equal(t, queue.DefaultReservationSystemSettings(), none.Effective())
	assert.False(t, none.Effective().Enabled, "YARN's default: the system is off")

	got, err = queue.ParseReservationSystem(map[string]string{
		queue.KeyReservationSystemEnable: " TRUE ",
		queue.KeyReservationSystemClass:  "org.apache.hadoop.yarn.server.resourcemanager.reservation.CapacityReservationSystem",
		queue.KeyPlanFollower:            "CapacitySchedulerPlanFollower",
		queue.KeyPlanFollowerStep:        "2000",
		queue.KeyMaxPeriodicity:          "3600000",
		queue.KeyFavorEarlyAllocation:    "false",
		queue.KeySmoothnessFactor:        "3",
		queue.KeyACLEnable:               "true",
		queue.KeyReservationACLEnable:    "true",
	})
	require.NoError(t, err)
	assert.Equal(t, queue.ReservationSystemSettings{Enabled: true,
		Class:        "org.apache.hadoop.yarn.server.resourcemanager.reservation.CapacityReservationSystem",
		PlanFollower: "CapacitySchedulerPlanFollower", Step: 2000, MaxPeriodicity: 3_600_000,
		SmoothnessFactor: 3, ACLEnable: true, ReservationACLEnable: true}, *got)
	assert.True(t, got.ACLs())
	got.ACLEnable = false
	assert.False(t, got.ACLs(), "reservation ACLs need yarn.acl.enable too")

	for key, v := range map[string]string{
		queue.KeyReservationSystemEnable: "yes",
		queue.KeyPlanFollowerStep:        "1s",
		queue.KeySmoothnessFactor:        "-2",
		queue.KeyReservationACLEnable:    "",
	} {
		_, err := queue.ParseReservationSystem(map[string]string{key: v})
		var fe *berth.FieldError
		require.True(t, errors.As(err, &fe), key)
		assert.Equal(t, key, fe.Field)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	}
}

func TestReservationSettingsStateRoundTrip(t *testing.T) {
	acls := queue.AllowAllReservations()
	acls.Administer = queue.ParseACL("ops admins")
	full := queue.DefaultReservationSettings()
	full.AveragePercent, full.ShowAsQueues, full.ACLs = 60, true, &acls
	sys := queue.DefaultReservationSystemSettings()
	sys.Enabled, sys.SmoothnessFactor = true, 7
	var buf bytes.Buffer
	e := berth.NewStateEncoder(&buf, "test.Reservation", 1)
	for _, s := range []*queue.ReservationSettings{nil, &full} {
		queue.WriteReservationSettings(e, s)
	}
	for _, s := range []*queue.ReservationSystemSettings{nil, &sys} {
		queue.WriteReservationSystemSettings(e, s)
	}
	require.NoError(t, e.Finish())
	d, err := berth.NewStateDecoder(&buf, "test.Reservation", 1)
	require.NoError(t, err)
	assert.Nil(t, queue.ReadReservationSettings(d))
	got := queue.ReadReservationSettings(d)
	assert.Nil(t, queue.ReadReservationSystemSettings(d))
	gotSys := queue.ReadReservationSystemSettings(d)
	require.NoError(t, d.Finish())
	require.NotNil(t, got)
	require.NotNil(t, got.ACLs)
	assert.Equal(t, acls.Administer.String(), got.ACLs.Administer.String())
	got.ACLs, full.ACLs = nil, nil
	assert.Equal(t, full, *got)
	assert.Equal(t, sys, *gotSys)
}

// Notes of kind NoteRead are kept apart: they are no finding.
func TestConfigReportRead(t *testing.T) {
	var r queue.ConfigReport
	r.Add(queue.ConfigNote{Kind: queue.NoteRead, Key: "b", Value: "2"})
	r.Add(queue.ConfigNote{Kind: queue.NoteRead, Key: "a", Value: "1"})
	r.Sort()
	assert.Empty(t, r.Notes)
	assert.True(t, r.Clean())
	assert.NoError(t, r.Err("f"))
	assert.Empty(t, r.String())
	assert.Equal(t, "a", r.Read[0].Key)
	assert.Len(t, r.Of(queue.NoteRead), 2)
	v, ok := r.ReadValue("b")
	assert.True(t, ok)
	assert.Equal(t, "2", v)
	_, ok = r.ReadValue("c")
	assert.False(t, ok)
	assert.Equal(t, `read a = "1"`, r.Read[0].String())
	var m queue.ConfigReport
	m.Add(queue.ConfigNote{Kind: queue.NoteUnknown, Key: "x"})
	m.Merge(r)
	assert.Len(t, m.Notes, 1)
	assert.Len(t, m.Read, 2)
	assert.Equal(t, "read", queue.NoteRead.String())
}
