package capacity

import (
	"fmt"
	"slices"

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

// lookupQueue resolves a full path or a unique short name; an error names
// the "queue" argument.
func (s *Scheduler) lookupQueue(name string) (*qnode, error) {
	tq, err := s.tree.Lookup(name)
	if err != nil {
		return nil, argError(err, "queue", name)
	}
	return s.byTQ[tq], nil
}

// groupSource is where a submission's groups come from: the groups the
// host gave with it, else Config.Groups, else none.
func (s *Scheduler) groupSource(user string, given []string) queue.Groups {
	if given == nil && s.cfg.Groups != nil {
		return s.cfg.Groups
	}
	return groupList(given)
}

// place runs the queue mappings for a submission. It returns the queue to
// resolve (the requested one when no mapping applies) and the mapping
// that chose it, if any.
func (s *Scheduler) place(spec AppSpec, groups queue.Groups) (string, *placed, error) {
	in := placeInput{user: spec.User, app: spec.Name, requested: spec.Queue,
		groups: func() []string { return groups.GroupsOf(spec.User) }}
	res, ok, err := s.cfg.Placement.place(in, treeIndex{s.tree})
	if err != nil {
		return "", nil, fmt.Errorf("application %s rejected by queue placement: %w", spec.ID, err)
	}
	if !ok {
		return spec.Queue, nil, nil
	}
	return res.queue, &res, nil
}

// Place returns the queue a submission of spec would be resolved in
// after the queue mappings (Config.Placement): the mapped queue's path,
// or spec.Queue when no mapping applies. It changes nothing; an error is
// a rejection by the mappings (kind berth.ErrNoPlacement). Resolution of
// the queue itself (unknown, plan queues) is SubmitApp's.
func (s *Scheduler) Place(spec AppSpec) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name, _, err := s.place(spec, s.groupSource(spec.User, spec.Groups))
	return name, err
}

// groupList adapts the submitter's groups to the tree's ACL check.
type groupList []string

// GroupsOf returns the submitter's groups, whoever asks.
func (g groupList) GroupsOf(string) []string { return g }

// resolveReservation is YARN's resolveReservationQueueName: applications
// submitted to a plan queue run in the reservation's queue, or in the
// plan's default queue when they name none.
func (s *Scheduler) resolveReservation(q *qnode, appID, resID string) (*qnode, error) {
	if q.kind != queue.KindPlan {
		return q, nil
	}
	if resID == "" {
		return s.byPath[q.path+"."+q.name+queue.DefaultReservationSuffix], nil
	}
	// As YARN: a missing queue is an inactive reservation (ErrNotFound,
	// as the fair scheduler answers); an existing queue that is not a
	// child of this plan (a reservation queue of another plan, or any
	// other queue) does not belong to it.
	r, err := s.lookupQueue(resID)
	if err != nil {
		return nil, fieldErr(berth.ErrNotFound, "app.reservation-id", resID,
			"Application %s submitted to a reservation which is not currently active: %s", appID, resID)
	}
	if r.parent != q {
		return nil, fieldErr(berth.ErrConflict, "app.reservation-id", resID,
			"Application: %s submitted to a reservation %s which does not belong to the specified queue: %s", appID, resID, q.name)
	}
	return r, nil
}

// validateSubmit is LeafQueue.validateSubmitApplication plus the parents'.
func (s *Scheduler) validateSubmit(q *qnode, appID, userName string) error {
	lf := q.leaf
	if !q.tq.IsRunning() {
		return fieldErr(berth.ErrInvalidState, "queue", q.path, "Queue %s is STOPPED. Cannot accept submission of application: %s", q.path, appID)
	}
	// A managed parent's leaves (YARN's AutoCreatedLeafQueue) skip the
	// application limits.
	if q.auto == autoLegacy {
		return nil
	}
	if q.numApps() >= lf.maxApps {
		return fieldErr(berth.ErrCapacityExceeded, "queue", q.path, "Queue %s already has %d applications, cannot accept submission of application: %s", q.path, q.numApps(), appID)
	}
	// An application waiting for a max-parallel-apps slot is not the
	// user's yet (YARN counts it only once it is runnable).
	if u := lf.users[userName]; u != nil && u.apps-u.waiting >= lf.maxAppsPerUser {
		return fieldErr(berth.ErrCapacityExceeded, "user", userName, "Queue %s already has %d applications from user %s cannot accept submission of application: %s", q.path, u.apps-u.waiting, userName, appID)
	} else if u == nil && lf.maxAppsPerUser <= 0 {
		return fieldErr(berth.ErrCapacityExceeded, "user", userName, "Queue %s already has 0 applications from user %s cannot accept submission of application: %s", q.path, userName, appID)
	}
	return nil
}

