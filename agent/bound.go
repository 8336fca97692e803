package agent

import (
	"math"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
)

// The upper bound of the yardstick: the divisible relaxation of an
// episode, solved exactly as a maximum flow per resource type.
//
// Every request becomes one or more pieces of work (a stage, or for R_ANY
// its largest alternative). A piece has an amount (its offered area in
// that resource type), a window it must be done in, and a rate it cannot
// exceed: all its containers at once, since each container runs for the
// stage's duration and no longer. In the relaxation a piece may be done
// partly, interrupted and at any rate up to its cap; at each instant the
// pieces together use at most the plan's capacity. The most work such a
// schedule does is a maximum flow from a source through the pieces (edge:
// the amount) and the time segments between consecutive window ends (edge
// from piece to segment: rate × length, where the segment lies in the
// piece's window) to a sink (edge: capacity × length): the segments only
// change at window ends, so time is never cut into steps.
//
// Every placement an agent makes, valid for its interpreter, is a
// schedule of the relaxation reserving the same area, so no agent, online
// or offline, reserves more than the flow in any resource type.

// boundPiece is one piece of work of the relaxation, in one resource type.
type boundPiece struct {
	start, end berth.Time
	work, rate float64
}

// boundPieces returns the pieces of def in the resource type get reads,
// on a plan of capacity c and step step; none when def cannot be placed
// in any plan of that capacity (a gang larger than the plan, a stage
// longer than its share of the window).
func boundPieces(dst []boundPiece, def plan.Definition, c berth.Resource, step berth.Duration, get func(berth.Resource) float64) []boundPiece {
	a, d := def.Arrival, def.Deadline
	if d <= a || len(def.Stages) == 0 {
		return dst
	}
	window := uint64(d - a)
	placeable := func(s plan.Stage) bool {
		return s.Duration > 0 && s.Containers > 0 && s.Concurrency > 0 && uint64(s.Duration) <= window &&
			!overflows(s.Capability, s.Containers) && s.Capability.MulInt(s.Concurrency).FitsIn(c)
	}
	piece := func(s plan.Stage, start, end berth.Time) boundPiece {
		per := get(s.Capability) * float64(s.Containers)
		return boundPiece{start: start, end: end, work: per * float64(stepRoundUp(s.Duration, step)), rate: min(per, get(c))}
	}
	switch def.Interpreter {
	case plan.RAny:
		// Whichever stage is placed, its area and rate are at most the
		// largest of the placeable stages'.
		var best boundPiece
		ok := false
		for _, s := range def.Stages {
			if !placeable(s) {
				continue
			}
			p := piece(s, a, d)
			best.work, best.rate, ok = max(best.work, p.work), max(best.rate, p.rate), true
		}
		if ok && best.work > 0 {
			best.start, best.end = a, d
			dst = append(dst, best)
		}
		return dst
	case plan.ROrder, plan.ROrderNoGap:
		// Stage k runs after every earlier stage and before every later
		// one, each lasting at least its duration.
		n := len(def.Stages)
		before := make([]uint64, n+1)
		for k, s := range def.Stages {
			if !placeable(s) {
				return dst
			}
			before[k+1] = before[k] + uint64(s.Duration)
			if before[k+1] > window {
				return dst
			}
		}
		total := before[n]
		for k, s := range def.Stages {
			start := a + berth.Time(before[k])
			end := d - berth.Time(total-before[k+1])
			if p := piece(s, start, end); p.work > 0 {
				dst = append(dst, p)
			}
		}
		return dst
	default:
		for _, s := range def.Stages {
			if !placeable(s) {
				return dst
			}
		}
		for _, s := range def.Stages {
			if p := piece(s, a, d); p.work > 0 {
				dst = append(dst, p)
			}
		}
		return dst
	}
}

// UpperBound is an area no agent, online or offline, can reserve on the
// episode: the optimum of its divisible relaxation, computed exactly per
// resource type as a maximum flow over time segments (see the package
// documentation, "Comparing agents"). A periodic definition counts one
// occurrence, as [ReservedArea] does.
func UpperBound(ep Episode) Area {
	c := ep.Config.Capacity
	return Area{
		Memory: flowBound(ep, c, func(r berth.Resource) float64 { return float64(r.Memory) }),
		VCores: flowBound(ep, c, func(r berth.Resource) float64 { return float64(r.VCores) }),
	}
}

