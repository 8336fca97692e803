package preempt_test

import (
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/preempt"
)

// The fair scheduler satisfies the preemptor's interface as it is.
var _ preempt.FairScheduler = (*fair.Scheduler)(nil)

// The built-in identification is a FairVictimSelector like any other.
var _ preempt.FairVictimSelector = (*preempt.FairYARNSelector)(nil)
