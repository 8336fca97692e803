package queue

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// activitySink is an ActivityObserver that keeps what it gets.
type activitySink struct {
	NopObserver
	got []Activity
}

func (s *activitySink) ObserveActivity(a Activity) { s.got = append(s.got, a) }

// beat records one heartbeat of node at now: what the walk would report.
func beat(l *ActivityLog, node string, now berth.Time, walk func(l *ActivityLog), resolve func(string) (string, Reason)) bool {
	if !l.Begin(node, now) {
		return false
	}
	walk(l)
	l.End(resolve)
	return true
}

func TestActivityLogRecordsNothingUnlessAsked(t *testing.T) {
	var l ActivityLog
	assert.False(t, l.Begin("n1", 0), "the zero value records nothing")
	l.RecordNode("n1")
	assert.False(t, l.Begin("n2", 0), "another node's heartbeat is not recorded")
	assert.Nil(t, l.NodeRecord("n2"))
}

func TestActivityLogNodeRecordIsOneShot(t *testing.T) {
	tests := []struct {
		name, select_, node string
	}{
		{"named node", "n1", "n1"},
		{"any node", "", "n7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l ActivityLog
			l.RecordNode(tt.select_)
			walk := func(l *ActivityLog) {
				l.Skip("root.a", ReasonQueueLimit)
				l.PassOver(1, berth.New(1024, 1), ReasonLocalityDelay)
				l.Record(Activity{App: "app1", Queue: "root.b", Result: Result{Outcome: Allocated}, Container: 9})
			}
			require.True(t, beat(&l, tt.node, 5, walk, nil))
			got := l.NodeRecord(tt.node)
			require.Len(t, got, 2)
			assert.Equal(t, Activity{Time: 5, Node: tt.node, Queue: "root.a", Result: Result{Skipped, ReasonQueueLimit}}, got[0])
			assert.Equal(t, []RequestActivity{{Priority: 1, Resource: berth.New(1024, 1), Reason: ReasonLocalityDelay}}, got[1].Requests)
			assert.Equal(t, got, l.NodeRecord(""), "the last heartbeat recorded")
			assert.False(t, l.Begin(tt.node, 6), "one heartbeat only")
			got[1].Requests[0].Priority = 99
			assert.EqualValues(t, 1, l.NodeRecord(tt.node)[1].Requests[0].Priority, "records are copies")
			l.ForgetNode(tt.node)
			assert.Nil(t, l.NodeRecord(tt.node))
		})
	}
}

// A labelled walk's activities carry its partition; a walk over
// candidates names the candidate a result names, else no node, and is
// filed under the node that started it.
func TestActivityLogPartitionAndCandidates(t *testing.T) {
	var l ActivityLog
	l.RecordNode("")
	l.RecordApp("app2", 4)
	require.True(t, l.BeginOn("g1", "gpu", 3))
	l.Skip("root.a", ReasonPartition)
	l.End(func(string) (string, Reason) { return "root.b", ReasonPartition })
	got := l.NodeRecord("g1")
	require.Len(t, got, 1)
	first := got[0]
	assert.Equal(t, Activity{Time: 3, Node: "g1", Partition: "gpu", Queue: "root.a", Result: Result{Skipped, ReasonPartition}}, first)
	assert.Equal(t, []Activity{{Time: 3, Node: "g1", Partition: "gpu", Queue: "root.b", App: "app2", Result: Result{Skipped, ReasonPartition}}},
		l.Attempts("app2", 0), "an application the walk did not reach")

	l.RecordNode("n1")
	require.True(t, l.BeginCandidates("n1", "", 4))
	l.Skip("root.a", ReasonQueueLimit)
	l.Record(Activity{App: "app1", Queue: "root.b", Result: Result{Reason: ReasonNodeFull}})
	l.Record(Activity{Node: "n2", App: "app2", Queue: "root.b", Result: Result{Outcome: Allocated}})
	l.End(nil)
	got = l.NodeRecord("n1")
	require.Len(t, got, 3)
	assert.Equal(t, []string{"", "", "n2"}, []string{got[0].Node, got[1].Node, got[2].Node})
	assert.Equal(t, "t=4 candidates: app1 in root.b SKIPPED: the node has too little free for the request", got[1].String())
	assert.Equal(t, "t=3 node g1 (gpu): root.a SKIPPED: the node's partition is not for this queue or request", first.String())
}

