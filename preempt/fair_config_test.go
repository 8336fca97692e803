package preempt

import (
	"errors"
	"math"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFairConfigDefaultsAndKeys(t *testing.T) {
	c, err := ParseFairConfig(nil)
	require.NoError(t, err)
	assert.Equal(t, DefaultFairConfig(), c)
	assert.False(t, c.Enabled)
	assert.Equal(t, 0.8, c.UtilizationThreshold)
	assert.Equal(t, berth.Duration(15000), c.WaitTimeBeforeKill)
	assert.Equal(t, berth.Duration(10000), c.WaitBeforeNextStarvationCheck)
	assert.Equal(t, berth.Duration(15000+4*1000+10000), c.StarvationBackoff(), "kill wait + 4 heartbeats + extra wait")

	c, err = ParseFairConfig(map[string]string{
		FairKeyPreemption:                    " TRUE ",
		FairKeyUtilizationThreshold:          "0.5",
		FairKeyWaitTimeBeforeKill:            "123",
		FairKeyWaitBeforeNextStarvation:      "321",
		FairKeyContinuousScheduling:          "true",
		FairKeyContinuousSchedulingSleep:     "7",
		FairKeyNMHeartbeatInterval:           "500",
		FairKeyKillUnneeded:                  "false",
		"yarn.scheduler.fair.assignmultiple": "true", // not ours: ignored
	})
	require.NoError(t, err)
	assert.Equal(t, FairConfig{Enabled: true, UtilizationThreshold: 0.5, WaitTimeBeforeKill: 123, WaitBeforeNextStarvationCheck: 321,
		ContinuousScheduling: true, ContinuousSchedulingSleep: 7, NMHeartbeatInterval: 500}, c)
	assert.Equal(t, berth.Duration(123+70+321), c.StarvationBackoff(), "10 continuous-scheduling runs")

	var fc fair.Config
	c.ApplyTo(&fc)
	assert.True(t, fc.Preemption)
	assert.Equal(t, 0.5, fc.PreemptionUtilizationThreshold)
}

func TestParseFairConfigErrorsNameTheKey(t *testing.T) {
	for _, tc := range []struct{ key, value string }{
		{FairKeyPreemption, "yes"},
		{FairKeyUtilizationThreshold, "most"},
		{FairKeyUtilizationThreshold, "NaN"},
		{FairKeyUtilizationThreshold, "+Inf"},
		{FairKeyWaitTimeBeforeKill, "15s"},
		{FairKeyWaitTimeBeforeKill, "-1"},
		{FairKeyWaitBeforeNextStarvation, "-5"},
		{FairKeyContinuousSchedulingSleep, "99999999999999999999"},
		{FairKeyNMHeartbeatInterval, "-1000"},
		{FairKeyKillUnneeded, "1"},
	} {
		_, err := ParseFairConfig(map[string]string{tc.key: tc.value})
		require.Error(t, err, "%s=%s", tc.key, tc.value)
		var fe *berth.FieldError
		require.True(t, errors.As(err, &fe))
		assert.Equal(t, tc.key, fe.Field)
		assert.True(t, errors.Is(err, berth.ErrInvalidArgument))
	}
}

// YARN adds the delays in long arithmetic and wraps; the back-off
// saturates instead, and a round at the end of time does not overflow.
func TestFairBackoffSaturates(t *testing.T) {
	c := DefaultFairConfig()
	c.WaitTimeBeforeKill = math.MaxInt64 - 5
	assert.Equal(t, berth.Duration(math.MaxInt64), c.StarvationBackoff())
	c = DefaultFairConfig()
	c.NMHeartbeatInterval = math.MaxInt64 / 2
	assert.Equal(t, berth.Duration(math.MaxInt64), c.StarvationBackoff())
	c.ContinuousScheduling, c.ContinuousSchedulingSleep = true, math.MaxInt64/3
	assert.Equal(t, berth.Duration(math.MaxInt64), c.StarvationBackoff())
}

func TestNewFairPreemptorRejectsBadInput(t *testing.T) {
	_, err := NewFairPreemptor(FairPreemptorSetup{Config: DefaultFairConfig()})
	assert.True(t, errors.Is(err, berth.ErrInvalidArgument))
	c := DefaultFairConfig()
	c.WaitTimeBeforeKill = -1
	f := &fakeFair{}
	_, err = NewFairPreemptor(FairPreemptorSetup{State: f, Actor: f, Config: c})
	var fe *berth.FieldError
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, FairKeyWaitTimeBeforeKill, fe.Field)
}

func FuzzParseFairConfig(f *testing.F) {
	keys := []string{FairKeyPreemption, FairKeyUtilizationThreshold, FairKeyWaitTimeBeforeKill, FairKeyWaitBeforeNextStarvation,
		FairKeyContinuousScheduling, FairKeyContinuousSchedulingSleep, FairKeyNMHeartbeatInterval, FairKeyKillUnneeded}
	f.Add(uint8(0), "true", uint8(1), "0.8")
	f.Add(uint8(2), "-1", uint8(6), "9223372036854775807")
	f.Add(uint8(5), "3", uint8(4), "TRUE")
	f.Add(uint8(1), "NaN", uint8(3), " 12 ")
	f.Fuzz(func(t *testing.T, k1 uint8, v1 string, k2 uint8, v2 string) {
		props := map[string]string{keys[int(k1)%len(keys)]: v1, keys[int(k2)%len(keys)]: v2}
		c, err := ParseFairConfig(props)
		if err != nil {
			var fe *berth.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("untyped error %v", err)
			}
			if _, ok := props[fe.Field]; !ok {
				t.Fatalf("error names %q, not a given key", fe.Field)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("parsed config invalid: %v", err)
		}
		if c.StarvationBackoff() < 0 {
			t.Fatalf("negative back-off %d", c.StarvationBackoff())
		}
	})
}
