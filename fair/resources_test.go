package fair

import (
	"errors"
	"math"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// F-01..F-11: YARN's resource strings.
func TestParseResourceOldStyleAbsolute(t *testing.T) {
	for _, s := range []string{"5120 mb 2 vcores", "2 vcores, 5120 mb", "5120 mb, 2 vcores", "2vcores,5120mb",
		"5120mb,2vcores", "5120mb   mb, 2    vcores", "5120 Mb, 2 vCores", "  5120 mb, 2 vcores  ",
		"  5120.3 mb, 2.35 vcores  ", "  5120. mb, 2. vcores  ", "2 vcores, 5120 mb"} {
		c, err := ParseResource("minResources", s, nil, 0)
		require.NoError(t, err, s)
		r, ok := c.Absolute()
		require.True(t, ok, s)
		assert.True(t, r.Equal(berth.New(5120, 2)), "%q: %v", s, r)
	}
}

func TestParseResourceOldStylePercent(t *testing.T) {
	cluster := berth.New(10240, 4)
	for _, tc := range []struct {
		in   string
		want berth.Resource
	}{
		{"50% memory, 50% cpu", berth.New(5120, 2)}, {"50% Memory, 50% CpU", berth.New(5120, 2)},
		{"50 % memory, 50 % cpu", berth.New(5120, 2)}, {"50%memory,50%cpu", berth.New(5120, 2)},
		{"  50  %  memory,  50  %  cpu  ", berth.New(5120, 2)}, {"50.% memory, 50.% cpu", berth.New(5120, 2)},
		{"50%", berth.New(5120, 2)}, {"50% memory, 100% cpu", berth.New(5120, 4)},
		{" 100% cpu, 50% memory", berth.New(5120, 4)}, {"50% memory, 0% cpu", berth.New(5120, 0)},
		{"10.9% memory, 50.6% cpu", berth.New(1116, 2)},
	} {
		c, err := ParseResource("maxResources", tc.in, nil, math.MaxInt64)
		require.NoError(t, err, tc.in)
		assert.True(t, c.IsPercentage())
		got := c.Resolve(cluster, nil)
		assert.True(t, got.Equal(tc.want), "%q: %v", tc.in, got)
	}
}

func TestParseResourceNewStyle(t *testing.T) {
	types := []string{"test1"}
	for _, s := range []string{"vcores=2, memory-mb=5120", "memory-mb=5120, vcores=2", " vcores = 2 ,memory-mb= 5120 "} {
		c, err := ParseResource("maxResources", s, types, math.MaxInt64)
		require.NoError(t, err)
		r, _ := c.Absolute()
		assert.True(t, r.Equal(berth.NewWithExtras(5120, 2, berth.Quantity{Name: "test1", Value: math.MaxInt64})), "%q %v", s, r)
		c, err = ParseResource("minResources", s, types, 0)
		require.NoError(t, err)
		r, _ = c.Absolute()
		assert.True(t, r.Equal(berth.New(5120, 2)), r)
	}
	for _, s := range []string{"vcores=2, memory-mb=5120, test1=4", "test1=4, vcores=2, memory-mb=5120"} {
		c, err := ParseResource("maxResources", s, types, math.MaxInt64)
		require.NoError(t, err)
		r, _ := c.Absolute()
		assert.True(t, r.Equal(berth.NewWithExtras(5120, 2, berth.Quantity{Name: "test1", Value: 4})), r)
	}
	cluster := berth.NewWithExtras(10240, 4, berth.Quantity{Name: "test1", Value: 8})
	for _, tc := range []struct {
		in   string
		want berth.Resource
	}{
		{"50%", berth.NewWithExtras(5120, 2, berth.Quantity{Name: "test1", Value: 4})},
		{"vcores=75%, memory-mb=40%", berth.NewWithExtras(4096, 3, berth.Quantity{Name: "test1", Value: 8})},
		{"memory-mb = 40% ,vcores=75%", berth.NewWithExtras(4096, 3, berth.Quantity{Name: "test1", Value: 8})},
		{"vcores=75%, memory-mb=40%, test1=50%", berth.NewWithExtras(4096, 3, berth.Quantity{Name: "test1", Value: 4})},
	} {
		c, err := ParseResource("maxResources", tc.in, types, math.MaxInt64)
		require.NoError(t, err, tc.in)
		got := c.Resolve(cluster, types)
		assert.True(t, got.Equal(tc.want), "%q: %v", tc.in, got)
	}
}

func TestParseResourceErrors(t *testing.T) {
	for _, tc := range []struct{ in, msg string }{
		{"1024", "Cannot parse resource values from input: 1024"},
		{"1024mb", "Cannot parse resource values from input: 1024mb"},
		{"1024vcores", "Cannot parse resource values from input: 1024vcores"},
		{"1o24vc0res", "Cannot parse resource values from input: 1o24vc0res"},
		{"2 vcores 5120 mb 555 mb", "Cannot parse resource values from input: 2 vcores 5120 mb 555 mb"},
		{"2 vcores 5120 MB 555 GB", "Cannot parse resource values from input: 2 vcores 5120 mb 555 gb"},
		{"95%, 50% memory", "Missing resource: cpu"},
		{"50% memory, 2 vcores", "Missing resource: cpu"},
		{"50% memory, -2 vcores", "Missing resource: cpu"},
		{"50% cpu, 1024 mb", "Missing resource: memory"},
		{"-50% cpu, 1024 mb", "Missing resource: memory"},
		{"50% cpu, -1024 mb", "Missing resource: memory"},
		{"95A% cpu, 50% memory", "Invalid percentage of cpu: "},
		{"50% memory, 50% 100%cpu", "Invalid percentage of cpu: "},
		{"50% 80% memory, 100%cpu", "Invalid percentage of memory: "},
		{"1024 mb, 2 4 vcores", "Invalid value of vcores: "},
		{"2048 1024 mb, 2 vcores", "Invalid value of memory: "},
		{"vcores = 75%, memory-mb = 40% 80%", `"40% 80%" is either not a non-negative number`},
		{"vcores = 75% 65%, memory-mb = 40%", `"75% 65%" is either not a non-negative number`},
		{"-10% memory, 50% cpu", "percentage should not be negative"},
		{"10% memory, -10% cpu", "percentage should not be negative"},
		{"-20% memory, -10% cpu", "percentage should not be negative"},
		{"-50% memory, 2 vcores", "percentage should not be negative"},
		{"-2 vcores,5120 mb", "Invalid value of vcores"},
		{"2 vcores,-5120 mb", "Invalid value of memory"},
		{"5120mb   mb, -2    vcores", "Invalid value of vcores"},
		{"  5120.3 mb, -2.35 vcores  ", "Invalid value of vcores"},
		{"memory-mb=-5120,vcores=2", "Invalid value of memory"},
		{"memory-mb=5120,vcores=-2", "Invalid value of vcores"},
		{"vcores=2,memory-mb=-5120,test1=4", "Invalid value of memory"},
		{"   ", "the resource string is empty"},
		{"gpu=2", `"gpu" was not recognized`},
		{"memory-mb=2=3", "name=value"},
		{"memory-mb=2x", "must all be integers"},
	} {
		_, err := ParseResource("maxResources", tc.in, []string{"test1"}, math.MaxInt64)
		require.Error(t, err, tc.in)
		assert.Contains(t, err.Error(), tc.msg, tc.in)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument)
		var fe *berth.FieldError
		require.True(t, errors.As(err, &fe))
		assert.Equal(t, "maxResources", fe.Field)
		assert.Equal(t, tc.in, fe.Value)
	}
}

