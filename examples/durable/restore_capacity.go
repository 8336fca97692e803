package durable

import (
	"bufio"
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/preempt"
)

// TODO(issue 11): capacity.RestoreScheduler and preempt.RestoreProportional
// arrive with the snapcap branch; until then a capacity Cluster snapshots
// in history mode and never reaches these.

func restoreCapacity(*bufio.Reader, *Cluster) (*capacity.Scheduler, error) {
	return nil, fmt.Errorf("%w: this build restores no capacity scheduler snapshot", berth.ErrUnsupportedVersion)
}

func restoreProportional(*bufio.Reader, *Cluster) (*preempt.Proportional, error) {
	return nil, fmt.Errorf("%w: this build restores no proportional policy snapshot", berth.ErrUnsupportedVersion)
}
