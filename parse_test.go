package berth_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
)

func TestParseResourceAccepts(t *testing.T) {
	gpu := func(m, v, g int64) berth.Resource {
		return berth.NewWithExtras(m, v, berth.Quantity{Name: berth.ResourceGPU, Value: g})
	}
	cases := []struct {
		in   string
		want berth.Resource
	}{
		// F-01: the fair scheduler's old style, every accepted shape.
		{"5120 mb 2 vcores", r2(5120, 2)},
		{"2 vcores, 5120 mb", r2(5120, 2)},
		{"5120 mb, 2 vcores", r2(5120, 2)},
		{"2vcores,5120mb", r2(5120, 2)},
		{"5120mb,2vcores", r2(5120, 2)},
		{"5120mb   mb, 2    vcores", r2(5120, 2)},
		{"5120 Mb, 2 vCores", r2(5120, 2)},
		{"  5120 mb, 2 vcores  ", r2(5120, 2)},
		{"  5120.3 mb, 2.35 vcores  ", r2(5120, 2)},
		{"  5120. mb, 2. vcores  ", r2(5120, 2)},
		{"2 vcores 5120 mb", r2(5120, 2)},
		// F-03: new style, types not listed are 0 (YARN's missing = 0).
		{"vcores=2, memory-mb=5120", r2(5120, 2)},
		{"memory-mb=5120,vcores=2", r2(5120, 2)},
		{" vcores = 2 ,  memory-mb = 5120 ", r2(5120, 2)},
		{"vcores=2, memory-mb=5120, test1=4", r3(5120, 2, 0).With("test1", 4)},
		{"test1=4, memory-mb=5120, vcores=2", r3(5120, 2, 0).With("test1", 4)},
		{"memory-mb=1024,vcores=2,yarn.io/gpu=1", gpu(1024, 2, 1)},
		{"memory-mb=1024", r2(1024, 0)},
		{"memory-mb=+7,vcores=0", r2(7, 0)},
		// the capacity scheduler's bracketed absolute form, with units
		{"[memory=1024,vcores=2]", r2(1024, 2)},
		{"[memory-mb=1024, vcores=2, yarn.io/gpu=1]", gpu(1024, 2, 1)},
		{" [ memory = 10240 , vcores = 10 ] ", r2(10240, 10)},
		{"[memory=10Gi,vcores=4]", r2(10240, 4)},
		{"[memory=2048Mi,vcores=4]", r2(2048, 4)},
		{"[memory=1G,vcores=1]", r2(953, 1)}, // 10^9 / 2^20, truncated
		{"[memory=1048576Ki,vcores=1]", r2(1024, 1)},
		{"[memory=1Pi,vcores=1]", r2(1<<30, 1)},
		{"[memory=5000000m,vcores=1]", r2(0, 1)}, // 5000 base units = 0 Mi
		// YARN's rendering, as Resource.String prints it
		{"<memory:1024, vCores:2>", r2(1024, 2)},
		{"<memory:1024, vCores:1, yarn.io/gpu: 2>", gpu(1024, 1, 2)},
		{"<memory:0, vCores:0>", r2(0, 0)},
		{fmt.Sprintf("<memory:%d, vCores:%d>", int64(math.MaxInt64), int64(math.MaxInt64)), berth.Unbounded()},
	}
	for _, tc := range cases {
		got, err := berth.ParseResource(tc.in)
		if assert.NoError(t, err, "%q", tc.in) {
			assert.True(t, got.Equal(tc.want), "%q: got %v want %v", tc.in, got, tc.want)
		}
	}
}

