package queue_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

func TestRegistry(t *testing.T) {
	var nilReg *queue.Registry[int]
	_, ok := nilReg.Lookup("a")
	assert.False(t, ok)
	assert.Empty(t, nilReg.Names())

	r := &queue.Registry[int]{Kind: "ordering policy"}
	require.NoError(t, r.Register("b", 2))
	require.NoError(t, r.Register("a", 1))
	assert.ErrorIs(t, r.Register("a", 3), berth.ErrAlreadyExists)
	assert.ErrorIs(t, r.Register("", 3), berth.ErrInvalidArgument)
	v, ok := r.Lookup("a")
	assert.True(t, ok)
	assert.Equal(t, 1, v, "a failed Register leaves the first value")
	assert.Equal(t, []string{"a", "b"}, r.Names())

	v, err := r.Resolve("queue.x.ordering-policy", "b")
	require.NoError(t, err)
	assert.Equal(t, 2, v)
	_, err = r.Resolve("queue.x.ordering-policy", "sjf")
	var un *queue.UnknownNameError
	require.ErrorAs(t, err, &un)
	assert.Equal(t, queue.UnknownNameError{Field: "queue.x.ordering-policy", Kind: "ordering policy", Name: "sjf", Known: []string{"a", "b"}}, *un)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	assert.Contains(t, err.Error(), `unknown ordering policy "sjf"`)
}
