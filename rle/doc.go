// Package rle holds resources over time as run-length-encoded step functions.
//
// A [Series] maps time (ms) to a [berth.Resource] (YARN's
// RLESparseResourceAllocation) and [Periodic] repeats one such pattern every
// period (PeriodicRLESparseResourceAllocation). An add or a remove over k
// breakpoints costs O(log n + B + k/B) with B = 128, where YARN rebuilds its
// whole map, O(n); a point query allocates nothing; a breakpoint takes 16
// bytes, more only with extended resource types; [Series.Clone] is O(1),
// copy-on-write. The price is a canonical form that differs from
// YARN's (see the differences below) and a value that is not safe for
// concurrent mutation: the owner locks it (the plan does), reads may run in
// parallel, and a mutation or a Clone, which marks the original's storage
// as shared, needs exclusive access. It is not a general time-series store:
// times are int64 milliseconds, values are resources, nothing is evicted.
//
// # Usage
//
// The plan (package plan) keeps its totals and per-user loads in series,
// agents (package agent) search them for room, sharing policies (package
// policy) check them. [Series.Add] and [Series.Remove] book and release an
// interval; [Series.At], [Series.Min], [Series.Max] and [Series.Integral]
// read; [Series.StepsIn] and [Series.AppendSteps] walk the steps of a
// window (AppendSteps into a reused buffer allocates nothing); [Merge] is
// the algebra they share (add, subtract, subtract-test-non-negative, min,
// max over a window).
//
// # Values and undefined
//
// A series holds, at every time, either a resource or nothing: "undefined",
// YARN's null. It is stored as canonical breakpoints ([Breakpoint]): from
// each breakpoint's time until the next, the series has that value; before
// the first breakpoint it is zero. Canonical means no breakpoint repeats the
// value in force before it, so two series are the same function exactly when
// they have the same breakpoints ([Series.Equal]).
//
//   - Series built with [New] (or the zero value), Add and Remove are defined
//     everywhere and zero outside what was added.
//   - [Merge] results are undefined outside their window (YARN's terminator
//     at the window end) and, inside, where both operands are undefined.
//   - [FromBreakpoints] builds a series the way YARN's map constructor does:
//     undefined before its first breakpoint. [Undefined] is undefined
//     everywhere: YARN's empty allocation as a merge operand.
//
// [Series.At] reads undefined as zero (YARN's getCapacityAtTime);
// [Series.Lookup] tells the two apart. Min, Max, Integral and StepsIn skip
// undefined parts.
//
// # Cost
//
// At is O(log n + log B); Min and Max over a window are O(log n + B + k/B);
// Merge, Clip, StepsIn and Integral are linear in the breakpoints inside
// their window. How the blocks are stored, and the figures of workload W1,
// are in DESIGN.md and WORKLOADS.md at the repository root.
//
// # Differences from YARN
//
//   - Bad input is an error instead of being accepted: an empty or inverted
//     interval (YARN turns [t, t) into a lone zero key), a negative resource,
//     and removing more than is present — YARN lets the allocation go
//     negative; Berth returns a *[RemoveError] naming the first time. Every
//     failed mutation leaves the series unchanged. A zero resource is a no-op
//     as in YARN (after the interval is checked). Sums that would overflow
//     int64, in Add and in Merge, are errors.
//   - Canonical form: YARN keeps a leading zero key after removals, a
//     trailing zero key and a MAX terminator after the second mutation; Berth
//     keeps neither, so a fully removed series has no breakpoints at all.
//   - Add and Remove treat the outside of a series as zero: YARN's add-built
//     allocation is undefined before its first key, which only shows in a
//     min, max or subtract-test-non-negative merge against it (YARN then
//     returns the other operand). Use [Undefined] or [FromBreakpoints] to get
//     YARN's "no data" operand where it matters.
//   - Merge: YARN returns an empty operand's partner unclipped, without a
//     terminator; Berth always clips to the window. YARN crashes (NPE) when a
//     defined value follows an undefined one in the result; Berth records the
//     value. YARN's subtract-test-non-negative with an empty left operand
//     negates the right one and rejects it only if every component is ≤ 0;
//     Berth's zero left operand rejects any component that goes negative.
//     Undefined − y is +y, as in YARN.
//   - [Series.Clip] is YARN's getRangeOverlapping without its extra
//     breakpoints (the step before the window, a key at the end): the copy
//     equals the series inside the window and is zero outside.
//   - [Series.Min] and [Series.Max] are over the half-open window; YARN's
//     getMinimumCapacityInInterval also counts the step starting at the end
//     and ignores the zero before an allocation's first key.
//   - [Series.EarliestStart] and [Series.LatestEnd] are the bounds of the
//     defined non-zero values (YARN: the first key, which may hold zero, and
//     the key before the terminator); [Series.IsEmpty] is "zero wherever
//     defined" (YARN recognises only an empty map or {first: 0, last: null}).
//   - [Series.Integral] is exact ([Int128] per type); YARN's long arithmetic
//     can overflow.
//   - Periodic: Add and Remove outside [0, period] are errors (YARN returns
//     false); At and Unroll use the floor modulo for negative times (YARN
//     reads the wrong phase); [NewPeriodicFrom] keeps the part of a piece that
//     wraps around the period end, which YARN's constructor loses (YARN turns
//     {8:4, 13:0} with period 10 into {0:0, 3:0, 8:4, 10:0}; Berth gives 4 on
//     [0,3) and [8,10)).
package rle
