package queue_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// event is one event of any family, fed to an observer.
type event func(queue.Observer)

func cEv(kind queue.ContainerEventKind, id queue.ContainerID, app, q string) event {
	return func(o queue.Observer) {
		o.ObserveContainer(queue.ContainerEvent{Kind: kind, Container: queue.Container{ID: id, App: app, Queue: q}, Status: queue.Completed})
	}
}

func aEv(kind queue.AppEventKind, app, q, from string, active bool) event {
	return func(o queue.Observer) {
		o.ObserveApp(queue.AppEvent{Kind: kind, App: app, Queue: q, From: from, Active: active})
	}
}

func qEv(kind queue.QueueEventKind, q string, ent, prev float32) event {
	return func(o queue.Observer) {
		o.ObserveQueue(queue.QueueEvent{Kind: kind, Queue: q,
			Entitlement: queue.Entitlement{Capacity: ent, MaxCapacity: 1}, Previous: queue.Entitlement{Capacity: prev, MaxCapacity: 1}})
	}
}

// consistent is a stream every rule accepts.
var consistent = []event{
	aEv(queue.AppAdded, "a1", "root.a", "", false),
	aEv(queue.AppActivated, "a1", "root.a", "", true),
	cEv(queue.ContainerAllocated, 1, "a1", "root.a"),
	cEv(queue.ContainerAllocated, 2, "a1", "root.a"),
	qEv(queue.QueueAdded, "root.b", 0, 0),
	aEv(queue.AppMoved, "a1", "root.b", "root.a", true),
	cEv(queue.ContainerEnded, 1, "a1", "root.b"),
	qEv(queue.QueueEntitlementChanged, "root.b", 0.5, 0),
	qEv(queue.QueueEntitlementChanged, "root.b", 0.25, 0.5),
	qEv(queue.QueueReconfigured, "root.a", 0, 0),
}

func TestEventStateAgrees(t *testing.T) {
	s := queue.NewEventState([]string{"root", "root.a"})
	for _, e := range consistent {
		e(s)
		require.NoError(t, s.Err())
	}
	assert.Equal(t, len(consistent), s.Events())
	assert.Equal(t, []string{"root", "root.a", "root.b"}, s.Queues())
	assert.Equal(t, 1, s.NumContainers())
	c, ok := s.Container(2)
	require.True(t, ok)
	assert.Equal(t, "root.b", c.Queue, "a container follows its application's move")
	_, ok = s.Container(1)
	assert.False(t, ok)
	a, ok := s.App("a1")
	require.True(t, ok)
	assert.Equal(t, queue.AppState{Queue: "root.b", Active: true, Containers: 1}, a)
	ent, ok := s.Entitlement("root.b")
	require.True(t, ok)
	assert.Equal(t, queue.Entitlement{Capacity: 0.25, MaxCapacity: 1}, ent)

	cEv(queue.ContainerEnded, 2, "a1", "root.b")(s)
	aEv(queue.AppFinished, "a1", "root.b", "", false)(s)
	qEv(queue.QueueRemoved, "root.b", 0, 0)(s)
	require.NoError(t, s.Err())
	assert.Zero(t, s.NumApps())
	_, ok = s.Entitlement("root.b")
	assert.False(t, ok, "a removed queue's entitlement is forgotten")
}