// SubmitApp submits an application and returns the full path of the leaf
// queue it runs in. The checks follow YARN's order: queue resolution, ACL,
// system limit, reservation resolution, leaf, queue limits.
func (s *Scheduler) SubmitApp(spec AppSpec) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := spec.Validate(); err != nil {
		return "", err
	}
	if _, ok := s.apps[spec.ID]; ok {
		return "", fieldErr(berth.ErrAlreadyExists, "app.id", spec.ID, "application already exists")
	}
	groups := s.groupSource(spec.User, spec.Groups)
	q, err := s.submitQueue(spec, groups)
	if err != nil {
		return "", err
	}
	if !q.tq.CanSubmit(spec.User, groups) {
		return "", fieldErr(berth.ErrPermissionDenied, "queue", q.path, "User %s does not have permission to submit %s to queue %s", spec.User, spec.ID, q.path)
	}
	if len(s.apps) >= s.cfg.MaximumApplications {
		return "", fieldErr(berth.ErrCapacityExceeded, prefix+"maximum-applications", s.cfg.MaximumApplications,
			"Maximum system application limit reached,cannot accept submission of application: %s", spec.ID)
	}
	if q, err = s.resolveReservation(q, spec.ID, spec.ReservationID); err != nil {
		return "", err
	}
	if !q.isLeaf() {
		return "", fieldErr(berth.ErrInvalidArgument, "queue", q.path, "Application %s submitted by user %s to non-leaf queue : %s", spec.ID, spec.User, q.path)
	}
	if err := s.validateSubmit(q, spec.ID, spec.User); err != nil {
		return "", err
	}
	prio, err := s.submitPriority(q, spec, groups)
	if err != nil {
		return "", err
	}
	var amAsk *Ask
	amPart := 0
	if !spec.AMResource.IsZero() {
		norm, err := s.normalize(q, spec.AMResource, "app.am-resource")
		if err != nil {
			return "", err
		}
		// The AM's label: its own, else the application's, else the
		// queue's default (YARN's RMAppManager and normalizeAndValidateRequest).
		if amPart, err = s.resolveExpr(q, "app.am-node-label-expression", spec.AMNodeLabelExpression, spec.NodeLabelExpression); err != nil {
			return "", err
		}
		amAsk = &Ask{Priority: 0, ResourceName: AnyResource, Capability: norm, Count: 1}
		if s.pendingAll.AddOverflows(norm) {
			return "", fieldErr(berth.ErrCapacityExceeded, "app.am-resource", spec.AMResource,
				"the outstanding demand of the applications would overflow int64")
		}
	}
	s.nextSeq++
	a := &app{id: spec.ID, seq: s.nextSeq, userName: spec.User, groups: slices.Clone(spec.Groups),
		priority: prio, start: s.clock.Now(), resID: spec.ReservationID,
		lp: growTo[apart](nil, len(s.parts)-1), amPart: amPart, expr: spec.NodeLabelExpression, amExpr: spec.AMNodeLabelExpression}
	a.deadline = deadline(a.start, appLifetime(q, spec.LifetimeSeconds))
	a.runnable = s.canRun(q, spec.User)
	if amAsk != nil {
		a.amRes = amAsk.Capability
		a.waitingAM = true
	}
	s.apps[a.id] = a
	s.attach(q, a)
	if amAsk != nil {
		s.setAsk(a, *amAsk, amPart)
		s.pendingChanged(a)
	}
	if s.obs != nil {
		s.emitApp(queue.AppAdded, a, "")
	}
	q.lastSubmit = a.start
	s.activate(q)
	return q.path, nil
}

// attach puts a (not yet activated) into leaf q.
func (s *Scheduler) attach(q *qnode, a *app) {
	lf := q.leaf
	a.q = q
	u := lf.users[a.userName]
	if u == nil {
		u = s.newUser(a.userName)
		lf.users[a.userName] = u
		s.setUserWeight(q, u)
	}
	a.u = u
	u.apps++
	s.accountUser(q, u, queue.Delta{PendingApps: 1})
	a.state = appPending
	if a.runnable {
		insertPending(lf, a)
	}
	s.trackParallel(a)
	i, _ := slices.BinarySearchFunc(lf.apps, a, bySeq)
	lf.apps = slices.Insert(lf.apps, i, a)
	// usage held by a moved application follows it
	if a.lp != nil {
		s.chargeApp(q, u, a, false)
		lf.borrowed += a.borrowed
	} else {
		if !a.used.IsZero() {
			s.charge(q, u, a.used, false)
		}
		if !a.reserved.IsZero() {
			s.charge(q, u, a.reserved, true)
		}
	}
	if a.hasPending() {
		s.userActiveApp(q, u, +1)
	}
}

// bySeq orders applications by submission.
func bySeq(x, y *app) int { return cmpSeq(x.seq, y.seq) }

func cmpSeq(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
