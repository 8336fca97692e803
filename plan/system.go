package plan

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/berthsched/berth"
)

// SystemConfig configures a [System].
type SystemConfig struct {
	// ClusterTimestamp stamps every new reservation id (YARN's RM start
	// time, ResourceManager.getClusterTimeStamp()).
	ClusterTimestamp int64
	// Clock gives the time the validator compares deadlines with.
	// Required.
	Clock berth.Clock
	// Authorizer checks reservation ACLs on Submit, Update, Delete and
	// List; nil disables the checks, YARN's default
	// (yarn.acl.reservation-enable=false). See [Authorizer].
	Authorizer Authorizer
	// Publish, when set, publishes plan p to the scheduler at time now.
	// Submit calls it, outside the system's locks, right after it placed a
	// reservation that arrives within one plan step (arrival − now <
	// step), as YARN's ClientRMService.submitReservation synchronizes the
	// plan then (refreshScheduler): the reservation's queue exists when
	// Submit returns, so applications submitted to it at once are
	// accepted. A host sets it to its plan follower's Publish
	// (follower.Follower.Publish), which keeps what the publication did —
	// the containers of applications it killed, its errors — and hands it
	// to the host with the follower's next Run: Submit answers for the
	// reservation alone, which is accepted whatever the publication met.
	// A function of its own must likewise keep or handle what it does.
	// Nil leaves the queue to the follower's next run.
	Publish func(p *Plan, now berth.Time)
}

// System is the reservation service of a cluster: YARN's ReservationSystem
// together with the reservation calls of ClientRMService. It holds one
// [Plan] per reservable queue, issues reservation ids, validates requests
// (YARN's ReservationInputValidator), keeps submissions idempotent and
// delegates placement to each plan's [Agent]. Its request and response
// types carry the JSON field names of YARN's REST reservation API, so a
// host can serve them as they are.
//
// A System is safe for concurrent use. Placement runs outside the system's
// lock, under the plan's own; two submissions of one id race safely (the
// second sees the first and is idempotent or a conflict).
//
// Only [NewSystem] makes a usable System: the zero value is not one (it
// has no clock, and adding a plan to it panics).
type System struct {
	cfg      SystemConfig
	mu       sync.RWMutex
	sequence int64
	plans    map[string]*Plan
	queues   map[ReservationID]string // the queue each id is claimed for
	// inflight counts the submissions of an id placing it now: their
	// claim stands whatever the plan holds until they are done.
	inflight map[ReservationID]int
	observer Observer // given to every plan, current and added later; nil: none
}

// NewSystem returns a system with no plans.
func NewSystem(cfg SystemConfig) (*System, error) {
	if berth.CheckNotNil("clock", cfg.Clock) != nil {
		return nil, berth.InvalidField("system.clock", nil, "a clock is required")
	}
	return &System{cfg: cfg, plans: map[string]*Plan{}, queues: map[ReservationID]string{}, inflight: map[ReservationID]int{}}, nil
}

// PlanCapacity is the capacity the CapacityScheduler reservation system
// gives a plan at creation: the cluster resource × the plan queue's
// absolute capacity (a fraction), rounded down to a multiple of the minimum
// allocation by calc. With berth.MemoryCalculator the result has one vcore,
// as in YARN, until the plan follower sets the capacity. A nil calc is
// berth.MemoryCalculator.
func PlanCapacity(calc berth.Calculator, cluster berth.Resource, absoluteCapacity float64, minAllocation berth.Resource) berth.Resource {
	if calc == nil {
		calc = berth.MemoryCalculator{}
	}
	return calc.MultiplyAndNormalizeDown(cluster, absoluteCapacity, minAllocation)
}