func FuzzParseResource(f *testing.F) {
	for _, s := range []string{"5120 mb, 2 vcores", "50%", "50% memory, 25% cpu", "memory-mb=1, vcores=2, test1=3",
		"vcores=75%, memory-mb=40%", "1e308 mb, 1 vcores", "99999999999999999999 mb, 1 vcores", "=", "%,%", ",", "mb vcores"} {
		f.Add(s)
	}
	cluster := berth.NewWithExtras(10240, 4, berth.Quantity{Name: "test1", Value: 8})
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseResource("maxResources", s, []string{"test1"}, math.MaxInt64)
		if err != nil {
			var fe *berth.FieldError
			if !errors.As(err, &fe) || fe.Field != "maxResources" {
				t.Fatalf("error does not name the field: %v", err)
			}
			return
		}
		r := c.Resolve(cluster, []string{"test1"})
		if r.AnyNegative() {
			t.Fatalf("negative resource %v from %q", r, s)
		}
	})
}

// The fair parser agrees with the root package's berth.ParseResource on
// the absolute forms both accept (unlisted types 0).
func TestParseResourceAgreesWithRoot(t *testing.T) {
	for _, s := range []string{"5120 mb 2 vcores", "2 vcores, 5120 mb", "5120mb,2vcores", "  5120.3 mb, 2.35 vcores  ",
		"5120 Mb, 2 vCores", "memory-mb=5120, vcores=2", "vcores=2,memory-mb=0", "memory-mb=1, vcores=2, test1=3"} {
		want, err := berth.ParseResource(s)
		require.NoError(t, err, s)
		c, err := ParseResource("r", s, []string{"test1"}, 0)
		require.NoError(t, err, s)
		got, ok := c.Absolute()
		require.True(t, ok)
		assert.True(t, got.Equal(want), "%q: fair %v, root %v", s, got, want)
	}
}
