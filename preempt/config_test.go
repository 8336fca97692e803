package preempt_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/preempt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultsAreYARNs(t *testing.T) {
	c := preempt.DefaultProportionalConfig()
	assert.Equal(t, berth.Duration(3000), c.MonitoringInterval)
	assert.Equal(t, berth.Duration(15000), c.MaxWaitBeforeKill)
	assert.Equal(t, 0.1, c.TotalPreemptionPerRound)
	assert.Equal(t, 0.1, c.MaxIgnoredOverCapacity)
	assert.Equal(t, 0.2, c.NaturalTerminationFactor)
	assert.False(t, c.ObserveOnly || c.SelectBasedOnReservedContainers || c.AdditionalBalanceBasedOnReserved ||
		c.IntraQueueEnabled || c.ConservativeDRF || c.BalanceAfterSatisfied || c.PriorityPreemption || c.PriorityAllowMoveReservation)
	assert.Equal(t, 0.5, c.IntraQueueMinimumThreshold)
	assert.Equal(t, 0.2, c.IntraQueueMaxAllowableLimit)
	assert.Equal(t, preempt.UserLimitFirst, c.IntraQueueOrder)
	assert.True(t, c.IntraQueueConservativeDRF)
	assert.Equal(t, berth.Duration(300000), c.BalanceMaxWaitBeforeKill)
	assert.Equal(t, berth.Duration(60000), c.PriorityReservedContainerDelay)
	require.NoError(t, c.Validate())
}

const sampleXML = `<?xml version="1.0"?>
<configuration>
  <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval</name><value>1000</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill</name><value>5000</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round</name><value>0.3</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.max_ignored_over_capacity</name><value>0</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor</name><value>1.0</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.observe_only</name><value>true</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.select_based_on_reserved_containers</name><value>true</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.additional_res_balance_based_on_reserved_containers</name><value>true</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.enabled</name><value>true</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.minimum-threshold</name><value>0.3</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.max-allowable-limit</name><value>0.4</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.preemption-order-policy</name><value>priority_first</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.conservative-drf</name><value>true</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.conservative-drf</name><value>false</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.preemption-to-balance-queue-after-satisfied.enabled</name><value>true</value></property>
  <property><name>yarn.resourcemanager.monitor.capacity.preemption.preemption-to-balance-queue-after-satisfied.max-wait-before-kill</name><value>60000</value></property>
  <property><name>yarn.scheduler.capacity.ordering-policy.priority-utilization.underutilized-preemption.enabled</name><value>true</value></property>
  <property><name>yarn.scheduler.capacity.ordering-policy.priority-utilization.underutilized-preemption.reserved-container-delay-ms</name><value>1000</value></property>
  <property><name>yarn.scheduler.capacity.ordering-policy.priority-utilization.underutilized-preemption.allow-move-reservation</name><value>true</value></property>
  <property><name>yarn.scheduler.capacity.root.a.disable_preemption</name><value>true</value></property>
  <property><name>yarn.scheduler.capacity.root.a.x.disable_preemption</name><value>false</value></property>
  <property><name>yarn.scheduler.capacity.root.b.intra-queue-preemption.disable_preemption</name><value>true</value></property>
</configuration>`

func TestParseProportionalXML(t *testing.T) {
	c, err := preempt.ParseProportionalXML(strings.NewReader(sampleXML))
	require.NoError(t, err)
	yes, no := true, false
	want := preempt.ProportionalConfig{
		MonitoringInterval: 1000, MaxWaitBeforeKill: 5000, TotalPreemptionPerRound: 0.3, MaxIgnoredOverCapacity: 0,
		NaturalTerminationFactor: 1, ObserveOnly: true, SelectBasedOnReservedContainers: true, AdditionalBalanceBasedOnReserved: true,
		IntraQueueEnabled: true, IntraQueueMinimumThreshold: 0.3, IntraQueueMaxAllowableLimit: 0.4, IntraQueueOrder: preempt.PriorityFirst,
		ConservativeDRF: true, IntraQueueConservativeDRF: false, BalanceAfterSatisfied: true, BalanceMaxWaitBeforeKill: 60000,
		PriorityPreemption: true, PriorityReservedContainerDelay: 1000, PriorityAllowMoveReservation: true,
		Queues: map[string]preempt.QueuePreemption{
			"root.a":   {DisablePreemption: &yes},
			"root.a.x": {DisablePreemption: &no},
			"root.b":   {DisableIntraQueuePreemption: &yes},
		},
	}
	assert.Equal(t, want, c)
	sels := preempt.DefaultSelectors(c)
	var names []string
	for _, s := range sels {
		names = append(names, s.Name())
	}
	assert.Equal(t, []string{"queue-priority", "reserved", "fifo", "fifo-balance", "intra-queue"}, names, "YARN's order")
}

func TestParseProportionalErrors(t *testing.T) {
	for _, tc := range []struct{ key, value string }{
		{preempt.MonitorPrefix + "max_wait_before_kill", "-1"},
		{preempt.MonitorPrefix + "max_wait_before_kill", "soon"},
		{preempt.MonitorPrefix + "total_preemption_per_round", "NaN"},
		{preempt.MonitorPrefix + "natural_termination_factor", "-0.5"},
		{preempt.MonitorPrefix + "observe_only", "yes"},
		{preempt.MonitorPrefix + "intra-queue-preemption.preemption-order-policy", "random"},
		{"yarn.scheduler.capacity.root.a.disable_preemption", "maybe"},
		{"yarn.scheduler.capacity.ordering-policy.priority-utilization.underutilized-preemption.reserved-container-delay-ms", "x"},
	} {
		_, err := preempt.ParseProportionalProperties(map[string]string{tc.key: tc.value})
		var fe *berth.FieldError
		require.ErrorAs(t, err, &fe, tc.key)
		assert.Equal(t, tc.key, fe.Field)
		assert.True(t, errors.Is(err, berth.ErrInvalidArgument))
	}
	_, err := preempt.ParseProportionalXML(strings.NewReader("<nope"))
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	c := preempt.DefaultProportionalConfig()
	c.TotalPreemptionPerRound = -1
	var fe *berth.FieldError
	require.ErrorAs(t, c.Validate(), &fe)
	assert.Equal(t, preempt.MonitorPrefix+"total_preemption_per_round", fe.Field)
	_, err = preempt.NewProportional(preempt.ProportionalSetup{Config: preempt.DefaultProportionalConfig()})
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
}

// The capacity scheduler's own parser reads the same file.
func FuzzParseProportionalProperties(f *testing.F) {
	f.Add(preempt.MonitorPrefix+"total_preemption_per_round", "0.5")
	f.Add("yarn.scheduler.capacity.root.a.disable_preemption", "true")
	f.Add("yarn.scheduler.capacity..disable_preemption", "true")
	f.Add(preempt.MonitorPrefix+"max_wait_before_kill", "99999999999999999999")
	f.Fuzz(func(t *testing.T, k, v string) {
		c, err := preempt.ParseProportionalProperties(map[string]string{k: v})
		if err != nil {
			var fe *berth.FieldError
			require.ErrorAs(t, err, &fe)
			return
		}
		require.NoError(t, c.Validate(), "a parsed config is valid")
		c2, err := preempt.ParseProportionalXML(strings.NewReader(sampleXML))
		require.NoError(t, err)
		require.NoError(t, c2.Validate())
	})
}
