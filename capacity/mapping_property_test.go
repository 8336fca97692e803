package capacity

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A small vocabulary, so that users, groups, applications and queues
// share names (and short queue names clash) often.
var mapNames = []string{"a", "b", "c", "eng", "ops", "etl", "users", "default"}

func randTree(r *rand.Rand, name string, depth int) QueueConfig {
	q := Queue(name, 0)
	if depth == 0 || r.IntN(3) == 0 {
		return q
	}
	n := 1 + r.IntN(3)
	used := map[string]bool{}
	for len(q.Children) < n {
		c := mapNames[r.IntN(len(mapNames))]
		if used[c] {
			continue
		}
		used[c] = true
		q.Children = append(q.Children, randTree(r, c, depth-1))
	}
	for i := range q.Children {
		share := float32(100 / n)
		if i == 0 {
			share += float32(100 - (100/n)*n)
		}
		q.Children[i].Capacity = queue.Percent(share)
	}
	return q
}

func randTarget(r *rand.Rand) string {
	leafs := append([]string{MapCurrentUser, MapPrimaryGroup, MapSecondaryGroup}, mapNames...)
	parents := append([]string{"", "", "root", MapPrimaryGroup, MapSecondaryGroup, "root.users"}, mapNames...)
	leaf := leafs[r.IntN(len(leafs))]
	if p := parents[r.IntN(len(parents))]; p != "" {
		return p + "." + leaf
	}
	return leaf
}

func randPlacement(r *rand.Rand) Placement {
	var pl Placement
	var parts []string
	for range r.IntN(5) {
		kind := "u"
		src := MapCurrentUser
		if r.IntN(2) == 0 {
			src = mapNames[r.IntN(len(mapNames))]
		}
		if r.IntN(3) == 0 {
			kind, src = "g", mapNames[r.IntN(len(mapNames))]
		}
		parts = append(parts, kind+":"+src+":"+randTarget(r))
	}
	pl.Mappings, _ = ParseQueueMappings(strings.Join(parts, ","))
	var apps []string
	for range r.IntN(3) {
		src := MapApplication
		if r.IntN(2) == 0 {
			src = mapNames[r.IntN(len(mapNames))]
		}
		q := mapNames[r.IntN(len(mapNames))]
		if r.IntN(2) == 0 {
			q = MapApplication
		}
		apps = append(apps, src+":"+q)
	}
	pl.AppMappings, _ = ParseAppNameMappings(strings.Join(apps, ","))
	switch r.IntN(3) {
	case 1:
		pl.Rules = []PlacementRuleKind{RuleAppName, RuleUserGroup}
	case 2:
		pl.Rules = []PlacementRuleKind{RuleUserGroup, RuleAppName}
	}
	pl.Override = r.IntN(2) == 0
	return pl
}

type placeCase struct {
	spec   AppSpec
	groups []string
}

func randPlaceCase(r *rand.Rand, i int) placeCase {
	var groups []string
	for range r.IntN(4) {
		groups = append(groups, mapNames[r.IntN(len(mapNames))])
	}
	req := append([]string{"", "default", "root.default"}, mapNames...)
	return placeCase{
		spec: AppSpec{ID: fmt.Sprintf("p%d", i), User: mapNames[r.IntN(len(mapNames))],
			Name: mapNames[r.IntN(len(mapNames))], Queue: req[r.IntN(len(req))]},
		groups: groups,
	}
}

type placeOutcome struct {
	queue string
	err   string
}

func outcome(q string, err error) placeOutcome {
	if err != nil {
		return placeOutcome{err: err.Error()}
	}
	return placeOutcome{queue: q}
}

