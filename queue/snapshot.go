package queue

// UserSnapshot is one user's accounting in a queue snapshot.
type UserSnapshot struct {
	User string
	Usage
}

// QueueSnapshot is a copy of one queue's configuration and accounting.
type QueueSnapshot[S any] struct {
	Path     Path
	Kind     Kind
	Parent   Path   // zero for root
	Children []Path // in iteration order

	Capacity, MaxCapacity                 Capacity
	CapacityFraction, MaxCapacityFraction float32
	AbsoluteCapacity, AbsoluteMaxCapacity float32
	ConfiguredState, State                State
	SubmitACL, AdminACL                   ACL

	Usage Usage
	Users []UserSnapshot // sorted by user

	// Extra is what the snapshot's extract function returned for the queue.
	Extra S
}

// Snapshot is a read-only, deep-copied view of a tree at one moment, for
// preemption and reporting: later changes to the tree do not show in it,
// and it is safe to read from other goroutines.
type Snapshot[S any] struct {
	// Queues holds every queue depth first (parents before children,
	// children in iteration order); Queues[0] is root.
	Queues []QueueSnapshot[S]
	index  map[Path]int
}

// Get returns the snapshot of the queue at p, or nil.
func (s *Snapshot[S]) Get(p Path) *QueueSnapshot[S] {
	i, ok := s.index[p]
	if !ok {
		return nil
	}
	return &s.Queues[i]
}

// Root returns the root's snapshot, or nil when the snapshot is empty (a
// nil tree's, or the zero value).
func (s *Snapshot[S]) Root() *QueueSnapshot[S] {
	if len(s.Queues) == 0 {
		return nil
	}
	return &s.Queues[0]
}

// Snapshot copies the tree's configuration and accounting (not payloads).
func (t *Tree[T]) Snapshot() *Snapshot[struct{}] {
	return SnapshotWith(t, func(*Queue[T]) struct{} { return struct{}{} })
}

// SnapshotWith copies the tree and, for each queue, what extract returns
// (e.g. a scheduler's guaranteed and maximum resources, which live in its
// payload). extract must return data that does not alias mutable state if
// the snapshot is to be read concurrently; a nil extract leaves Extra
// zero, and a nil t gives an empty snapshot.
func SnapshotWith[T, S any](t *Tree[T], extract func(*Queue[T]) S) *Snapshot[S] {
	if t == nil {
		return &Snapshot[S]{index: map[Path]int{}}
	}
	s := &Snapshot[S]{Queues: make([]QueueSnapshot[S], 0, t.Len()), index: make(map[Path]int, t.Len())}
	for q := range t.All() {
		qs := QueueSnapshot[S]{
			Path:                q.path,
			Kind:                q.kind,
			Capacity:            q.capacity,
			MaxCapacity:         q.maxCapacity,
			CapacityFraction:    q.capFrac,
			MaxCapacityFraction: q.maxFrac,
			AbsoluteCapacity:    q.absCap,
			AbsoluteMaxCapacity: q.absMax,
			ConfiguredState:     q.confState,
			State:               q.State(),
			SubmitACL:           q.submitACL,
			AdminACL:            q.adminACL,
			Usage:               q.acct,
		}
		if q.parent != nil {
			qs.Parent = q.parent.path
		}
		for _, c := range q.children {
			qs.Children = append(qs.Children, c.path)
		}
		for _, u := range q.Users() {
			qs.Users = append(qs.Users, UserSnapshot{User: u, Usage: q.users[u].Usage})
		}
		if extract != nil {
			qs.Extra = extract(q)
		}
		s.index[q.path] = len(s.Queues)
		s.Queues = append(s.Queues, qs)
	}
	return s
}
