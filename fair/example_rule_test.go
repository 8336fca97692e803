package fair_test

import (
	"fmt"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
	"github.com/berthsched/berth/queue"
)

// ByTag is a host's placement rule: an application tagged "queue:NAME"
// goes to root.NAME; other applications pass to the next rule.
type ByTag struct{}

func (ByTag) Name() string { return "tag" }

func (ByTag) Place(req fair.PlacementRequest, _ fair.QueueLookup) (fair.RuleAnswer, error) {
	for _, t := range req.Tags {
		if name, ok := strings.CutPrefix(t, "queue:"); ok {
			return fair.RuleAnswer{Verdict: fair.PlaceIn, Queue: "root." + name, Create: true}, nil
		}
	}
	return fair.RuleAnswer{Verdict: fair.Pass}, nil
}

// The allocation file names the host's rule; the host registers it in the
// registry it hands the parser.
func ExampleRule() {
	rules := &queue.Registry[fair.Rule]{Kind: "placement rule"}
	if err := rules.Register("tag", ByTag{}); err != nil {
		fmt.Println(err)
		return
	}
	af, err := fair.ParseAllocationFile([]byte(`<allocations>
  <queue name="batch"/><queue name="etl"/>
  <queuePlacementPolicy>
    <rule name="tag" create="false"/>
    <rule name="default" queue="batch"/>
  </queuePlacementPolicy>
</allocations>`), fair.ParseOptions{Rules: rules})
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := fair.DefaultConfig()
	cfg.Allocation = af
	cfg.Clock = berth.NewManualClock(0)
	s, err := fair.New(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, app := range []fair.AppSpec{
		{ID: "a1", User: "alice", Tags: []string{"queue:etl"}},
		{ID: "a2", User: "alice"},
		{ID: "a3", User: "alice", Tags: []string{"queue:adhoc"}}, // not configured, create="false"
	} {
		q, err := s.SubmitApp(app)
		fmt.Println(app.ID, q, err)
	}
	// Output:
	// a1 root.etl <nil>
	// a2 root.batch <nil>
	// a3 root.batch <nil>
}
