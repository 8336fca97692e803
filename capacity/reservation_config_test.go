package capacity

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// reservationXML is a tree with a reservable queue that sets every
// reservation key, and the ResourceManager's reservation-system keys.
func reservationXML(extra ...string) string {
	props := []string{
		prefix + "root.queues", "default,dedicated",
		prefix + "root.default.capacity", "40",
		prefix + "root.dedicated.capacity", "60",
		prefix + "root.dedicated.reservable", "true",
		prefix + "root.dedicated.reservation-window", "7200000",
		prefix + "root.dedicated.average-capacity", "60",
		prefix + "root.dedicated.instantaneous-max-capacity", "80",
		prefix + "root.dedicated.reservation-agent", "org.apache.hadoop.yarn.server.resourcemanager.reservation.planning.GreedyReservationAgent",
		prefix + "root.dedicated.reservation-policy", "NoOverCommitPolicy",
		prefix + "root.dedicated.reservation-planner", "SimpleCapacityReplanner",
		prefix + "root.dedicated.reservation-enforcement-window", "600000",
		prefix + "root.dedicated.show-reservations-as-queues", "true",
		prefix + "root.dedicated.reservation-move-on-expiry", "false",
		prefix + "root.dedicated.acl_submit_reservations", "alice",
		queue.KeyReservationSystemEnable, "true",
		queue.KeyPlanFollowerStep, "5000",
		queue.KeySmoothnessFactor, "4",
	}
	return xmlDoc(append(props, extra...)...)
}

func TestParseXMLReadsReservationKeys(t *testing.T) {
	cfg, rep, err := ParseXMLReport(strings.NewReader(reservationXML()), XMLOptions{})
	require.NoError(t, err)
	def, ded := cfg.Root.Children[0], cfg.Root.Children[1]
	assert.Nil(t, def.Settings.Reservation, "a queue that sets no reservation key keeps YARN's defaults")
	require.NotNil(t, ded.Settings.Reservation)
	acls := queue.AllowAllReservations()
	acls.Submit = queue.ParseACL("alice")
	assert.Equal(t, queue.ReservationSettings{
		Window: 7_200_000, AveragePercent: 60, InstantaneousMaxPercent: 80,
		Agent:   "org.apache.hadoop.yarn.server.resourcemanager.reservation.planning.GreedyReservationAgent",
		Policy:  "NoOverCommitPolicy",
		Planner: "SimpleCapacityReplanner", EnforcementWindow: 600_000,
		ShowAsQueues: true, MoveOnExpiry: false, ACLs: &acls,
	}, *ded.Settings.Reservation)

	want := queue.DefaultReservationSystemSettings()
	want.Enabled, want.Step, want.SmoothnessFactor = true, 5000, 4
	require.NotNil(t, cfg.ReservationSystem)
	assert.Equal(t, want, *cfg.ReservationSystem)

	// The report lists every reservation key as read, none as a finding.
	assert.Empty(t, rep.Notes)
	for _, k := range []string{prefix + "root.dedicated.average-capacity", prefix + "root.dedicated.reservation-agent",
		prefix + "root.dedicated.show-reservations-as-queues", queue.KeyReservationSystemEnable, queue.KeyPlanFollowerStep} {
		_, ok := rep.ReadValue(k)
		assert.True(t, ok, k)
	}
	v, _ := rep.ReadValue(prefix + "root.dedicated.average-capacity")
	assert.Equal(t, "60", v)

	// Without any of the keys, nothing is set: YARN's defaults apply.
	plain, err := ParseXML(strings.NewReader(xmlDoc(prefix+"root.queues", "a", prefix+"root.a.capacity", "100")))
	require.NoError(t, err)
	assert.Nil(t, plain.ReservationSystem)
	assert.Nil(t, plain.Root.Children[0].Settings.Reservation)
}

