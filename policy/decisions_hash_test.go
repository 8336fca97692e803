package policy_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hashWorld runs one seeded random world through pol: 60 allocations of
// two or three users, of unequal memory and vcores, some periodic; the
// capacity shrinks once (so later checks meet an over-committed plan) and
// a few reservations are updated or deleted. It writes every decision, and
// a rejection's fields, to h.
func hashWorld(t *testing.T, h io.Writer, pol plan.SharingPolicy, seed uint64, seen map[string]int) {
	r := rand.New(rand.NewPCG(seed, 25))
	next := func(n int64) int64 { return r.Int64N(n + 1) }
	p := policyPlan(t, pol, berth.New(1024*20, 24), 10)
	users := []string{"a", "b", "c"}
	var held []plan.ReservationID
	for k := int64(1); k <= 60; k++ {
		if k == 40 {
			require.NoError(t, p.SetCapacity(berth.New(1024*12, 14)))
		}
		var ivs []plan.IntervalResource
		lo, hi := int64(1<<62), int64(-1<<62)
		for i := int64(0); i <= next(3); i++ {
			s := next(60) * 10
			e := s + (1+next(30))*10
			ivs = append(ivs, plan.IntervalResource{Interval: berth.Interval{Start: s, End: e},
				Resource: berth.New(1024*(1+next(3)), 1+next(4))})
			lo, hi = min(lo, s), max(hi, e)
		}
		id := plan.ReservationID{ClusterTimestamp: 9, Sequence: k}
		def := plan.Definition{Arrival: lo, Deadline: hi}
		if next(7) == 0 {
			def.Period = 6 * 3_600_000 // four instances in the default 24 h
		}
		a, err := plan.NewAllocation(id, users[next(2)], def, berth.Interval{Start: lo, End: hi}, ivs)
		if err != nil {
			fmt.Fprintf(h, "%v: %v\n", id, err)
			continue
		}
		switch op := next(9); {
		case op == 0 && len(held) > 0:
			old := held[next(int64(len(held)-1))]
			b, err := plan.NewAllocation(old, a.User, def, berth.Interval{Start: lo, End: hi}, ivs)
			require.NoError(t, err, "as a above")
			err = p.UpdateReservation(b)
			fmt.Fprintf(h, "update %v: %v\n", old, err)
			continue
		case op == 1 && len(held) > 0:
			fmt.Fprintf(h, "delete %v: %v\n", held[0], p.DeleteReservation(held[0]))
			held = held[1:]
			continue
		}
		verdict := pol.Validate(p, a)
		var rej *policy.RejectionError
		if errors.As(verdict, &rej) {
			fmt.Fprintf(h, "%v: %+v\n", id, *rej)
			seen[rej.Check.String()]++
			if rej.OverCommit && k >= 40 {
				seen["over-committed plan"]++
			}
		}
		if a.IsPeriodic() {
			seen["periodic"]++
		}
		err = p.AddReservation(a)
		fmt.Fprintf(h, "%v: %v\n", id, err)
		require.Equal(t, verdict == nil, err == nil, "the plan adds what the policy validates")
		if err == nil {
			held = append(held, id)
			seen["accepted"]++
		}
	}
}

// TestDecisionHashes fingerprints the decisions of the policies on seeded
// random worlds. The hashes were taken before the fit check was split into
// named steps: a refactoring must leave each of them as it is.
func TestDecisionHashes(t *testing.T) {
	configs := map[string]func() policy.CapacityOverTimeConfig{
		"capacity-over-time": policy.DefaultCapacityOverTimeConfig,
		"capacity-over-time-capped": func() policy.CapacityOverTimeConfig {
			c := policy.DefaultCapacityOverTimeConfig()
			c.InstantaneousMaxPercent, c.AveragePercent, c.Window = 50, 30, 400
			return c
		},
		"capacity-over-time-exact": func() policy.CapacityOverTimeConfig {
			c := policy.DefaultCapacityOverTimeConfig()
			c.InstantaneousMaxPercent, c.AveragePercent, c.Window, c.ExactAverage = 60, 40, 300, true
			return c
		},
	}
	want := map[string]string{
		"no-over-commit":            "3b94063c0996baa7",
		"capacity-over-time":        "14283741de6f9a67",
		"capacity-over-time-capped": "9b64f8672244c5b9",
		"capacity-over-time-exact":  "83a36c73131e5014",
	}
	names := []string{"no-over-commit", "capacity-over-time", "capacity-over-time-capped", "capacity-over-time-exact"}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			h := sha256.New()
			seen := map[string]int{}
			for seed := uint64(0); seed < 40; seed++ {
				var pol plan.SharingPolicy = policy.NoOverCommit{}
				if cfg, ok := configs[name]; ok {
					cot, err := policy.NewCapacityOverTime(cfg())
					require.NoError(t, err)
					pol = cot
				}
				hashWorld(t, h, pol, seed, seen)
			}
			t.Logf("%v", seen)
			assert.Positive(t, seen["accepted"])
			assert.Positive(t, seen["periodic"])
			assert.Positive(t, seen[policy.CheckCapacity.String()])
			got := hex.EncodeToString(h.Sum(nil))[:16]
			if !assert.Equal(t, want[name], got, "the decisions of %s changed", name) {
				t.Logf("hash: %q: %q,", name, got)
			}
		})
	}
}