func TestParseResourceRejects(t *testing.T) {
	cases := []struct {
		in, field, value string
	}{
		{"", "resource", ""},
		{"   ", "resource", "   "},
		// F-05: wrong shape
		{"1024", "resource", "1024"},
		{"1024mb", "resource", "1024mb"},
		{"1024vcores", "resource", "1024vcores"},
		{"1o24vc0res", "resource", "1o24vc0res"},
		{"2 vcores 5120 mb 555 mb", "resource", "2 vcores 5120 mb 555 mb"},
		{"2 vcores 5120 MB 555 GB", "resource", "2 vcores 5120 MB 555 GB"},
		{"1024 mb, 2 vcores, 3 mb", "resource", "1024 mb, 2 vcores, 3 mb"},
		{"1024 gb, 2 vcores", "resource", "1024 gb, 2 vcores"},
		// missing one of the two
		{"1024 mb, 2 mb", berth.ResourceVCores, "1024 mb, 2 mb"},
		// F-08: bad numbers
		{"1024 mb, 2 4 vcores", berth.ResourceVCores, "2 4 vcores"},
		{"2048 1024 mb, 2 vcores", berth.ResourceMemory, "2048 1024 mb"},
		{"99999999999999999999 mb, 2 vcores", berth.ResourceMemory, "99999999999999999999 mb"},
		// F-11: negative amounts, every form
		{"-2 vcores,5120 mb", berth.ResourceVCores, "-2 vcores"},
		{"2 vcores,-5120 mb", berth.ResourceMemory, "-5120 mb"},
		{"5120mb   mb, -2    vcores", berth.ResourceVCores, "-2    vcores"},
		{"  5120.3 mb, -2.35 vcores  ", berth.ResourceVCores, "-2.35 vcores"},
		{"memory-mb=-5120,vcores=2", berth.ResourceMemory, "-5120"},
		{"memory-mb=5120,vcores=-2", berth.ResourceVCores, "-2"},
		{"vcores=2,memory-mb=-5120,test1=4", berth.ResourceMemory, "-5120"},
		{"[memory=1024,vcores=-1]", berth.ResourceVCores, "-1"},
		{"<memory:-1, vCores:1>", berth.ResourceMemory, "-1"},
		// F-09 and old-style percentages: not absolute
		{"vcores = 75%, memory-mb = 40% 80%", "resource", "vcores = 75%, memory-mb = 40% 80%"},
		{"50%", "resource", "50%"},
		{"50% memory, 50% cpu", "resource", "50% memory, 50% cpu"},
		// malformed entries
		{"memory-mb=1024,vcores", "resource", "vcores"},
		{"memory-mb=1024,,vcores=1", "resource", ""},
		{"memory-mb=1=2", "resource", "memory-mb=1=2"},
		{"memory-mb=1024,vcores=two", berth.ResourceVCores, "two"},
		{"memory-mb=1.5,vcores=1", berth.ResourceMemory, "1.5"},
		{"memory-mb=10Gi,vcores=1", berth.ResourceMemory, "10Gi"}, // units only in [..]
		{"memory-mb=1024,vcores=1,vcores=2", berth.ResourceVCores, "vcores=2"},
		{"[memory=1,memory-mb=2]", berth.ResourceMemory, "memory-mb=2"},
		{"memory-mb=99999999999999999999", berth.ResourceMemory, "99999999999999999999"},
		{"[memory=10Xi,vcores=1]", berth.ResourceMemory, "10Xi"},
		{"[memory=9999999999999Pi]", berth.ResourceMemory, "9999999999999Pi"},
		{"[memory=1024,vcores=1", "resource", "[memory=1024,vcores=1"},
		{"[]", "resource", ""},
		{"<memory:1, vCores:2", "resource", "<memory:1, vCores:2"},
		// names
		{"memory=1024,vcores=2", "resource", "memory"}, // fair style spells memory-mb
		{"memory-mb=1,CPU=2", "resource", "CPU"},
		{"memory-mb=1,yarn io/gpu=2", "resource", "yarn io/gpu"},
		{"memory-mb=1,-gpu=2", "resource", "-gpu"},
		{"memory-mb=1,=2", "resource", "=2"},
	}
	for _, tc := range cases {
		r, err := berth.ParseResource(tc.in)
		require.Error(t, err, "%q parsed as %v", tc.in, r)
		assert.ErrorIs(t, err, berth.ErrInvalidArgument, "%q", tc.in)
		var fe *berth.FieldError
		if assert.ErrorAs(t, err, &fe, "%q", tc.in) {
			assert.Equal(t, tc.field, fe.Field, "%q: %v", tc.in, err)
			assert.Equal(t, tc.value, fe.Value, "%q: %v", tc.in, err)
			assert.NotEmpty(t, fe.Reason)
		}
		assert.True(t, r.IsZero(), "no partial result on error")
	}
}

