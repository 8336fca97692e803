package preempt_test

import (
	"bytes"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/preempt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A missing side of the scheduler is refused, naming the field, by both
// constructors and both restores.
func TestSetupNamesMissingSide(t *testing.T) {
	capCfg := capacity.DefaultConfig()
	capCfg.Clock = berth.NewManualClock(0)
	cs, err := capacity.New(capCfg)
	require.NoError(t, err)
	fairCfg := fair.DefaultConfig()
	fairCfg.Clock = berth.NewManualClock(0)
	fs, err := fair.New(fairCfg)
	require.NoError(t, err)
	cases := []struct {
		name, field string
		build       func() error
	}{
		{"proportional state", "ProportionalSetup.State", func() error {
			_, err := preempt.NewProportional(preempt.ProportionalSetup{Actor: cs})
			return err
		}},
		{"proportional actor", "ProportionalSetup.Actor", func() error {
			_, err := preempt.NewProportional(preempt.ProportionalSetup{State: cs})
			return err
		}},
		{"restored proportional", "ProportionalSetup.Actor", func() error {
			_, err := preempt.RestoreProportional(bytes.NewReader(nil), preempt.ProportionalSetup{State: cs})
			return err
		}},
		{"fair state", "FairPreemptorSetup.State", func() error {
			_, err := preempt.NewFairPreemptor(preempt.FairPreemptorSetup{Actor: fs})
			return err
		}},
		{"fair actor", "FairPreemptorSetup.Actor", func() error {
			_, err := preempt.NewFairPreemptor(preempt.FairPreemptorSetup{State: fs})
			return err
		}},
		{"typed nil state", "ProportionalSetup.State", func() error {
			_, err := preempt.NewProportional(preempt.ProportionalSetup{State: (*capacity.Scheduler)(nil), Actor: cs})
			return err
		}},
		{"typed nil fair actor", "FairPreemptorSetup.Actor", func() error {
			_, err := preempt.NewFairPreemptor(preempt.FairPreemptorSetup{State: fs, Actor: (*fair.Scheduler)(nil)})
			return err
		}},
		{"restored fair", "FairPreemptorSetup.State", func() error {
			_, err := preempt.RestoreFairPreemptor(bytes.NewReader(nil), preempt.FairPreemptorSetup{Actor: fs})
			return err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var fe *berth.FieldError
			require.ErrorAs(t, c.build(), &fe)
			assert.Equal(t, c.field, fe.Field)
			assert.ErrorIs(t, fe, berth.ErrInvalidArgument)
		})
	}
}

// The zero Config is the documented default.
func TestSetupZeroValuesAreDefaults(t *testing.T) {
	capCfg := capacity.DefaultConfig()
	capCfg.Clock = berth.NewManualClock(0)
	cs, err := capacity.New(capCfg)
	require.NoError(t, err)
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: cs, Actor: cs})
	require.NoError(t, err)
	assert.Equal(t, preempt.DefaultProportionalConfig(), p.Config())

	fairCfg := fair.DefaultConfig()
	fairCfg.Clock = berth.NewManualClock(0)
	fs, err := fair.New(fairCfg)
	require.NoError(t, err)
	fp, err := preempt.NewFairPreemptor(preempt.FairPreemptorSetup{State: fs, Actor: fs})
	require.NoError(t, err)
	assert.Equal(t, preempt.DefaultFairConfig(), fp.Config())
}