// flowBound is UpperBound for one resource type.
func flowBound(ep Episode, c berth.Resource, get func(berth.Resource) float64) float64 {
	capacity := get(c)
	if capacity <= 0 {
		return 0
	}
	var pieces []boundPiece
	for _, q := range ep.Requests {
		pieces = boundPieces(pieces, q.Definition, c, ep.Config.Step, get)
	}
	if len(pieces) == 0 {
		return 0
	}
	ts := make([]berth.Time, 0, 2*len(pieces))
	for _, p := range pieces {
		ts = append(ts, p.start, p.end)
	}
	slices.Sort(ts)
	ts = slices.Compact(ts)
	// Nodes: 0 source, 1..n pieces, n+1..n+m segments, n+m+1 sink. The
	// edges are laid out per node (compressed rows), counted first.
	n, m := len(pieces), len(ts)-1
	sink := n + m + 1
	first := make([]int, n) // each piece's first segment
	g := &flowGraph{off: make([]int32, n+m+3)}
	deg := g.off[1:]
	for i, p := range pieces {
		first[i], _ = slices.BinarySearch(ts, p.start)
		deg[0]++
		deg[1+i]++
		for k := first[i]; k < m && ts[k] < p.end; k++ {
			deg[1+i]++
			deg[1+n+k]++
		}
	}
	for k := 0; k < m; k++ {
		deg[1+n+k]++
		deg[sink]++
	}
	for u := 1; u < len(g.off); u++ {
		g.off[u] += g.off[u-1]
	}
	g.alloc()
	var scale float64
	for i, p := range pieces {
		g.edge(0, 1+i, p.work)
		scale = max(scale, p.work)
		for k := first[i]; k < m && ts[k] < p.end; k++ {
			g.edge(1+i, 1+n+k, p.rate*float64(ts[k+1]-ts[k]))
		}
	}
	for k := 0; k < m; k++ {
		l := capacity * float64(ts[k+1]-ts[k])
		g.edge(1+n+k, sink, l)
		scale = max(scale, l)
	}
	return g.maxFlow(0, sink, scale*1e-12)
}

// flowGraph is a residual graph for Dinic's maximum flow, its edges laid
// out per node: node u's are at [off[u], off[u+1]), and edge e's reverse
// is rev[e].
type flowGraph struct {
	off   []int32
	to    []int32
	rev   []int32
	res   []float64
	fill  []int32 // the next free slot of each node while building
	level []int32
	iter  []int32
	queue []int32
}

// alloc sizes the arrays once off holds the prefix sums of the degrees.
func (g *flowGraph) alloc() {
	nodes, edges := len(g.off)-1, g.off[len(g.off)-1]
	g.to, g.rev, g.res = make([]int32, edges), make([]int32, edges), make([]float64, edges)
	g.fill = append([]int32(nil), g.off[:nodes]...)
	g.level, g.iter = make([]int32, nodes), make([]int32, nodes)
}

// edge adds u → v of capacity c and its reverse.
func (g *flowGraph) edge(u, v int, c float64) {
	i, j := g.fill[u], g.fill[v]
	g.fill[u]++
	g.fill[v]++
	g.to[i], g.to[j] = int32(v), int32(u)
	g.rev[i], g.rev[j] = j, i
	g.res[i] = c
}

// maxFlow returns the maximum flow from s to t; residues at most eps count
// as saturated.
func (g *flowGraph) maxFlow(s, t int, eps float64) float64 {
	var flow float64
	for g.levels(s, t, eps) {
		copy(g.iter, g.off)
		for {
			f := g.push(s, t, math.Inf(1), eps)
			if f <= eps {
				break
			}
			flow += f
		}
	}
	return flow
}

// levels numbers the nodes by breadth-first distance from s over edges
// with residue; it reports whether t is reached.
func (g *flowGraph) levels(s, t int, eps float64) bool {
	for i := range g.level {
		g.level[i] = -1
	}
	g.level[s] = 0
	g.queue = append(g.queue[:0], int32(s))
	for h := 0; h < len(g.queue); h++ {
		u := g.queue[h]
		for e := g.off[u]; e < g.off[u+1]; e++ {
			if v := g.to[e]; g.res[e] > eps && g.level[v] < 0 {
				g.level[v] = g.level[u] + 1
				g.queue = append(g.queue, v)
			}
		}
	}
	return g.level[t] >= 0
}

// push sends up to limit along one level-increasing path from u to t and
// returns what it sent.
func (g *flowGraph) push(u, t int, limit, eps float64) float64 {
	if u == t {
		return limit
	}
	for ; g.iter[u] < g.off[u+1]; g.iter[u]++ {
		e := g.iter[u]
		v := int(g.to[e])
		if g.res[e] <= eps || g.level[v] != g.level[u]+1 {
			continue
		}
		if f := g.push(v, t, min(limit, g.res[e]), eps); f > eps {
			g.res[e] -= f
			g.res[g.rev[e]] += f
			return f
		}
	}
	return 0
}
