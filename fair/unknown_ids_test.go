package fair

import (
	"errors"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnknownIDsNameTheirField pins the error of every preemption hook for
// an id the scheduler does not know: ErrNotFound naming the field, spelled
// as the capacity scheduler spells it, so one preemption policy can handle both.
func TestUnknownIDsNameTheirField(t *testing.T) {
	af, err := ParseAllocationFile([]byte("<allocations/>"), ParseOptions{})
	require.NoError(t, err)
	cfg := DefaultConfig()
	cfg.Allocation = af
	cfg.Clock = berth.NewManualClock(0)
	s, err := New(cfg)
	require.NoError(t, err)
	id := ContainerID(42)
	_, errPreempt := s.PreemptContainer(id)
	_, errKill := s.KillContainer(id)
	for _, c := range []struct {
		name, field string
		err         error
	}{
		{"MarkForPreemption", "container.id", s.MarkForPreemption(id)},
		{"PreemptContainer", "container.id", errPreempt},
		{"KillContainer", "container.id", errKill},
		{"KillReservation", "reservation.id", s.KillReservation(id)},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Error(t, c.err)
			assert.ErrorIs(t, c.err, berth.ErrNotFound)
			var fe *berth.FieldError
			require.True(t, errors.As(c.err, &fe))
			assert.Equal(t, c.field, fe.Field)
		})
	}
}
