package queue_test

import (
	"bytes"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestACLStateRoundTrip(t *testing.T) {
	acl := func(s string) *queue.ACL { a := queue.ParseACL(s); return &a }
	cases := []*queue.ACL{nil, acl("*"), acl(" "), acl("alice,bob admins"), acl("alice,* "), acl(" ops,dev")}
	var buf bytes.Buffer
	e := berth.NewStateEncoder(&buf, "test.ACL", 1)
	for _, a := range cases {
		queue.WriteACL(e, a)
	}
	require.NoError(t, e.Finish())
	d, err := berth.NewStateDecoder(&buf, "test.ACL", 1)
	require.NoError(t, err)
	for i, want := range cases {
		got := queue.ReadACL(d)
		if want == nil {
			assert.Nil(t, got, "case %d", i)
			continue
		}
		require.NotNil(t, got, "case %d", i)
		assert.Equal(t, want.String(), got.String(), "case %d", i)
		assert.Equal(t, *want, *got, "case %d", i)
	}
	require.NoError(t, d.Finish())
}
