package queue

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// cfgT is the payload used in tests.
type cfgT = Config[int]

func leaf(name string, pct float32) cfgT { return cfgT{Name: name, Capacity: Percent(pct)} }

func parent(name string, pct float32, kids ...cfgT) cfgT {
	return cfgT{Name: name, Capacity: Percent(pct), Children: kids}
}

func rootOf(kids ...cfgT) cfgT { return cfgT{Name: "root", Children: kids} }

var csOpts = TreeConfig[int]{CheckCapacitySums: true}

// rooted is rules with c as its root: tests keep the rules apart from
// the trees they build under them.
func rooted(c cfgT, rules TreeConfig[int]) TreeConfig[int] {
	rules.Root = c
	return rules
}

func mustTree(t testing.TB, c cfgT, opts TreeConfig[int]) *Tree[int] {
	t.Helper()
	tr, err := New(rooted(c, opts))
	require.NoError(t, err)
	return tr
}

func mustPath(t testing.TB, s string) Path {
	t.Helper()
	p, err := ParsePath(s)
	require.NoError(t, err)
	return p
}

func mustQueue(t testing.TB, tr *Tree[int], s string) *Queue[int] {
	t.Helper()
	q := tr.Queue(mustPath(t, s))
	require.NotNil(t, q, s)
	return q
}

// asQueueError extracts the *Error.
func asQueueError(t testing.TB, err error) *Error {
	t.Helper()
	var qe *Error
	require.True(t, errors.As(err, &qe), "want *queue.Error, got %T: %v", err, err)
	return qe
}

// addUsage returns u + d (the model's arithmetic).
func addUsage(u Usage, d Delta) Usage {
	addTo(&u, &d)
	return u
}