func TestEventStateContradictions(t *testing.T) {
	cases := []struct {
		name string
		last event
	}{
		{"container of an unknown application", cEv(queue.ContainerAllocated, 9, "nope", "root.b")},
		{"container allocated twice", cEv(queue.ContainerAllocated, 2, "a1", "root.b")},
		{"container charged to another queue", cEv(queue.ContainerAllocated, 9, "a1", "root.a")},
		{"container ended twice", cEv(queue.ContainerEnded, 1, "a1", "root.b")},
		{"container ended for another application", cEv(queue.ContainerEnded, 2, "a2", "root.b")},
		{"unknown container kind", cEv(9, 3, "a1", "root.b")},
		{"application in an unknown queue", aEv(queue.AppAdded, "a2", "root.x", "", false)},
		{"application added twice", aEv(queue.AppAdded, "a1", "root.b", "", false)},
		{"application added active", aEv(queue.AppAdded, "a3", "root.a", "", true)},
		{"unknown application", aEv(queue.AppActivated, "a9", "root.a", "", true)},
		{"activated twice", aEv(queue.AppActivated, "a1", "root.b", "", true)},
		{"activated elsewhere", aEv(queue.AppActivated, "a2", "root.b", "", true)},
		{"activated but not active", aEv(queue.AppActivated, "a2", "root.a", "", false)},
		{"moved from the wrong queue", aEv(queue.AppMoved, "a1", "root.a", "root", true)},
		{"removed with live containers", aEv(queue.AppKilled, "a1", "root.b", "", false)},
		{"unknown application kind", aEv(9, "a1", "root.b", "", false)},
		{"unknown queue", qEv(queue.QueueRemoved, "root.x", 0, 0)},
		{"queue added twice", qEv(queue.QueueAdded, "root.a", 0, 0)},
		{"previous entitlement is not the last", qEv(queue.QueueEntitlementChanged, "root.b", 0.75, 0.5)},
		{"entitlement unchanged", qEv(queue.QueueEntitlementChanged, "root.a", 0.5, 0.5)},
		{"unknown queue kind", qEv(9, "root.a", 0, 0)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := queue.NewEventState([]string{"root", "root.a"})
			for _, e := range consistent {
				e(s)
			}
			aEv(queue.AppAdded, "a2", "root.a", "", false)(s)
			require.NoError(t, s.Err())
			before := s.NumContainers()
			c.last(s)
			err := s.Err()
			require.Error(t, err)
			assert.ErrorIs(t, err, berth.ErrInvalidArgument)
			var qe *queue.Error
			require.True(t, errors.As(err, &qe))
			assert.Contains(t, qe.Field, "event")
			// later events are ignored: the mirror no longer describes the scheduler
			cEv(queue.ContainerEnded, 2, "a1", "root.b")(s)
			assert.Equal(t, before, s.NumContainers())
			assert.Equal(t, err, s.Err(), "the first contradiction is kept")
		})
	}
}

func TestEventLogLines(t *testing.T) {
	var l queue.EventLog
	for _, e := range consistent[:9] {
		e(&l)
	}
	assert.Equal(t, []string{
		"app added a1 root.a", "app activated a1 root.a",
		"container allocated 1 a1 root.a", "container allocated 2 a1 root.a",
		"queue added root.b", "app moved a1 root.b from root.a",
		"container ended 1 a1 root.b COMPLETED",
		"queue entitlement-changed root.b 0.5/1 was 0/1",
		"queue entitlement-changed root.b 0.25/1 was 0.5/1",
	}, l.Lines)
}

// A host traces a scheduler's decisions as lines with an EventLog, and
// mirrors its state from the events alone with an EventState.
func ExampleEventState() {
	cfg := capacity.DefaultConfig()
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("a", 50), capacity.Queue("b", 50)}
	cfg.Clock = berth.NewManualClock(0)
	s, err := capacity.New(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	var log queue.EventLog
	mirror := queue.NewEventState([]string{"root", "root.a", "root.b"})
	s.SetObserver(both{&log, mirror})
	_ = s.AddNode(capacity.NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(8192, 8)})
	_, _ = s.SubmitApp(queue.AppSpec{ID: "app1", Queue: "a", User: "alice"})
	_, _ = s.Allocate("app1", []queue.Ask{{Priority: 1, ResourceName: queue.AnyResource, Capability: berth.New(1024, 1), Count: 2}}, nil)
	al, _ := s.Heartbeat("n1", nil)                         // one off-switch container a heartbeat
	_, _ = s.Heartbeat("n1", []queue.ContainerID{al[0].ID}) // it completes; the next is allocated
	for _, l := range log.Lines {
		fmt.Println(l)
	}
	app, _ := mirror.App("app1")
	fmt.Printf("app1 in %s, active %v, %d live containers; consistent: %v\n", app.Queue, app.Active, app.Containers, mirror.Err() == nil)
	// Output:
	// app added app1 root.a
	// app activated app1 root.a
	// container allocated 1 app1 root.a
	// container ended 1 app1 root.a COMPLETED
	// container allocated 2 app1 root.a
	// app1 in root.a, active true, 1 live containers; consistent: true
}

// both sends every event to two observers.
type both [2]queue.Observer

func (b both) ObserveContainer(e queue.ContainerEvent) {
	b[0].ObserveContainer(e)
	b[1].ObserveContainer(e)
}

func (b both) ObserveApp(e queue.AppEvent) {
	b[0].ObserveApp(e)
	b[1].ObserveApp(e)
}

func (b both) ObserveQueue(e queue.QueueEvent) {
	b[0].ObserveQueue(e)
	b[1].ObserveQueue(e)
}