// Placement is a pure function of (user, groups, requested queue,
// application name, configuration): the same inputs give the same answer
// on a fresh scheduler, on one with a history of submissions, nodes and
// reconfigurations, in any order of calls, whether the groups come with
// the submission or from Config.Groups, and from the configuration alone
// (without the live tree).
func TestPlacementIsPure(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 3))
	valid, mapped, rejected := 0, 0, 0
	iters := 300
	if testing.Short() || raceEnabled {
		iters = 80
	}
	for iter := 0; iter < iters; iter++ {
		cfg := DefaultConfig()
		cfg.Root = randTree(r, "root", 3)
		cfg.Root.Capacity = queue.Percent(100)
		cfg.Placement = randPlacement(r)
		// Keep the mappings the tree accepts (the others are refused at
		// start-up, tested elsewhere).
		ix := newConfigIndex(cfg.Root)
		keep := func(ms []QueueMapping) []QueueMapping {
			var out []QueueMapping
			for _, m := range ms {
				if m.validate(ix) == nil {
					out = append(out, m)
				}
			}
			return out
		}
		cfg.Placement.Mappings, cfg.Placement.AppMappings = keep(cfg.Placement.Mappings), keep(cfg.Placement.AppMappings)
		cfg.Clock = berth.NewManualClock(0)
		fresh, err := New(cfg)
		if err != nil {
			continue // the random tree or mappings are invalid: YARN refuses them too
		}
		valid++
		cases := make([]placeCase, 40)
		for i := range cases {
			cases[i] = randPlaceCase(r, i)
		}
		want := make([]placeOutcome, len(cases))
		for i, c := range cases {
			spec := c.spec
			spec.Groups = c.groups
			want[i] = outcome(fresh.Place(spec))
			switch {
			case want[i].err != "":
				rejected++
			case want[i].queue != spec.Queue:
				mapped++
			}
			// Repeatable.
			require.Equal(t, want[i], outcome(fresh.Place(spec)))
			// From the configuration alone.
			groups := c.groups
			in := placeInput{user: spec.User, app: spec.Name, requested: spec.Queue, groups: func() []string { return groups }}
			res, ok, err := cfg.Placement.place(in, newConfigIndex(cfg.Root))
			got := placeOutcome{queue: spec.Queue}
			if err != nil {
				got = placeOutcome{err: "rejected"}
			} else if ok {
				got.queue = res.queue
			}
			if want[i].err != "" {
				assert.Equal(t, "rejected", got.err, "%+v", c)
			} else {
				assert.Equal(t, want[i], got, "%+v", c)
			}
		}

		// A scheduler with a history, groups from Config.Groups, asked in
		// reverse order.
		static := queue.StaticGroups{}
		cfg.Clock = berth.NewManualClock(0)
		busy, err := New(cfg)
		require.NoError(t, err)
		require.NoError(t, busy.AddNode(NodeSpec{ID: "n1", Rack: "/r", Capability: berth.New(8192, 8)}))
		for i, c := range cases {
			if _, err := busy.SubmitApp(AppSpec{ID: fmt.Sprintf("h%d", i), User: c.spec.User, Groups: c.groups, Name: c.spec.Name, Queue: c.spec.Queue}); err == nil && i%2 == 0 {
				_, _ = busy.FinishApp(fmt.Sprintf("h%d", i))
			}
		}
		_, err = busy.Reconfigure(cfg)
		require.NoError(t, err)
		for i := len(cases) - 1; i >= 0; i-- {
			c := cases[i]
			static[c.spec.User] = c.groups
			bcfg := busy.Config()
			bcfg.Groups = static
			_, err := busy.Reconfigure(bcfg)
			require.NoError(t, err)
			assert.Equal(t, want[i], outcome(busy.Place(c.spec)), "%+v", c)
		}
	}
	// Half the random configurations are valid, and the stream exercises
	// both answers of the mappings.
	require.Greater(t, valid, iters/2, "too few valid random configurations")
	require.Greater(t, mapped, 500*iters/300)
	require.Greater(t, rejected, 50*iters/300)
}

// Mapping strings never panic and what parses prints back to a value that
// parses to the same mappings.
func FuzzParseQueueMappings(f *testing.F) {
	for _, s := range []string{"u:%user:%user", "g:eng:root.a.b, u:bob:%primary_group.%user", "u::", ":::", "u:a:.", "a:b", "%application:%application"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, parse := range []func(string) ([]QueueMapping, error){ParseQueueMappings, ParseAppNameMappings} {
			ms, err := parse(s)
			if err != nil {
				require.ErrorIs(t, err, berth.ErrInvalidArgument)
				continue
			}
			var parts []string
			for _, m := range ms {
				require.NotEmpty(t, m.Source)
				require.NotEmpty(t, m.Queue)
				parts = append(parts, m.String())
			}
			again, err := parse(strings.Join(parts, ","))
			require.NoError(t, err)
			require.Equal(t, ms, again)
		}
		_, _ = ParsePlacementRules(s)
	})
}
