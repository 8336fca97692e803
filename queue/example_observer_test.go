package queue_test

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/queue"
)

// promMetrics is a host's metrics exporter built on the scheduler's
// events: counters and gauges per queue, written in Prometheus' text
// exposition format. The library imports no metrics package; the host
// owns the metric names and the format (or hands the numbers to its own
// client library).
type promMetrics struct {
	queue.NopObserver // ignore queue events; new event families too
	allocated         map[string]int
	ended             map[[2]string]int // queue, status
	running           map[string]int
	apps              map[[2]string]int // queue, event
}

func newPromMetrics() *promMetrics {
	return &promMetrics{allocated: map[string]int{}, ended: map[[2]string]int{},
		running: map[string]int{}, apps: map[[2]string]int{}}
}

// ObserveContainer runs under the scheduler's lock: it only counts.
func (m *promMetrics) ObserveContainer(e queue.ContainerEvent) {
	q := e.Container.Queue
	switch e.Kind {
	case queue.ContainerAllocated:
		m.allocated[q]++
		m.running[q]++
	case queue.ContainerEnded:
		m.ended[[2]string{q, strings.ToLower(e.Status.String())}]++
		m.running[q]--
	}
}

func (m *promMetrics) ObserveApp(e queue.AppEvent) {
	m.apps[[2]string{e.Queue, e.Kind.String()}]++
}

// Write writes the metrics, sorted, as Prometheus text.
func (m *promMetrics) Write(w io.Writer) {
	family := func(name, typ, help string, lines []string) {
		slices.Sort(lines)
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
		for _, l := range lines {
			fmt.Fprintln(w, name+l)
		}
	}
	var lines []string
	for q, n := range m.allocated {
		lines = append(lines, fmt.Sprintf(`{queue=%q} %d`, q, n))
	}
	family("berth_containers_allocated_total", "counter", "Containers allocated.", lines)
	lines = lines[:0]
	for k, n := range m.ended {
		lines = append(lines, fmt.Sprintf(`{queue=%q,status=%q} %d`, k[0], k[1], n))
	}
	family("berth_containers_ended_total", "counter", "Containers ended, by exit status.", lines)
	lines = lines[:0]
	for q, n := range m.running {
		lines = append(lines, fmt.Sprintf(`{queue=%q} %d`, q, n))
	}
	family("berth_containers_running", "gauge", "Live containers.", lines)
	lines = lines[:0]
	for k, n := range m.apps {
		lines = append(lines, fmt.Sprintf(`{queue=%q,event=%q} %d`, k[0], k[1], n))
	}
	family("berth_applications_total", "counter", "Application lifecycle events.", lines)
}

// A host exports the scheduler's decisions as Prometheus metrics: an
// observer counts the events, the host's HTTP handler (here: stdout)
// writes them in the text exposition format.
func ExampleObserver_prometheus() {
	cfg := capacity.DefaultConfig()
	cfg.Root.Children = []capacity.QueueConfig{capacity.Queue("a", 50), capacity.Queue("b", 50)}
	cfg.MaxOffSwitchAssignments = 8
	cfg.Clock = berth.NewManualClock(0)
	s, err := capacity.New(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := newPromMetrics()
	s.SetObserver(m)
	if err := s.AddNode(capacity.NodeSpec{ID: "n1", Rack: "/r1", Capability: berth.New(8192, 8)}); err != nil {
		fmt.Println(err)
		return
	}
	ask := func(app string, n int) {
		if _, err := s.Allocate(app, []queue.Ask{{Priority: 1, ResourceName: queue.AnyResource, Capability: berth.New(1024, 1), Count: n}}, nil); err != nil {
			fmt.Println(err)
		}
	}
	for _, app := range [][2]string{{"app1", "a"}, {"app2", "b"}} {
		if _, err := s.SubmitApp(queue.AppSpec{ID: app[0], Queue: app[1], User: "alice"}); err != nil {
			fmt.Println(err)
			return
		}
	}
	ask("app1", 3)
	ask("app2", 2)
	al, _ := s.Heartbeat("n1", nil)
	for _, c := range al { // one of each application's containers ends
		if c.App == "app1" {
			_, _ = s.Heartbeat("n1", []queue.ContainerID{c.ID}) // completed
			break
		}
	}
	for _, c := range al {
		if c.App == "app2" {
			_, _ = s.PreemptContainer(c.ID) // preempted
			break
		}
	}
	_, _ = s.FinishApp("app2") // its other container is killed
	m.Write(os.Stdout)
	// Output:
	// # HELP berth_containers_allocated_total Containers allocated.
	// # TYPE berth_containers_allocated_total counter
	// berth_containers_allocated_total{queue="root.a"} 3
	// berth_containers_allocated_total{queue="root.b"} 2
	// # HELP berth_containers_ended_total Containers ended, by exit status.
	// # TYPE berth_containers_ended_total counter
	// berth_containers_ended_total{queue="root.a",status="completed"} 1
	// berth_containers_ended_total{queue="root.b",status="killed"} 1
	// berth_containers_ended_total{queue="root.b",status="preempted"} 1
	// # HELP berth_containers_running Live containers.
	// # TYPE berth_containers_running gauge
	// berth_containers_running{queue="root.a"} 2
	// berth_containers_running{queue="root.b"} 0
	// # HELP berth_applications_total Application lifecycle events.
	// # TYPE berth_applications_total counter
	// berth_applications_total{queue="root.a",event="activated"} 1
	// berth_applications_total{queue="root.a",event="added"} 1
	// berth_applications_total{queue="root.b",event="activated"} 1
	// berth_applications_total{queue="root.b",event="added"} 1
	// berth_applications_total{queue="root.b",event="finished"} 1
}
