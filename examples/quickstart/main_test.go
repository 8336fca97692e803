package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTour runs the whole tour and checks the facts each step must show.
func TestTour(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out))
	got := out.String()
	for _, want := range []string{
		"the plan has 4 breakpoints",
		"[2000, 3000)   <memory:2048, vCores:2>      <memory:0, vCores:0>",
		"  t2 ##\n",
		"  t4 ..\n",
	} {
		assert.Contains(t, got, want)
	}
}