func TestActivityLogUnreachedApplications(t *testing.T) {
	leaf := map[string]string{"a1": "root.p.x", "a2": "root.q", "a3": "root.p.y", "idle": "root.q", "lab": "root.p.x"}
	resolve := func(id string) (string, Reason) {
		switch id {
		case "idle":
			return leaf[id], ReasonNone
		case "lab":
			return leaf[id], ReasonPartition
		}
		return leaf[id], ReasonOrder
	}
	var l ActivityLog
	for id := range leaf {
		l.RecordApp(id, 4)
	}
	beat(&l, "n1", 3, func(l *ActivityLog) {
		l.Skip("root.p", ReasonQueueLimit)
		l.Record(Activity{App: "a2", Queue: "root.q", Result: Result{Outcome: Allocated}})
	}, resolve)
	beat(&l, "n2", 4, func(l *ActivityLog) {
		l.Record(Activity{App: "a2", Queue: "root.q", Result: Result{Outcome: Allocated}})
	}, resolve)
	a1 := l.Attempts("a1", 0)
	require.Len(t, a1, 2)
	assert.Equal(t, Activity{Time: 3, Node: "n1", Queue: "root.p.x", App: "a1", Result: Result{Skipped, ReasonQueueLimit}, Limited: "root.p"}, a1[0])
	assert.Equal(t, Activity{Time: 4, Node: "n2", Queue: "root.p.x", App: "a1", Result: Result{Skipped, ReasonOrder}}, a1[1])
	assert.Len(t, l.Attempts("a2", 0), 2)
	assert.Empty(t, l.Attempts("idle", 0), "an application the walk could not offer a node has no attempt")
	lab := l.Attempts("lab", 0)
	require.Len(t, lab, 2)
	assert.Equal(t, Activity{Time: 3, Node: "n1", Queue: "root.p.x", App: "lab", Result: Result{Skipped, ReasonPartition}}, lab[0],
		"the application's own reason comes before a queue skipped above it")
}

func TestActivityLogEveryApplication(t *testing.T) {
	var l ActivityLog
	sink := &activitySink{}
	l.SetObserver(sink)
	l.RecordApp("", 2)
	l.RecordApp("named", 3)
	for i := range 5 {
		beat(&l, "n1", berth.Time(i), func(l *ActivityLog) {
			l.Skip("root.x", ReasonQueueLimit) // not an application's: not kept, but observed
			l.Record(Activity{App: "any", Queue: "root.a"})
			l.Record(Activity{App: "named", Queue: "root.a"})
		}, nil)
	}
	assert.Len(t, l.Attempts("any", 0), 2)
	assert.Len(t, l.Attempts("named", 0), 3)
	assert.Len(t, sink.got, 15, "the observer gets every activity kept, and the queues skipped")
	assert.Equal(t, Activity{Time: 4, Node: "n1", Queue: "root.x", Result: Result{Skipped, ReasonQueueLimit}}, sink.got[12])
	l.RecordApp("", 0)
	assert.Nil(t, l.Attempts("any", 0))
	assert.Len(t, l.Attempts("named", 0), 3, "an application selected by name keeps its own")
	l.ForgetApp("named")
	assert.Nil(t, l.Attempts("named", 0))
	assert.False(t, l.Begin("n1", 9), "nothing selected any more")
}

// The rings keep what a model of every attempt keeps: the last keep.
func TestActivityLogRingsAgainstModel(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 3))
		checkRings(t, r.IntN, 300)
	}
}

// checkRings drives a log with steps operations drawn by draw and checks
// every application's attempts against a model.
func checkRings(t *testing.T, draw func(int) int, steps int) {
	var l ActivityLog
	apps := []string{"a", "b", "c"}
	model := map[string][]berth.Time{}
	keep := map[string]int{}
	for i := range steps {
		id := apps[draw(len(apps))]
		switch draw(4) {
		case 0:
			k := draw(5)
			l.RecordApp(id, k)
			if k == 0 {
				delete(model, id)
			} else if len(model[id]) > k {
				model[id] = model[id][len(model[id])-k:]
			}
			keep[id] = k
		case 1:
			l.ForgetApp(id)
			delete(model, id)
			keep[id] = 0
		default:
			beat(&l, "n", berth.Time(i), func(l *ActivityLog) { l.Record(Activity{App: id}) }, nil)
			if keep[id] > 0 {
				model[id] = append(model[id], berth.Time(i))
				if len(model[id]) > keep[id] {
					model[id] = model[id][1:]
				}
			}
		}
		for _, a := range apps {
			var times []berth.Time
			for _, x := range l.Attempts(a, 0) {
				times = append(times, x.Time)
			}
			require.Equal(t, model[a], times, "step %d, app %s", i, a)
			if n := len(times); n > 1 {
				require.Len(t, l.Attempts(a, n-1), n-1)
			}
		}
	}
}

func FuzzActivityLog(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 2, 2, 1, 0, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		i := 0
		draw := func(n int) int {
			if i >= len(data) {
				return 0
			}
			i++
			return int(data[i-1]) % n
		}
		checkRings(t, draw, len(data)/2)
	})
}

func TestReasonNames(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Reasons() {
		name := r.String()
		assert.NotEmpty(t, r.Text(), "reason %d has a sentence", r)
		assert.False(t, seen[name], "reason names are distinct: %s", name)
		seen[name] = true
	}
	assert.Equal(t, "Reason(200)", Reason(200).String())
	assert.Equal(t, fmt.Sprint(Allocated), "ALLOCATED")
	a := Activity{Time: 1, Node: "n", Queue: "root.a", App: "x", Result: Result{Skipped, ReasonQueueLimit}, Limited: "root"}
	assert.Equal(t, "t=1 node n: x in root.a SKIPPED: the queue is at its maximum (root)", a.String())
}
