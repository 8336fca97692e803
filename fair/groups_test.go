package fair

import (
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// AppSpec.Groups (shared with the capacity scheduler) overrides
// Config.Groups for one submission, for ACLs and placement rules alike.
// The harness's Config.Groups gives bob the groups bobgroup, bobsubgroup1
// and bobsubgroup2.
func TestSubmitAppGroupsFromSpec(t *testing.T) {
	h := newHarness(t, DefaultConfig(), allocXML(`
  <queue name="root"><aclSubmitApps> </aclSubmitApps><aclAdministerApps> </aclAdministerApps>
    <queue name="secure"><aclSubmitApps> admins</aclSubmitApps></queue>
    <queue name="ops"><aclSubmitApps>*</aclSubmitApps></queue>
  </queue>
  <queuePlacementPolicy><rule name="specified" create="false"/><rule name="primaryGroup" create="false"/><rule name="reject"/></queuePlacementPolicy>`))
	tests := []struct {
		name  string
		spec  AppSpec
		queue string
		err   error
	}{
		{"config groups: not an admin", AppSpec{ID: "a1", Queue: "secure", User: "bob"}, "", berth.ErrPermissionDenied},
		{"spec groups grant the ACL", AppSpec{ID: "a2", Queue: "secure", User: "bob", Groups: []string{"admins"}}, "root.secure", nil},
		{"config groups: primary group bobgroup has no queue", AppSpec{ID: "a3", User: "bob"}, "", berth.ErrNoPlacement},
		{"spec groups drive primaryGroup placement", AppSpec{ID: "a4", User: "bob", Groups: []string{"ops", "admins"}}, "root.ops", nil},
		{"empty non-nil groups mean none", AppSpec{ID: "a5", Queue: "secure", User: "bob", Groups: []string{}}, "", berth.ErrPermissionDenied},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := h.s.SubmitApp(tc.spec)
			if tc.err != nil {
				assert.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.queue, q)
		})
	}
}
