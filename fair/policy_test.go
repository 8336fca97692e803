package fair

import (
	"fmt"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func drfS(usage berth.Resource, w float64, minShare berth.Resource) *Schedulable {
	return &Schedulable{Name: "s", Usage: usage, Weight: w, MinShare: minShare, MaxShare: Unbounded(), Demand: usage}
}

// C-01..C-10 with the two-type and the N-type comparator.
func TestDRFComparatorVectors(t *testing.T) {
	r := berth.New
	for _, tc := range []struct {
		name    string
		cluster berth.Resource
		s1, s2  *Schedulable
		want    int
	}{
		{"C-01", r(8000, 4), drfS(r(1000, 1), 1, r(0, 0)), drfS(r(2000, 1), 1, r(0, 0)), -1},
		{"C-02", r(8000, 8), drfS(r(4000, 3), 1, r(0, 0)), drfS(r(2000, 5), 1, r(0, 0)), -1},
		{"C-03", r(8000, 8), drfS(r(2000, 5), 1, r(0, 6)), drfS(r(4000, 3), 1, r(0, 0)), -1},
		{"C-04", r(8000, 100), drfS(r(2000, 5), 1, r(0, 0)), drfS(r(4000, 3), 1, r(0, 0)), -1},
		{"C-05", r(8000, 100), drfS(r(2000, 5), 1, r(3000, 6)), drfS(r(4000, 3), 1, r(5000, 4)), -1},
		{"C-06", r(8000, 8), drfS(r(3000, 1), 2, r(0, 0)), drfS(r(2000, 1), 1, r(0, 0)), -1},
		{"C-07", r(8000, 8), drfS(r(1000, 3), 2, r(0, 0)), drfS(r(1000, 2), 1, r(0, 0)), -1},
		{"C-08", r(8000, 8), drfS(r(1000, 3), 2, r(0, 0)), drfS(r(2000, 1), 1, r(0, 0)), -1},
		{"C-09", r(8000, 8), drfS(r(3000, 1), 2, r(0, 0)), drfS(r(1000, 2), 1, r(0, 0)), -1},
		{"C-10a", r(4000, 5), drfS(r(2000, 1), 1, r(0, 0)), drfS(r(1000, 2), 1, r(0, 0)), 1},
		{"C-10b", r(8000, 6), drfS(r(2000, 1), 1, r(0, 0)), drfS(r(1000, 2), 1, r(0, 0)), -1},
	} {
		for _, types := range [][]string{nil, {"test"}} {
			t.Run(fmt.Sprintf("%s/%d-types", tc.name, 2+len(types)), func(t *testing.T) {
				got := PolicyDRF.Compare(tc.cluster, types, tc.s1, tc.s2)
				assert.Equal(t, tc.want, got)
				assert.Equal(t, -tc.want, PolicyDRF.Compare(tc.cluster, types, tc.s2, tc.s1), "antisymmetric")
			})
		}
	}
}

// C-11, C-16: the N-type comparator's row helpers.
func TestDRFRatioHelpers(t *testing.T) {
	r1 := []drfRow{{.3, 2.0}, {.2, 1.0}, {.4, .1}}
	r2 := []drfRow{{.2, 9.0}, {.3, 2.0}, {.25, .1}}
	sortRatios(r1)
	sortRatios(r2)
	assert.Equal(t, []drfRow{{.4, .1}, {.3, 2.0}, {.2, 1.0}}, r1)
	assert.Equal(t, []drfRow{{.3, 2.0}, {.25, .1}, {.2, 9.0}}, r2)

	R1 := []drfRow{{.4, .1, 2.0}, {.3, 2.0, .1}, {.2, 1.0, 9.0}}
	R2 := []drfRow{{.3, 2.0, 1.0}, {.2, .1, .5}, {.2, 1.0, 2.0}}
	R3 := []drfRow{{.3, 2.0, 1.0}, {.2, .1, 2.0}, {.1, 2.0, 1.0}}
	want := [3][6]int{{1, -1, 0, 0, 0, 1}, {-1, 1, 0, 0, 0, -1}, {1, -1, 0, 0, 0, -1}}
	for col := range 3 {
		got := [6]int{compareRatios(R1, R2, col), compareRatios(R2, R1, col), compareRatios(R1, R1, col),
			compareRatios(R2, R2, col), compareRatios(R3, R3, col), compareRatios(R2, R3, col)}
		assert.Equal(t, want[col], got, "column %d", col)
	}
}

// C-12..C-15: ratios and the dominant type.
func TestDRFRatios(t *testing.T) {
	s := &Schedulable{Usage: berth.NewWithExtras(10, 5, berth.Quantity{Name: "test", Value: 2}), Weight: 1,
		MinShare: berth.New(5, 10)}
	rows, dom := drfRatios(s, berth.NewWithExtras(100, 10, berth.Quantity{Name: "test", Value: 5}), []string{"test"})
	assert.Equal(t, 1, dom)
	assert.InDelta(t, 0.1, rows[0][0], 1e-6)
	assert.InDelta(t, 0.5, rows[1][0], 1e-6)
	assert.InDelta(t, 0.4, rows[2][0], 1e-6)
	sh, d := drfShares2(&Schedulable{Usage: berth.New(10, 5), Weight: 1}, berth.New(100, 10))
	assert.Equal(t, 1, d)
	assert.InDelta(t, 0.1, sh[0], 1e-12)
	assert.InDelta(t, 0.5, sh[1], 1e-12)
}

// C-18..C-21 and the FIFO order.
func TestFairComparator(t *testing.T) {
	mk := func(name string, usage, minS, demand int64, w float64) *Schedulable {
		return &Schedulable{Name: name, Usage: berth.New(usage, 1), MinShare: berth.New(minS, 0), Demand: berth.New(demand, 1), Weight: w}
	}
	s1 := &Schedulable{Name: "s1", Weight: 1}
	s2 := mk("s2", 4096, 0, 1024, 1)
	assert.Equal(t, 1, PolicyFair.Compare(berth.None(), nil, s1, s2), "C-18")
	assert.Equal(t, 1, PolicyFair.Compare(berth.None(), nil, mk("s1", 8, 10, 100, 1), mk("s2", 50, 100, 200, 1)), "C-19")
	assert.Equal(t, -1, PolicyFair.Compare(berth.None(), nil, mk("s1", 4096, 0, 8192, 2), mk("s2", 3072, 0, 8192, 1)), "C-20")
	assert.Equal(t, 1, PolicyFair.Compare(berth.None(), nil, mk("s1", 0, 0, 8192, 0), mk("s2", 8192, 0, 9000, 1)), "C-21")
	assert.Equal(t, -1, PolicyFair.Compare(berth.None(), nil, mk("a", 0, 0, 1, 1), mk("b", 0, 0, 1, 1)), "name breaks ties")

	early := &Schedulable{Name: "z", StartTime: 1, Priority: 1}
	late := &Schedulable{Name: "a", StartTime: 2, Priority: 1}
	assert.Equal(t, -1, PolicyFIFO.Compare(berth.None(), nil, early, late))
	late.Priority = 5
	assert.Equal(t, 1, PolicyFIFO.Compare(berth.None(), nil, early, late), "higher priority first")
}

// C-17: the fair comparator is transitive over YARN's test grid.
func TestFairComparatorTransitive(t *testing.T) {
	var all []*Schedulable
	for _, d := range []int64{0, 4} {
		for _, n := range []string{"A", "B", "C"} {
			for _, st := range []int64{1, 2, 3} {
				for _, u := range []int64{0, 2, 4} {
					for _, w := range []float64{0, 1, 2} {
						all = append(all, &Schedulable{Name: n, StartTime: st, Usage: berth.New(u, 1), Demand: berth.New(d, min(d, 1)),
							MinShare: berth.New(0, 1), Weight: w})
					}
				}
			}
		}
	}
	n := len(all)
	m := make([]int8, n*n) // the comparator's answers, computed once
	for i, a := range all {
		for j, b := range all {
			m[i*n+j] = int8(PolicyFair.Compare(berth.None(), nil, a, b))
		}
	}
	for i := range n {
		for j := range n {
			if m[i*n+j] > 0 {
				continue
			}
			require.Equal(t, -m[i*n+j], m[j*n+i], "antisymmetric: %+v %+v", all[i], all[j])
			for k := range n {
				if m[j*n+k] <= 0 && m[i*n+k] > 0 {
					t.Fatalf("not transitive: %+v ≤ %+v ≤ %+v but a > c", all[i], all[j], all[k])
				}
			}
		}
	}
}

// C-22: policy names.
func TestParsePolicy(t *testing.T) {
	for in, want := range map[string]Policy{
		"fair": PolicyFair, "FAIR": PolicyFair, "fifo": PolicyFIFO, "FiFo": PolicyFIFO, "drf": PolicyDRF, "DRF": PolicyDRF,
		"FairSharePolicy": PolicyFair,
		"org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies.FairSharePolicy":                PolicyFair,
		"org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies.DominantResourceFairnessPolicy": PolicyDRF,
	} {
		got, err := ParsePolicy(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	assert.Equal(t, "fair", PolicyFair.String())
	assert.Equal(t, "DRF", PolicyDRF.String())
	assert.Equal(t, "FIFO", PolicyFIFO.String())
	_, err := ParsePolicy("com.example.Mine")
	require.ErrorIs(t, err, berth.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "com.example.Mine SchedulingPolicy class not found!")
	assert.False(t, PolicyFair.AllowsChild(PolicyDRF))
	assert.True(t, PolicyDRF.AllowsChild(PolicyFair))
}
