package rm

import (
	"slices"
	"strings"

	"github.com/berthsched/berth/preempt"
	"github.com/berthsched/berth/queue"
)

// fairPreemptKeys are the fair preemption policy's yarn-site keys.
var fairPreemptKeys = []string{preempt.FairKeyPreemption, preempt.FairKeyUtilizationThreshold,
	preempt.FairKeyWaitTimeBeforeKill, preempt.FairKeyWaitBeforeNextStarvation, preempt.FairKeyContinuousScheduling,
	preempt.FairKeyContinuousSchedulingSleep, preempt.FairKeyNMHeartbeatInterval, preempt.FairKeyKillUnneeded}

const (
	insteadFairConfig = "fair.Config, set in Go (rm.Options.Fair)"
	insteadPreemptCS  = "the capacity scheduler's preemption (this ResourceManager runs the fair scheduler)"
	insteadPreemptFS  = "the fair scheduler's preemption (this ResourceManager runs the capacity scheduler)"
)

// siteReport classifies yarn-site.xml's properties that concern what is
// built here: the reservation-system and ACL keys (read), the preemption
// keys (read by package preempt, or not for this scheduler), the fair
// scheduler's keys (set in Go), and misspelt reservation-system keys. A
// yarn-site.xml holds hundreds of keys of other daemons; the rest are
// left out rather than bury those.
func siteReport(props map[string]string, kind string) queue.ConfigReport {
	var rep queue.ConfigReport
	for k, v := range props {
		note := queue.ConfigNote{Key: k, Value: v}
		_, isRS := queue.ReservationSystemKeys.Lookup(k)
		switch {
		case isRS:
			note.Kind = queue.NoteRead
		case k == keyMonitorEnable || k == keyMonitorPolicies:
			note.Kind = queue.NoteRead
			if kind == kindFair {
				note.Kind, note.Instead = queue.NoteNotModelled, insteadPreemptCS
			}
		case strings.HasPrefix(k, preempt.MonitorPrefix):
			note.Kind, note.Instead = queue.NoteElsewhere, "package preempt (ParseProportionalProperties)"
			if kind == kindFair {
				note.Kind, note.Instead = queue.NoteNotModelled, insteadPreemptCS
			}
		case slices.Contains(fairPreemptKeys, k):
			note.Kind, note.Instead = queue.NoteElsewhere, "package preempt (ParseFairConfig)"
			if kind == kindCapacity {
				note.Kind, note.Instead = queue.NoteNotModelled, insteadPreemptFS
			}
		case strings.HasPrefix(k, "yarn.scheduler.fair.") && kind == kindFair:
			note.Kind, note.Instead = queue.NoteNotModelled, insteadFairConfig
		case strings.HasPrefix(k, queue.ReservationSystemPrefix):
			note.Kind = queue.NoteUnknown
			note.Suggestion, _ = queue.Closest(k, queue.ReservationSystemKeys.Literals(), queue.SuggestLimit(k))
		default:
			continue
		}
		rep.Add(note)
	}
	rep.Sort()
	return rep
}
