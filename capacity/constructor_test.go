package capacity

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConfigClock: the clock is a field of Config; New refuses a nil one
// naming it, Config reports the one in force, and Reconfigure keeps it
// whatever the new configuration's Clock says (a parsed file has none).
func TestConfigClock(t *testing.T) {
	_, err := New(DefaultConfig())
	var fe *berth.FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "clock", fe.Field)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)

	clock := berth.NewManualClock(7)
	cfg := DefaultConfig()
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	assert.Same(t, clock, s.Config().Clock)

	ch, err := s.Reconfigure(DefaultConfig())
	require.NoError(t, err)
	assert.False(t, ch.Global, "a configuration without a clock changes no global setting")
	assert.Same(t, clock, s.Config().Clock)
	other := DefaultConfig()
	other.Clock = berth.NewManualClock(99)
	_, err = s.Reconfigure(other)
	require.NoError(t, err)
	assert.Same(t, clock, s.Config().Clock, "the clock is New's")
}
