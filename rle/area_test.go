package rle

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/require"
)

// Property: Area.Add and Area.Scale agree, type by type, with arbitrary
// precision arithmetic on areas built from resources with extended types.
func TestAreaAddScale(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 7))
	names := []string{berth.ResourceMemory, berth.ResourceVCores, "fpga", "gpu"}
	draw := func() (Area, map[string]*big.Int) {
		var a Area
		ref := map[string]*big.Int{}
		for _, n := range names {
			ref[n] = new(big.Int)
		}
		for k := r.IntN(3); k >= 0; k-- {
			res := berth.NewWithExtras(r.Int64N(1<<40)-1<<39, r.Int64N(100)-50,
				berth.Quantity{Name: names[2+r.IntN(2)], Value: r.Int64N(1000) - 500})
			d := r.Int64N(1 << 40)
			a = a.addProduct(res, d)
			for _, n := range names {
				ref[n].Add(ref[n], new(big.Int).Mul(big.NewInt(res.Extra(n)), big.NewInt(d)))
			}
		}
		return a, ref
	}
	for i := 0; i < 2000; i++ {
		a, ra := draw()
		b, rb := draw()
		k := r.Int64N(1<<20) - 1<<19
		sum, scaled := a.Add(b), a.Scale(k)
		for _, n := range names {
			want := new(big.Int).Add(ra[n], rb[n])
			require.Equal(t, want.String(), sum.Extra(n).Big().String(), "sum of %s", n)
			want = new(big.Int).Mul(ra[n], big.NewInt(k))
			require.Equal(t, want.String(), scaled.Extra(n).Big().String(), "scaled %s", n)
		}
		require.True(t, a.Add(b).Equal(b.Add(a)))
		require.True(t, a.Add(a.Scale(-1)).Equal(Area{}))
	}
}
