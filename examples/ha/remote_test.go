package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/durable"
)

// TestResponseWire: a response crosses the HTTP API whole: the session,
// the duplicate mark, the answer, and a rejection that errors.Is still
// recognises.
func TestResponseWire(t *testing.T) {
	for _, r := range []Response{
		{Session: 7},
		{Result: durable.Result{Kind: durable.KindAddNode, Seq: 3, Now: 5}, Duplicate: true},
		{Result: durable.Result{Kind: durable.KindRemoveNode, Seq: 4}, Err: fmt.Errorf("node x: %w", berth.ErrNotFound)},
		{Rejected: fmt.Errorf("%w: session 9", ErrSessionExpired)},
		{Rejected: fmt.Errorf("%w: request 1", ErrStaleRequest)},
		{Rejected: &EntryError{"kind", fmt.Errorf("%w: entry kind 77", berth.ErrCorruptState)}},
	} {
		b, err := encodeResponse(r)
		require.NoError(t, err)
		got, err := decodeResponse(b)
		require.NoError(t, err)
		assert.Equal(t, r.Session, got.Session)
		assert.Equal(t, r.Duplicate, got.Duplicate)
		assert.Equal(t, r.Result, got.Result)
		for _, pair := range []struct{ want, got error }{{r.Err, got.Err}, {r.Rejected, got.Rejected}} {
			require.Equal(t, pair.want == nil, pair.got == nil)
			if pair.want == nil {
				continue
			}
			assert.Equal(t, pair.want.Error(), pair.got.Error())
			for _, k := range rejectKinds {
				assert.Equal(t, errors.Is(pair.want, k), errors.Is(pair.got, k), "%v is %v", pair.want, k)
			}
		}
	}
	_, err := decodeResponse([]byte("not a response"))
	assert.ErrorIs(t, err, berth.ErrCorruptState)
}

// FuzzDecodeResponse: a damaged response is refused, never a panic.
func FuzzDecodeResponse(f *testing.F) {
	b, _ := encodeResponse(Response{Result: durable.Result{Seq: 1, Allocations: nil}, Err: berth.ErrConflict})
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		if r, err := decodeResponse(b); err == nil {
			again, err := encodeResponse(r)
			require.NoError(t, err)
			_, err = decodeResponse(again)
			require.NoError(t, err)
		}
	})
}
