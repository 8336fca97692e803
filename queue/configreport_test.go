package queue

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKeyPatterns(t *testing.T) {
	cases := []struct {
		pattern, key string
		want         bool
	}{
		{"capacity", "capacity", true},
		{"capacity", "maximum-capacity", false},
		{"user-settings.*.weight", "user-settings.bob.weight", true},
		{"user-settings.*.weight", "user-settings..weight", false},
		{"user-settings.*.weight", "user-settings.bob.x.weight", false},
		{"leaf-queue-template.**", "leaf-queue-template.capacity", true},
		{"leaf-queue-template.**", "leaf-queue-template.a.b.c", true},
		{"leaf-queue-template.**", "leaf-queue-template", false},
		{"a.b", "a", false},
		{"a", "a.b", false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, KeyRule{Pattern: c.pattern}.Match(c.key), "%s ~ %s", c.pattern, c.key)
	}
	tab := KeyTable{{Pattern: "x.*", Support: KeyNotModelled, Instead: "first"}, {Pattern: "x.y", Instead: "second"}, {Pattern: "z"}}
	r, ok := tab.Lookup("x.y")
	require.True(t, ok)
	assert.Equal(t, "first", r.Instead) // first match wins
	_, ok = tab.Lookup("q")
	assert.False(t, ok)
	assert.Equal(t, []string{"x.y", "z"}, tab.Literals())
}

func TestConfigReport(t *testing.T) {
	var rep ConfigReport
	assert.True(t, rep.Clean())
	assert.NoError(t, rep.Err("f.xml"))
	rep.Add(ConfigNote{Kind: NoteElsewhere, Key: "b", Instead: "package preempt"})
	assert.True(t, rep.Clean())
	assert.NoError(t, rep.Err("f.xml"))
	rep.Add(ConfigNote{Kind: NoteUnknown, Key: "c", Suggestion: "cc"})
	rep.Add(ConfigNote{Kind: NoteNotModelled, Key: "a", Instead: "nothing"})
	rep.Sort()
	assert.Equal(t, "not modelled: a: nothing\nb: read by package preempt\nunknown key c (did you mean cc?)\n", rep.String())
	assert.Len(t, rep.Of(NoteUnknown), 1)
	err := rep.Err("f.xml")
	require.Error(t, err)
	assert.True(t, errors.Is(err, berth.ErrInvalidArgument))
	var re *ConfigReportError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "f.xml: strict mode refuses not modelled: a: nothing (and 1 more)", err.Error())
}

// refDistance is the textbook recursion with memoization.
func refDistance(a, b string) int {
	memo := map[[2]int]int{}
	var d func(i, j int) int
	d = func(i, j int) int {
		if i == 0 {
			return j
		}
		if j == 0 {
			return i
		}
		k := [2]int{i, j}
		if v, ok := memo[k]; ok {
			return v
		}
		cost := 1
		if a[i-1] == b[j-1] {
			cost = 0
		}
		v := min(d(i-1, j)+1, d(i, j-1)+1, d(i-1, j-1)+cost)
		memo[k] = v
		return v
	}
	return d(len(a), len(b))
}

func randWord(r *rand.Rand) string {
	b := make([]byte, r.IntN(9))
	for i := range b {
		b[i] = "abc."[r.IntN(4)]
	}
	return string(b)
}

// EditDistance agrees with the reference, and with a limit it is exact up
// to the limit and above it beyond.
func TestEditDistanceProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		a, b := randWord(r), randWord(r)
		want := refDistance(a, b)
		require.Equal(t, want, EditDistance(a, b, -1), "%q %q", a, b)
		limit := r.IntN(6)
		got := EditDistance(a, b, limit)
		if want <= limit {
			require.Equal(t, want, got, "%q %q limit %d", a, b, limit)
		} else {
			require.Greater(t, got, limit, "%q %q limit %d", a, b, limit)
		}
	}
	best, d := Closest("capacty", []string{"queues", "capacity", "maximum-capacity"}, 2)
	assert.Equal(t, "capacity", best)
	assert.Equal(t, 1, d)
	best, d = Closest("zzzzzz", []string{"queues"}, 2)
	assert.Equal(t, "", best)
	assert.Equal(t, -1, d)
}

func FuzzEditDistance(f *testing.F) {
	f.Add("capacity", "capacty", 2)
	f.Add("", "abc", -1)
	f.Add("kitten", "sitting", 1)
	f.Fuzz(func(t *testing.T, a, b string, limit int) {
		if len(a) > 64 || len(b) > 64 {
			return
		}
		full := EditDistance(a, b, -1)
		require.Equal(t, full, EditDistance(b, a, -1))
		require.LessOrEqual(t, full, max(len(a), len(b)))
		require.GreaterOrEqual(t, full, abs(len(a)-len(b)))
		if limit >= 0 {
			got := EditDistance(a, b, limit)
			if full <= limit {
				require.Equal(t, full, got)
			} else {
				require.Greater(t, got, limit)
			}
		}
		_ = KeyRule{Pattern: a}.Match(b)
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// refMatch is the obvious split-based matcher.
func refMatch(pattern, key string) bool {
	ps, ks := splitDots(pattern), splitDots(key)
	for i, p := range ps {
		if p == "**" && i == len(ps)-1 {
			if len(ks) <= i {
				return false
			}
			for _, k := range ks[i:] {
				if k == "" {
					return false
				}
			}
			return true
		}
		if i >= len(ks) || (p == "*" && ks[i] == "") || (p != "*" && p != ks[i]) {
			return false
		}
	}
	return len(ks) == len(ps)
}

func splitDots(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '.' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

// The allocation-free matcher agrees with the split-based one.
func TestMatchPatternProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	seg := func() string { return []string{"a", "b", "", "*", "**", "ab"}[r.IntN(6)] }
	word := func(star bool) string {
		n := 1 + r.IntN(4)
		s := ""
		for i := range n {
			x := seg()
			if !star && (x == "*" || x == "**") {
				x = "a"
			}
			if i > 0 {
				s += "."
			}
			s += x
		}
		return s
	}
	for range 20000 {
		p, k := word(true), word(false)
		require.Equal(t, refMatch(p, k), matchPattern(p, k), "%q ~ %q", p, k)
	}
}
