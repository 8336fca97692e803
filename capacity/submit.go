package capacity

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// submitQueue is SubmitApp's first step: the queue the placement chooses
// (or the one the application asked for), created when a parent
// auto-creates it (autoqueue.go).
func (s *Scheduler) submitQueue(spec AppSpec, groups queue.Groups) (*qnode, error) {
	name, by, err := s.place(spec, groups)
	if err != nil {
		return nil, berth.Wrap(err, "submitting application", spec.ID)
	}
	q, err := s.lookupQueue(name)
	if err != nil {
		aq, aerr := s.autoCreate(name, by != nil, spec.User, groups)
		if aerr != nil {
			return nil, berth.Wrap(aerr, "submitting application", spec.ID)
		}
		if aq != nil {
			q, err = aq, nil
		}
	}
	if q != nil && q.auto == autoLegacy && by == nil {
		return nil, fieldErr(berth.ErrPermissionDenied, "queue", q.path,
			"Application %s submission by user : %s to specified queue : %s is prohibited. Verify automatic queue mapping for user exists in %s", spec.ID, spec.User, q.path, queueMappingsKey)
	}
	if err != nil {
		if by != nil {
			// The mapping names the queue: say so once, as the reason.
			return nil, berth.Wrap(&berth.FieldError{Field: "queue", Value: name, Kind: berth.ErrNotFound,
				Reason: fmt.Sprintf("unknown queue %s, named by %s", name, by.describe())},
				"submitting application", spec.ID)
		}
		return nil, berth.Wrap(err, "submitting application", spec.ID)
	}
	return q, nil
}

// submitPriority is the priority a submission to leaf q runs at: its own
// (or the leaf's default) through the cap and the ACLs, then its
// workflow's mapped priority when the override is on (priority.go).
func (s *Scheduler) submitPriority(q *qnode, spec AppSpec, groups queue.Groups) (int32, error) {
	prio, err := s.appPriority(q, spec.ID, spec.User, groups, spec.Priority, spec.NoPriority)
	if err != nil {
		return 0, err
	}
	if wp, ok := s.workflowPriority(q, spec.Tags); ok {
		return s.appPriority(q, spec.ID, spec.User, groups, wp, false)
	}
	return prio, nil
}