func TestParseXMLReservationKeyErrorsNameTheKey(t *testing.T) {
	for _, tc := range []struct{ key, value string }{
		{prefix + "root.dedicated.average-capacity", "sixty"},
		{prefix + "root.dedicated.average-capacity", "-1"},
		{prefix + "root.dedicated.instantaneous-max-capacity", "NaN"},
		{prefix + "root.dedicated.reservation-window", "0"},
		{prefix + "root.dedicated.reservation-window", "1h"},
		{prefix + "root.dedicated.reservation-enforcement-window", "-5"},
		{prefix + "root.dedicated.reservation-agent", ""},
		{prefix + "root.dedicated.reservation-move-on-expiry", "yes"},
		{queue.KeyReservationSystemEnable, "on"},
		{queue.KeySmoothnessFactor, "-1"},
		{queue.KeyMaxPeriodicity, "1d"},
	} {
		t.Run(tc.key+"="+tc.value, func(t *testing.T) {
			_, err := ParseXML(strings.NewReader(reservationXML(tc.key, tc.value)))
			var fe *berth.FieldError
			require.True(t, errors.As(err, &fe), "%v", err)
			assert.Equal(t, tc.key, fe.Field)
			assert.ErrorIs(t, err, berth.ErrInvalidArgument)
		})
	}
}

// New refuses invalid reservation settings given in Go, naming the key.
func TestNewValidatesReservationSettings(t *testing.T) {
	cfg := DefaultConfig()
	q := Queue("dedicated", 100)
	q.Reservable = true
	bad := queue.DefaultReservationSettings()
	bad.AveragePercent = -3
	q.Settings.Reservation = &bad
	cfg.Root.Children = []QueueConfig{q}
	cfg.Clock = berth.NewManualClock(0)
	_, err := New(cfg)
	var fe *berth.FieldError
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, prefix+"root.dedicated.average-capacity", fe.Field)

	cfg.Root.Children[0].Settings.Reservation = nil
	cfg.ReservationSystem = &queue.ReservationSystemSettings{SmoothnessFactor: -1}
	cfg.Clock = berth.NewManualClock(0)
	_, err = New(cfg)
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, queue.KeySmoothnessFactor, fe.Field)
}

// The reservation settings survive a snapshot, and the configuration
// returned is a copy the caller cannot change the scheduler through.
func TestReservationSettingsSaveRestore(t *testing.T) {
	cfg, err := ParseXML(strings.NewReader(reservationXML()))
	require.NoError(t, err)
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.AddReservationQueue("dedicated", "reservation_1"))
	got := s.Config()
	got.Root.Children[1].Settings.Reservation.AveragePercent = 1
	got.ReservationSystem.Step = 1
	assert.Equal(t, cfg, s.Config(), "Config returns a deep copy")

	var buf bytes.Buffer
	require.NoError(t, s.SaveState(&buf))
	r, err := RestoreScheduler(&buf, RestoreEnv{Clock: clock})
	require.NoError(t, err)
	assert.Equal(t, cfg, r.Config())
	assert.Equal(t, saveBytes(t, s), saveBytes(t, r))
}

// A version 1 snapshot (written before the reservation settings were
// kept) still restores, with the settings unset: YARN's defaults.
func TestRestoreVersion1Snapshot(t *testing.T) {
	b, err := os.ReadFile("testdata/capacity-v1.snap")
	require.NoError(t, err)
	s, err := RestoreScheduler(bytes.NewReader(b), RestoreEnv{Clock: berth.NewManualClock(0)})
	require.NoError(t, err)
	cfg := s.Config()
	assert.Nil(t, cfg.ReservationSystem)
	require.Len(t, cfg.Root.Children, 2)
	assert.True(t, cfg.Root.Children[1].Reservable)
	assert.Nil(t, cfg.Root.Children[1].Settings.Reservation)
	names, err := s.ReservationQueueNames("dedicated")
	require.NoError(t, err)
	assert.Equal(t, []string{"dedicated-default", "reservation_1"}, names)
	assert.Equal(t, berth.New(8192, 8), s.ClusterResource())
	require.NoError(t, s.Check())
}