// AddPlan registers p for its queue. A queue that has a plan already is
// berth.ErrAlreadyExists.
func (s *System) AddPlan(p *Plan) error {
	if p == nil {
		return berth.InvalidField("plan", nil, "must not be nil")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.plans[p.QueueName()]; ok {
		return &berth.FieldError{Field: "queue", Value: p.QueueName(), Kind: berth.ErrAlreadyExists,
			Reason: "a plan for this queue exists already"}
	}
	s.holdLocked(p)
	return nil
}

// holdLocked makes p the plan of its queue: the system's observer, if
// any, observes it and its ledger of ids is kept. Called with s.mu held for
// writing (or on a system not yet shared, as RestoreSystem does).
func (s *System) holdLocked(p *Plan) {
	if s.observer != nil {
		p.SetObserver(s.observer)
	}
	p.trackIDs()
	s.plans[p.cfg.Queue] = p
}

// Reinitialize creates a plan for every configuration whose queue has none
// and keeps existing plans untouched, capacity included (YARN's
// reinitialize: plans are added for new reservable queues, never replaced
// or removed). It returns the queues added, sorted. All-or-nothing: an
// invalid configuration adds nothing.
func (s *System) Reinitialize(cfgs ...Config) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fresh := map[string]*Plan{}
	for i, c := range cfgs {
		if _, ok := s.plans[c.Queue]; ok {
			continue
		}
		if _, ok := fresh[c.Queue]; ok {
			continue
		}
		p, err := New(c)
		if err != nil {
			return nil, berth.Wrap(err, fmt.Sprintf("plan configuration %d, queue", i), c.Queue)
		}
		fresh[c.Queue] = p
	}
	added := make([]string, 0, len(fresh))
	for q, p := range fresh {
		s.holdLocked(p)
		added = append(added, q)
	}
	slices.Sort(added)
	return added, nil
}

// Plan returns the plan of queue.
func (s *System) Plan(queue string) (*Plan, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.plans[queue]
	return p, ok
}

// Plans returns every plan, sorted by queue name.
func (s *System) Plans() []*Plan {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*Plan, 0, len(s.plans))
	for _, p := range s.plans {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *Plan) int {
		switch {
		case a.QueueName() < b.QueueName():
			return -1
		case a.QueueName() > b.QueueName():
			return 1
		}
		return 0
	})
	return out
}

// NewReservationID issues a fresh id: the cluster timestamp and the next
// sequence number, starting at 1 (YARN's getNewReservationId). Nothing is
// stored.
func (s *System) NewReservationID() ReservationID {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sequence++
	return ReservationID{ClusterTimestamp: s.cfg.ClusterTimestamp, Sequence: s.sequence}
}

// NewReservation is NewReservationID in the REST response form.
func (s *System) NewReservation() NewReservationResponse {
	return NewReservationResponse{ID: s.NewReservationID()}
}

// QueueOf returns the queue of the reservation id (YARN's
// getQueueForReservation).
func (s *System) QueueOf(id ReservationID) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forgetGoneLocked()
	q, ok := s.queues[id]
	return q, ok
}

// forgetGone is forgetGoneLocked under s.mu.
func (s *System) forgetGone() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forgetGoneLocked()
}

// forgetGoneLocked drops the queue of every id a plan of the system
// removed since the last call (a deletion, an archival, a replan, through
// the system or the plan directly, as the plan follower and the replanner
// do), so the map holds the ids the plans hold, and those a submission
// in flight has claimed, and no more. A removal is checked against what
// the plan holds now (its ledger), so one followed by a new placement of
// the id forgets nothing; it reads the plans' ledgers only, never their
// state, so it waits on no plan's change. Called with s.mu held for
// writing.
func (s *System) forgetGoneLocked() {
	for q, p := range s.plans {
		for _, id := range p.ids.take() {
			s.forgetLocked(id, q)
		}
	}
}

// forgetLocked drops id's claim on queue q unless a submission of id is
// in flight or q's plan holds id.
func (s *System) forgetLocked(id ReservationID, q string) {
	if s.queues[id] != q || s.inflight[id] > 0 {
		return
	}
	if p := s.plans[q]; p != nil && p.ids.holds(id) {
		return
	}
	delete(s.queues, id)
}

// ---- validation of requests (YARN's ReservationInputValidator) ----

func (s *System) planForQueue(queue string) (*Plan, error) {
	if queue == "" {
		return nil, berth.InvalidField("queue", queue,
			"The queue is not specified. Please try again with a valid reservable queue.")
	}
	p, ok := s.Plan(queue)
	if !ok {
		return nil, &berth.FieldError{Field: "queue", Value: queue, Kind: berth.ErrNotFound,
			Reason: fmt.Sprintf("The specified queue: %s is not managed by reservation system. Please try again with a valid reservable queue.", queue)}
	}
	return p, nil
}

