package agent_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/berthsched/berth/agent"
	"github.com/berthsched/berth/plan"
	"github.com/stretchr/testify/assert"
)

// TestUpperBoundWithinFluidBound checks UpperBound against the looser
// fluid bound on every W4 episode and on W2-hot: the flow bound limits
// each stage's rate and orders stages, so it never exceeds the fluid one
// where both apply. That is memory everywhere, and vcores where no request
// is R_ANY (the fluid bound counts an R_ANY's vcores from its largest stage
// by memory, the flow bound takes the most vcores of any stage). The fluid
// bounds themselves are pinned by a hash.
func TestUpperBoundWithinFluidBound(t *testing.T) {
	h := sha256.New()
	episodes := append(w4Stream(w4Episodes), w2HotStream(t, 2000)...)
	for i, ep := range episodes {
		upper, fluid := agent.UpperBound(ep), agent.FluidBound(ep)
		fmt.Fprintf(h, "%x %x\n", math.Float64bits(fluid.Memory), math.Float64bits(fluid.VCores))
		assert.LessOrEqual(t, upper.Memory, fluid.Memory*(1+1e-9), "episode %d memory", i)
		if !slices.ContainsFunc(ep.Requests, func(q agent.Request) bool { return q.Definition.Interpreter == plan.RAny }) {
			assert.LessOrEqual(t, upper.VCores, fluid.VCores*(1+1e-9), "episode %d vcores", i)
		}
		assert.Positive(t, fluid.Memory, "episode %d", i)
	}
	assert.Equal(t, "ca75c20860c1b07d", hex.EncodeToString(h.Sum(nil))[:16], "the fluid bounds changed")
}
