package scenario

import (
	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/queue"
)

// lifetimeMonitorInterval is how often YARN's RMAppLifetimeMonitor checks
// the applications' lifetimes
// (yarn.resourcemanager.application-timeouts.monitor.interval-ms).
const lifetimeMonitorInterval berth.Duration = 3000

// capacityLifetimes is the engine's Expirer over the capacity scheduler.
type capacityLifetimes struct{ s *capacity.Scheduler }

// ExpireApps kills the applications past their lifetime.
func (l capacityLifetimes) ExpireApps() ([]string, []queue.Ended, error) {
	expired, err := l.s.ExpireApps()
	var apps []string
	var ended []queue.Ended
	for _, x := range expired {
		apps = append(apps, x.App)
		ended = append(ended, x.Containers...)
	}
	return apps, ended, err
}

// usesLifetimes reports whether a queue of the tree, or a template its
// auto-created queues take, gives applications a lifetime (trace jobs
// ask for none, so only the queues' maximum or default can): without
// one no application ever expires, and the engine need not check.
func usesLifetimes(q *capacity.QueueConfig) bool {
	if settingsLifetime(&q.Settings) {
		return true
	}
	for i := range q.Children {
		if usesLifetimes(&q.Children[i]) {
			return true
		}
	}
	return false
}

func settingsLifetime(st *capacity.QueueSettings) bool {
	if st.MaxAppLifetime > 0 || st.DefaultAppLifetime > 0 {
		return true
	}
	if ac := st.AutoCreate; ac != nil {
		return settingsLifetime(&ac.Leaf.Settings) || settingsLifetime(&ac.Parent.Settings)
	}
	return false
}