func (s *System) planForID(id ReservationID) (*Plan, error) {
	if id.IsZero() {
		return nil, berth.InvalidField("reservation-id", id,
			"Missing reservation id. Please try again by specifying a reservation id.")
	}
	q, ok := s.QueueOf(id)
	if !ok || q == "" {
		return nil, &berth.FieldError{Field: "reservation-id", Value: id, Kind: berth.ErrNotFound,
			Reason: fmt.Sprintf("The specified reservation with ID: %v is unknown. Please try again with a valid reservation.", id)}
	}
	p, ok := s.Plan(q)
	if !ok {
		return nil, &berth.FieldError{Field: "reservation-id", Value: id, Kind: berth.ErrNotFound,
			Reason: fmt.Sprintf("The specified reservation: %v is not associated with any valid plan. Please try again with a valid reservation.", id)}
	}
	return p, nil
}

// ValidateSubmission runs YARN's submission checks and returns the target
// plan: id set, queue set and reservable, then [ValidateDefinition].
func (s *System) ValidateSubmission(req SubmissionRequest) (*Plan, error) {
	return s.validateSubmission(req, s.cfg.Clock.Now())
}

func (s *System) validateSubmission(req SubmissionRequest, now berth.Time) (*Plan, error) {
	if req.ID.IsZero() {
		return nil, berth.InvalidField("reservation-id", req.ID,
			"Reservation id cannot be null. Please try again specifying  a valid reservation id by creating a new reservation id.")
	}
	p, err := s.planForQueue(req.Queue)
	if err != nil {
		return nil, err
	}
	if err := ValidateDefinition(req.Definition, p.Limits(now)); err != nil {
		return nil, err
	}
	return p, nil
}

// ValidateUpdate runs YARN's update checks and returns the plan holding
// the reservation: id set and known, its plan present, then
// [ValidateDefinition].
func (s *System) ValidateUpdate(req UpdateRequest) (*Plan, error) {
	return s.validateUpdate(req, s.cfg.Clock.Now())
}

func (s *System) validateUpdate(req UpdateRequest, now berth.Time) (*Plan, error) {
	p, err := s.planForID(req.ID)
	if err != nil {
		return nil, err
	}
	if err := ValidateDefinition(req.Definition, p.Limits(now)); err != nil {
		return nil, err
	}
	return p, nil
}

// ValidateDelete runs YARN's delete checks and returns the plan holding
// the reservation.
func (s *System) ValidateDelete(req DeleteRequest) (*Plan, error) { return s.planForID(req.ID) }

// ValidateList normalises the window (start ≤ 0 → 0, end < 0 → MaxTime)
// and runs YARN's list checks: end ≥ start, queue set and reservable.
func (s *System) ValidateList(req ListRequest) (*Plan, berth.Interval, error) {
	w := berth.Interval{Start: max(req.Start, 0), End: req.End}
	if w.End < 0 {
		w.End = berth.MaxTime
	}
	if w.End < w.Start {
		return nil, w, berth.InvalidField("end-time", req.End,
			"The specified end time must be greater than the specified start time.")
	}
	p, err := s.planForQueue(req.Queue)
	if err != nil {
		return nil, w, err
	}
	return p, w, nil
}

// ---- operations (ClientRMService) ----

// ErrNoAgent is returned (wrapped, kind berth.ErrInvalidState) when a
// plan has no agent to place reservations.
var ErrNoAgent = errors.New("plan has no reservation agent")

func agentOf(p *Plan) (Agent, error) {
	if a := p.Agent(); a != nil {
		return a, nil
	}
	return nil, &berth.FieldError{Field: "queue", Value: p.QueueName(), Kind: berth.ErrInvalidState,
		Reason: "the plan has no reservation agent", Err: ErrNoAgent}
}

