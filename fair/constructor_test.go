package fair

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConfigClockAndAllocation: the clock and the allocation file are
// fields of Config; New refuses a nil clock naming it, a nil file is an
// empty <allocations/>, and Config reports the clock and the file last
// loaded.
func TestConfigClockAndAllocation(t *testing.T) {
	_, err := New(DefaultConfig())
	var fe *berth.FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "clock", fe.Field)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)

	clock := berth.NewManualClock(0)
	cfg := DefaultConfig()
	cfg.Clock = clock
	s, err := New(cfg)
	require.NoError(t, err)
	assert.Same(t, clock, s.Config().Clock)
	require.NotNil(t, s.Config().Allocation, "nil is an empty allocation file")

	af, err := ParseAllocationFile([]byte(`<allocations><queue name="a"/></allocations>`), ParseOptions{})
	require.NoError(t, err)
	cfg.Allocation = af
	s, err = New(cfg)
	require.NoError(t, err)
	assert.Same(t, af, s.Config().Allocation)
	again, err := ParseAllocationFile([]byte(`<allocations><queue name="b"/></allocations>`), ParseOptions{})
	require.NoError(t, err)
	_, err = s.Reload(again)
	require.NoError(t, err)
	assert.Same(t, again, s.Config().Allocation, "the file last loaded")
}
