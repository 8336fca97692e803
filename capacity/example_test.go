package capacity_test

import (
	"fmt"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
)

// A two-queue cluster where both applications ask for more than fits:
// each pass gives the next container to the queue with the lowest used
// capacity (used over guarantee), so the 16 GB split 12:4 as configured.
func Example() {
	cfg := capacity.DefaultConfig()
	cfg.Root.Children = []capacity.QueueConfig{
		capacity.Queue("prod", 75),
		capacity.Queue("dev", 25),
	}
	cfg.MaxOffSwitchAssignments = 8 // fill a node per heartbeat
	clock := berth.NewManualClock(0)
	cfg.Clock = clock
	s, err := capacity.New(cfg)
	if err != nil {
		panic(err)
	}
	for _, id := range []string{"n1", "n2"} {
		if err := s.AddNode(capacity.NodeSpec{ID: id, Rack: "/r1", Capability: berth.New(8192, 8)}); err != nil {
			panic(err)
		}
	}
	for _, app := range []struct{ id, queue string }{{"etl", "prod"}, {"adhoc", "dev"}} {
		if _, err := s.SubmitApp(capacity.AppSpec{ID: app.id, Queue: app.queue, User: app.id}); err != nil {
			panic(err)
		}
		ask := capacity.Ask{Priority: 1, ResourceName: capacity.AnyResource, Capability: berth.New(1024, 1), Count: 16}
		if _, err := s.Allocate(app.id, []capacity.Ask{ask}, nil); err != nil {
			panic(err)
		}
	}
	for _, id := range []string{"n1", "n2"} {
		clock.Advance(1000)
		al, err := s.Heartbeat(id, nil)
		if err != nil {
			panic(err)
		}
		perQueue := map[string]int{}
		for _, a := range al {
			perQueue[a.Queue]++
		}
		fmt.Printf("%s: prod %d, dev %d\n", id, perQueue["root.prod"], perQueue["root.dev"])
	}
	// Output:
	// n1: prod 6, dev 2
	// n2: prod 6, dev 2
}

// Reading a capacity-scheduler.xml with its report: a queue mapping is
// applied, lazy preemption is not modelled, and a misspelt key is caught.
func ExampleParseXMLReport() {
	const doc = `<configuration>
  <property><name>yarn.scheduler.capacity.root.queues</name><value>default,users</value></property>
  <property><name>yarn.scheduler.capacity.root.default.capacity</name><value>40</value></property>
  <property><name>yarn.scheduler.capacity.root.users.capacity</name><value>60</value></property>
  <property><name>yarn.scheduler.capacity.root.users.queues</name><value>alice</value></property>
  <property><name>yarn.scheduler.capacity.root.users.alice.capacity</name><value>100</value></property>
  <property><name>yarn.scheduler.capacity.queue-mappings</name><value>u:%user:root.users.%user</value></property>
  <property><name>yarn.scheduler.capacity.lazy-preemption-enabled</name><value>true</value></property>
  <property><name>yarn.scheduler.capacity.root.default.user-limit-factr</name><value>2</value></property>
</configuration>`
	cfg, report, err := capacity.ParseXMLReport(strings.NewReader(doc), capacity.XMLOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(report)
	cfg.Clock = berth.NewManualClock(0)
	s, _ := capacity.New(cfg)
	for _, user := range []string{"alice", "bob"} {
		q, _ := s.SubmitApp(capacity.AppSpec{ID: user + "-app", User: user, Queue: "default"})
		fmt.Println(user, "->", q)
	}
	_, _, err = capacity.ParseXMLReport(strings.NewReader(doc), capacity.XMLOptions{Strict: true})
	fmt.Println(err)
	// Output:
	// not modelled: yarn.scheduler.capacity.lazy-preemption-enabled: preemption kills at once (no killable containers)
	// unknown key yarn.scheduler.capacity.root.default.user-limit-factr (did you mean yarn.scheduler.capacity.root.default.user-limit-factor?)
	// alice -> root.users.alice
	// bob -> root.default
	// capacity-scheduler.xml: strict mode refuses not modelled: yarn.scheduler.capacity.lazy-preemption-enabled: preemption kills at once (no killable containers) (and 1 more)
}