// Submit validates req and asks the plan's agent to place it (YARN's
// submitReservation), no earlier than now ([Definition.PlacedArrival]: an
// arrival in the past is stored as now). Submitting an id again with the
// same request succeeds without change; with a different definition it is
// berth.ErrConflict. A failed placement is an error (YARN answers success
// when its agent returns false). With an [Authorizer] the caller req.User
// needs permission for [OpSubmitReservation], checked after the idempotence
// check as in YARN. A reservation placed that arrives within one plan step
// is published at once through [SystemConfig].Publish, when set.
func (s *System) Submit(req SubmissionRequest) error {
	now := s.cfg.Clock.Now()
	p, err := s.validateSubmission(req, now)
	if err != nil {
		return err
	}
	// Claim the id for this queue first, so that concurrent submissions of
	// one id to two queues cannot both place it.
	s.mu.Lock()
	s.forgetGoneLocked()
	if q, had := s.queues[req.ID]; had && q != req.Queue {
		// A claim whose plan no longer holds the id and that no
		// submission is placing is stale: a removal since the last
		// look, not yet seen.
		s.forgetLocked(req.ID, q)
	}
	if q, had := s.queues[req.ID]; had && q != req.Queue {
		s.mu.Unlock()
		err := &berth.FieldError{Field: "reservation-id", Value: req.ID, Kind: berth.ErrConflict,
			Reason: fmt.Sprintf("the reservation id is already used in queue %s", q)}
		p.rejected(ReservationRejected, req.ID, req.User, err)
		return err
	}
	s.queues[req.ID] = req.Queue
	s.inflight[req.ID]++
	s.mu.Unlock()
	added, err := s.place(p, req, now)
	s.mu.Lock()
	if s.inflight[req.ID]--; s.inflight[req.ID] == 0 {
		delete(s.inflight, req.ID)
	}
	s.forgetLocked(req.ID, req.Queue) // a failed placement, or a removal while in flight
	s.mu.Unlock()
	if err != nil {
		p.rejected(ReservationRejected, req.ID, req.User, err)
		return err
	}
	if added {
		s.publishSoon(p, req.Definition.Arrival, now)
	}
	return nil
}

// place runs the idempotence check and the agent for Submit; added reports
// that this call placed the reservation.
func (s *System) place(p *Plan, req SubmissionRequest, now berth.Time) (added bool, err error) {
	if done, err := s.idempotent(p, req); done || err != nil {
		return false, err
	}
	// As YARN: the ACL check follows the idempotence check, so resubmitting
	// an accepted reservation needs no permission.
	if err := s.authorize(req.User, OpSubmitReservation, p, req.ID); err != nil {
		return false, err
	}
	ag, err := agentOf(p)
	if err != nil {
		return false, err
	}
	if err := ag.CreateReservation(p, req.ID, req.User, placed(req.Definition, now)); err != nil {
		if errors.Is(err, berth.ErrAlreadyExists) { // a concurrent submission won
			if done, ierr := s.idempotent(p, req); done || ierr != nil {
				return false, ierr
			}
		}
		return false, berth.Wrap(err, "submitting reservation", req.ID)
	}
	return true, nil
}

// publishSoon is YARN's ClientRMService.refreshScheduler: a reservation
// that arrives within one plan step of now is published at once.
func (s *System) publishSoon(p *Plan, arrival, now berth.Time) {
	if s.cfg.Publish == nil {
		return
	}
	if d := arrival - now; arrival > now && (d < 0 || d >= p.Step()) { // d < 0: overflow
		return
	}
	s.cfg.Publish(p, s.cfg.Clock.Now())
}

// placed is the copy of def an agent places at time now: its arrival is
// [Definition.PlacedArrival], so nothing is placed in the past.
func placed(def *Definition, now berth.Time) Definition {
	d := def.Clone()
	d.Arrival = d.PlacedArrival(now)
	return d
}

// idempotent reports whether the plan holds req.ID already: done with a nil
// error for the same request (see sameRequest), an ErrConflict otherwise.
func (s *System) idempotent(p *Plan, req SubmissionRequest) (bool, error) {
	cur, ok := p.Reservation(req.ID)
	if !ok {
		return false, nil
	}
	if sameRequest(cur, *req.Definition) {
		return true, nil
	}
	return true, &berth.FieldError{Field: "reservation-definition", Value: req.ID, Kind: berth.ErrConflict,
		Reason: fmt.Sprintf("Reservation allocation already exists with the reservation id %v, but a different reservation definition was provided. Please try again with a new reservation id, or consider updating the reservation instead.", req.ID)}
}