func TestParseResourceErrorMessage(t *testing.T) {
	_, err := berth.ParseResource("1024 mb, 2 4 vcores")
	require.Error(t, err)
	assert.Equal(t, `vcores: invalid value in "1024 mb, 2 4 vcores" (value: 2 4 vcores)`, err.Error())
	wrapped := fmt.Errorf("queue root.a maxResources: %w", err)
	assert.True(t, errors.Is(wrapped, berth.ErrInvalidArgument))
	assert.True(t, strings.HasPrefix(wrapped.Error(), "queue root.a maxResources: vcores:"))
}

// FuzzParseResource: no input panics; an accepted resource is non-negative
// and survives a round trip through both of its renderings.
func FuzzParseResource(f *testing.F) {
	for _, s := range []string{
		"5120 mb, 2 vcores", "2vcores,5120mb", "  5120.3 mb, 2.35 vcores  ", "5120mb   mb, 2    vcores",
		"memory-mb=1024,vcores=2,yarn.io/gpu=1", "vcores=2, memory-mb=5120, test1=4",
		"[memory=10Gi,vcores=4]", "[memory=1G,vcores=1,yarn.io/fpga=2]", "<memory:1024, vCores:1, yarn.io/gpu: 2>",
		"1o24vc0res", "50% memory, 50% cpu", "memory-mb=-5120,vcores=2", "[memory=9999999999999Pi]", "", "[", "<", "=", ",",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := berth.ParseResource(s)
		if err != nil {
			var fe *berth.FieldError
			if !errors.As(err, &fe) || !errors.Is(err, berth.ErrInvalidArgument) || fe.Field == "" || fe.Reason == "" {
				t.Fatalf("%q: untyped or unnamed error %v", s, err)
			}
			if !r.IsZero() {
				t.Fatalf("%q: partial result %v with error", s, r)
			}
			return
		}
		if r.AnyNegative() {
			t.Fatalf("%q: negative amounts %v", s, r)
		}
		checkInvariants(t, r)
		back, err := berth.ParseResource(r.String())
		if err != nil || !back.Equal(r) {
			t.Fatalf("%q: String round trip %v -> %q -> %v, %v", s, r, r.String(), back, err)
		}
		parts := []string{fmt.Sprintf("memory-mb=%d", r.Memory), fmt.Sprintf("vcores=%d", r.VCores)}
		for _, q := range r.Extras() {
			parts = append(parts, fmt.Sprintf("%s=%d", q.Name, q.Value))
		}
		kv := strings.Join(parts, ",")
		if back, err := berth.ParseResource(kv); err != nil || !back.Equal(r) {
			t.Fatalf("%q: new-style round trip via %q: %v, %v", s, kv, back, err)
		}
		if back, err := berth.ParseResource("[" + kv + "]"); err != nil || !back.Equal(r) {
			t.Fatalf("%q: bracket round trip via %q: %v, %v", s, kv, back, err)
		}
	})
}

func TestParseResourceManyTypesIsNotQuadratic(t *testing.T) {
	var b strings.Builder
	b.WriteString("memory-mb=1,vcores=1")
	const n = 5000
	for i := n; i > 0; i-- { // reverse order: the parser sorts once
		fmt.Fprintf(&b, ",t%d=%d", i, i)
	}
	r, err := berth.ParseResource(b.String())
	require.NoError(t, err)
	assert.Len(t, r.Extras(), n)
	assert.Equal(t, int64(777), r.Extra("t777"))
	checkInvariants(t, r)
}
