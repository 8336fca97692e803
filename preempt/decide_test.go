package preempt_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/preempt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// policyWorld is one seeded world with a policy over it.
type policyWorld struct {
	s     *capacity.Scheduler
	clock *berth.ManualClock
	p     *preempt.Proportional
}

func newPolicyWorld(t *testing.T, seed uint64, chain int) policyWorld {
	rng := rand.New(rand.NewPCG(seed, 31))
	w, _ := randomCapWorld(rng, false)
	randomizePriorities(rng, w)
	cfg := randomProportionalConfig(rng)
	ch := hashedChains[chain]
	cfg.PriorityPreemption, cfg.IntraQueueEnabled, cfg.BalanceAfterSatisfied = ch.priority, ch.intra, ch.balanced
	s, clock := w.build(t)
	p, err := preempt.NewProportional(preempt.ProportionalSetup{State: s, Actor: s, Config: cfg})
	require.NoError(t, err)
	return policyWorld{s, clock, p}
}

// oneCallRoundHash fingerprints the reports and the scheduler's
// containers of every round of TestDecideThenApplyEqualsRound, taken from
// the one-call Round before it was split into Decide and Apply.
const oneCallRoundHash = "5c3162d194bf41d0748ad5b8d901912adc5fb849ddf6607d1d076c8c468adaaf"

// TestDecideThenApplyEqualsRound drives two copies of each random world:
// one by Round, the other by Decide (twice, the first plan dropped: a
// decision changes nothing) and Apply. Reports, the policies' snapshots
// and the schedulers' containers must agree after every round, and the
// second copy's rounds must fingerprint as the one-call Round's did.
func TestDecideThenApplyEqualsRound(t *testing.T) {
	h := sha256.New()
	for seed := uint64(1); seed <= 12; seed++ {
		for chain := range hashedChains {
			one, two := newPolicyWorld(t, seed, chain), newPolicyWorld(t, seed, chain)
			for round := 0; round < 8; round++ {
				want, err := one.p.Round(one.clock.Now())
				require.NoError(t, err)
				before := two.s.Snapshot().Containers
				_, err = two.p.Decide(two.clock.Now())
				require.NoError(t, err)
				plan, err := two.p.Decide(two.clock.Now())
				require.NoError(t, err)
				require.Equal(t, before, two.s.Snapshot().Containers, "deciding acts on nothing")
				got, err := two.p.Apply(plan)
				require.NoError(t, err)
				require.Equal(t, reportText(want), reportText(got), "seed %d chain %d round %d", seed, chain, round)
				require.Equal(t, one.s.Snapshot().Containers, two.s.Snapshot().Containers)
				var a, b bytes.Buffer
				require.NoError(t, one.p.SaveState(&a))
				require.NoError(t, two.p.SaveState(&b))
				require.Equal(t, a.Bytes(), b.Bytes())
				fmt.Fprintln(h, reportText(got))
				for _, c := range two.s.Snapshot().Containers {
					fmt.Fprintf(h, "%d %v %v\n", c.ID, c.App, c.Resource)
				}
				for _, w := range []policyWorld{one, two} {
					w.clock.Advance(3000)
					_, err = w.s.Heartbeat("n1", nil)
					require.NoError(t, err)
				}
			}
		}
	}
	assert.Equal(t, oneCallRoundHash, hex.EncodeToString(h.Sum(nil)))
}

// TestApplyHonoursVeto: candidates the host removes from a plan are not
// acted on, and the others are acted on as without the veto.
func TestApplyHonoursVeto(t *testing.T) {
	acted := 0
	for seed := uint64(1); seed <= 12; seed++ {
		full, vetoed := newPolicyWorld(t, seed, 3), newPolicyWorld(t, seed, 3)
		planFull, err := full.p.Decide(0)
		require.NoError(t, err)
		planVetoed, err := vetoed.p.Decide(0)
		require.NoError(t, err)
		var kept []preempt.Candidate
		dropped := map[preempt.ContainerID]bool{}
		for i, c := range planVetoed.Candidates {
			if i%2 == 0 {
				kept = append(kept, c)
			} else {
				dropped[c.ID] = true
			}
		}
		planVetoed.Candidates = kept
		repFull, err := full.p.Apply(planFull)
		require.NoError(t, err)
		rep, err := vetoed.p.Apply(planVetoed)
		require.NoError(t, err)
		require.Len(t, rep.Decisions, len(kept))
		for i, d := range rep.Decisions {
			assert.Equal(t, repFull.Decisions[2*i].ID, d.ID)
			assert.Equal(t, repFull.Decisions[2*i].Action, d.Action)
		}
		for id := range vetoed.p.Marked() {
			assert.False(t, dropped[id], "vetoed container %d marked", id)
			acted++
		}
	}
	assert.Positive(t, acted, "the worlds mark something")
}

func TestApplyRefusesNoPlan(t *testing.T) {
	w := newPolicyWorld(t, 1, 0)
	_, err := w.p.Apply(nil)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
}

// TestApplyRefusesForeignAndStalePlans: a plan is applied once, by the
// policy that decided it, before any later plan; otherwise Apply names
// the plan and does nothing (a plan applied twice with no kill wait would
// kill what its first application only marked).
func TestApplyRefusesForeignAndStalePlans(t *testing.T) {
	w, other := newPolicyWorld(t, 1, 0), newPolicyWorld(t, 1, 0)
	foreign, err := other.p.Decide(0)
	require.NoError(t, err)
	first, err := w.p.Decide(0)
	require.NoError(t, err)
	second, err := w.p.Decide(0)
	require.NoError(t, err)
	cases := []struct {
		name string
		plan *preempt.ProportionalPlan
		want string
	}{
		{"built by the host", &preempt.ProportionalPlan{Candidates: first.Candidates}, "not returned by Decide"},
		{"another policy's", foreign, "another Proportional"},
	}
	for _, c := range cases {
		_, err := w.p.Apply(c.plan)
		var fe *berth.FieldError
		require.ErrorAs(t, err, &fe, c.name)
		assert.Equal(t, "plan", fe.Field, c.name)
		assert.Contains(t, fe.Reason, c.want, c.name)
		assert.Empty(t, w.p.Marked(), c.name)
	}
	rep, err := w.p.Apply(second)
	require.NoError(t, err)
	marked := w.p.Marked()
	for name, plan := range map[string]*preempt.ProportionalPlan{"applied": second, "decided before": first, "a report": &rep.ProportionalPlan} {
		_, err = w.p.Apply(plan)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument, name)
		assert.Equal(t, marked, w.p.Marked(), name)
	}
	next, err := w.p.Decide(0)
	require.NoError(t, err)
	_, err = w.p.Apply(next)
	assert.NoError(t, err)
}