// sameRequest reports whether def asks for what a was accepted for: an
// equal definition once both arrivals are taken as placed at acceptance
// (the stored arrival was raised to the submission time if it was in the
// past; arrivals before the acceptance both mean "from then on").
func sameRequest(a *Allocation, def Definition) bool {
	stored := a.Definition
	stored.Arrival, def.Arrival = stored.PlacedArrival(a.AcceptedAt), def.PlacedArrival(a.AcceptedAt)
	return stored.Equal(def)
}

// Update validates req and asks the agent to re-place the reservation
// (YARN's updateReservation), no earlier than now as Submit places. On
// failure the old reservation is kept. With
// an [Authorizer] req.User needs permission for [OpUpdateReservation]; the
// new version is owned by req.User, as in YARN.
func (s *System) Update(req UpdateRequest) error {
	now := s.cfg.Clock.Now()
	p, err := s.validateUpdate(req, now)
	if err != nil {
		return err
	}
	if err := s.update(p, req, now); err != nil {
		p.rejected(ReservationUpdateRejected, req.ID, req.User, err)
		return err
	}
	return nil
}

// update authorizes req and runs the agent for Update.
func (s *System) update(p *Plan, req UpdateRequest, now berth.Time) error {
	if err := s.authorize(req.User, OpUpdateReservation, p, req.ID); err != nil {
		return err
	}
	ag, err := agentOf(p)
	if err != nil {
		return err
	}
	if err := ag.UpdateReservation(p, req.ID, req.User, placed(req.Definition, now)); err != nil {
		return berth.Wrap(err, "Unable to update reservation", req.ID)
	}
	return nil
}

// Delete validates req and asks the agent to delete the reservation
// (YARN's deleteReservation). The id is forgotten afterwards, so deleting
// twice fails in validation with berth.ErrNotFound. With an [Authorizer]
// req.User needs permission for [OpDeleteReservation].
func (s *System) Delete(req DeleteRequest) error {
	p, err := s.ValidateDelete(req)
	if err != nil {
		return err
	}
	if err := s.authorize(req.User, OpDeleteReservation, p, req.ID); err != nil {
		return err
	}
	ag, err := agentOf(p)
	if err != nil {
		return err
	}
	if err := ag.DeleteReservation(p, req.ID, req.User); err != nil {
		return berth.Wrap(err, "Could not delete reservation", req.ID)
	}
	s.forgetGone() // the plan reported the deletion
	return nil
}

// List returns the reservations of req.Queue: the one named by req.ID, or
// those overlapping [start, end] (YARN's listReservations), ordered by
// (start, end, id). With an [Authorizer] req.User needs permission for
// [OpListReservations].
func (s *System) List(req ListRequest) (ListResponse, error) {
	p, w, err := s.ValidateList(req)
	if err != nil {
		return ListResponse{}, err
	}
	if err := s.authorize(req.User, OpListReservations, p, req.ID); err != nil {
		return ListResponse{}, err
	}
	f := Filter{ID: req.ID, Window: &w}
	out := ListResponse{Reservations: []ReservationInfo{}}
	for _, a := range p.Reservations(f) {
		out.Reservations = append(out.Reservations, InfoOf(a, req.IncludeAllocations))
	}
	return out, nil
}

// ArchiveCompleted archives completed reservations in every plan
// ([Plan.ArchiveCompleted]) and forgets their ids; it returns the ids
// archived, plan by plan in queue order. (A plan archiving by itself, as
// the plan follower has it do, is forgotten the same way.)
func (s *System) ArchiveCompleted(now berth.Time) ([]ReservationID, error) {
	// The plans report their archivals, the ones before an error too.
	defer s.forgetGone()
	var all []ReservationID
	for _, p := range s.Plans() {
		ids, err := p.ArchiveCompleted(now)
		if err != nil {
			return all, berth.Wrap(err, "archiving plan", p.QueueName())
		}
		all = append(all, ids...)
	}
	return all, nil
}
