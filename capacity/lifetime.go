package capacity

import (
	"fmt"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// Application lifetimes, as YARN 3.x gives them: a queue's
// maximum-application-lifetime and default-application-lifetime
// (seconds) are inherited down the tree (QueueAppLifetimeAndLimitSettings:
// an unset maximum takes the parent's, 0 means none; an unset default
// takes the smaller of the parent's default and the queue's maximum when
// a default was set above, else the maximum). At submission an
// application's lifetime is what it asked for (AppSpec.LifetimeSeconds),
// the leaf's default when it asked none, capped by the leaf's maximum
// (CapacityScheduler.checkAndGetApplicationLifetime). It counts from the
// submission, on the host's clock.
//
// YARN's RMAppLifetimeMonitor kills an application once the clock is
// past its deadline, checking every few seconds
// (yarn.resourcemanager.application-timeouts.monitor.interval-ms, 3000).
// Berth does the same when the host calls [Scheduler.ExpireApps] with its
// clock at the time it wants the check made: the host picks the
// interval (the simulator checks every 3 s, as YARN does).
// Nothing expires on its own.

// lifetimes are a queue's effective lifetime settings.
type lifetimes struct {
	max, def     int64 // seconds; <= 0: none
	defSpecified bool  // a default was configured here or above
}

// inheritLifetimes computes a queue's effective lifetimes from its
// parent's (nil for the root) and its settings. An error is YARN's
// "default can't exceed maximum".
func inheritLifetimes(parent *lifetimes, st *QueueSettings) (lifetimes, error) {
	var l lifetimes
	if parent == nil {
		l.max, l.def = st.MaxAppLifetime, st.DefaultAppLifetime
		l.defSpecified = st.DefaultAppLifetime >= 0
		return l, nil
	}
	l.max = parent.max
	if st.MaxAppLifetime >= 0 {
		l.max = st.MaxAppLifetime
	}
	def := st.DefaultAppLifetime
	l.defSpecified = def >= 0 || parent.defSpecified
	if def < 0 {
		if l.defSpecified {
			def = min(parent.def, l.max)
		} else {
			def = l.max
		}
	}
	if l.max > 0 && def > l.max {
		return l, fmt.Errorf("default lifetime %d can't exceed maximum lifetime %d", def, l.max)
	}
	if def <= 0 {
		def = l.max
	}
	l.def = def
	return l, nil
}

// validateLifetimes checks the effective lifetimes of a configured tree.
func validateLifetimes(c *QueueConfig, path string, parent *lifetimes) error {
	l, err := inheritLifetimes(parent, &c.Settings)
	if err != nil {
		return berth.InvalidField(prefix+path+".default-application-lifetime", c.Settings.DefaultAppLifetime, err.Error())
	}
	for i := range c.Children {
		if err := validateLifetimes(&c.Children[i], path+"."+c.Children[i].Name, &l); err != nil {
			return err
		}
	}
	return nil
}

// appLifetime is checkAndGetApplicationLifetime for leaf q: seconds, <= 0
// for none.
func appLifetime(q *qnode, requested int64) int64 {
	l := q.life
	if l.max <= 0 {
		if requested <= 0 {
			return l.def
		}
		return requested
	}
	switch {
	case requested <= 0:
		return l.def
	case requested > l.max:
		return l.max
	}
	return requested
}

// deadline is when an application submitted at start with a lifetime
// (seconds) expires; berth.MaxTime for none.
func deadline(start berth.Time, lifetime int64) berth.Time {
	if lifetime <= 0 {
		return berth.MaxTime
	}
	d := lifetime * 1000
	if lifetime > (berth.MaxTime-start)/1000 || start > berth.MaxTime-d {
		return berth.MaxTime
	}
	return start + d
}

// Expired is an application killed because its lifetime ran out, with
// the containers that ended with it.
type Expired struct {
	// App is the application's id.
	App string
	// Deadline is when its lifetime ran out.
	Deadline berth.Time
	// Containers are its containers, ended as Killed.
	Containers []Ended
}

// ExpireApps kills the applications whose lifetime has run out at the
// host's clock (now past their deadline, as YARN's RMAppLifetimeMonitor
// checks it), in deadline order, then submission order, and returns
// them. Each is killed as KillApp kills it.
func (s *Scheduler) ExpireApps() ([]Expired, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	var due []*app
	for _, a := range s.apps {
		if now > a.deadline {
			due = append(due, a)
		}
	}
	slices.SortFunc(due, func(x, y *app) int {
		if x.deadline != y.deadline {
			if x.deadline < y.deadline {
				return -1
			}
			return 1
		}
		return cmpSeq(x.seq, y.seq)
	})
	var out []Expired
	for _, a := range due {
		ended, err := s.removeAppLocked(a.id, queue.AppKilled)
		if err != nil {
			return out, err
		}
		out = append(out, Expired{App: a.id, Deadline: a.deadline, Containers: ended})
	}
	return out, nil
}

// AppDeadline returns when the application's lifetime runs out on the
// host's clock, or false when it has none.
func (s *Scheduler) AppDeadline(appID string) (berth.Time, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[appID]
	if !ok {
		return 0, false, notFound("app.id", appID)
	}
	return a.deadline, a.deadline != berth.MaxTime, nil
}
