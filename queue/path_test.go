package queue

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParsePath(t *testing.T) {
	tests := []struct {
		in    string
		ok    bool
		depth int
		name  string
	}{
		{"root", true, 0, "root"},
		{"root.a", true, 1, "a"},
		{"root.a.b-c_d", true, 2, "b-c_d"},
		{"root.root", true, 1, "root"},
		{"root.日本", true, 1, "日本"},
		{"", false, 0, ""},
		{"a", false, 0, ""},
		{"a.b", false, 0, ""},
		{"root.", false, 0, ""},
		{".root", false, 0, ""},
		{"root..a", false, 0, ""},
		{"root.a.", false, 0, ""},
		{"root. a", false, 0, ""},
		{"root.a ", false, 0, ""},
		{"root.a b", false, 0, ""},
		{"root.a\tb", false, 0, ""},
		{"root.\u00a0", false, 0, ""},
		{"root.a\u00a0", false, 0, ""},
		{"root.a\x00", false, 0, ""},
		{"root.\xff", false, 0, ""},
		{"ROOT.a", false, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			p, err := ParsePath(tc.in)
			if !tc.ok {
				require.Error(t, err)
				assert.True(t, errors.Is(err, berth.ErrInvalidArgument))
				qe := asQueueError(t, err)
				assert.Equal(t, "queue-path", qe.Field)
				assert.True(t, p.IsZero())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.in, p.String())
			assert.Equal(t, tc.depth, p.Depth())
			assert.Equal(t, tc.name, p.Name())
			assert.Equal(t, strings.Split(tc.in, "."), p.Parts())
		})
	}
}

func TestQualifyPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a", "root.a"},
		{"a.b", "root.a.b"},
		{"root", "root"},
		{"root.x", "root.x"},
		{"rootx", "root.rootx"},
		{"root_dot_x", "root.root_dot_x"},
	}
	for _, tc := range tests {
		p, err := QualifyPath(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, p.String())
	}
	_, err := QualifyPath("a..b")
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	_, err = QualifyPath("A ")
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
}

func TestValidateName(t *testing.T) {
	for _, n := range []string{"a", "default", "x-y_z", "0", "first_dot_last"} {
		assert.NoError(t, ValidateName(n), n)
	}
	for _, n := range []string{"", "a.b", ".", " ", "      ", "a b", " a", "a ", "\u00a0", "a\u2003", "\n", "a\x7f"} {
		err := ValidateName(n)
		require.Error(t, err, "%q", n)
		assert.Equal(t, "name", asQueueError(t, err).Field)
	}
}

func TestPathNavigation(t *testing.T) {
	p := mustPath(t, "root.a.b")
	par, ok := p.Parent()
	require.True(t, ok)
	assert.Equal(t, "root.a", par.String())
	rp, ok := RootPath().Parent()
	assert.False(t, ok)
	assert.True(t, rp.IsZero())
	assert.True(t, RootPath().IsRoot())
	assert.False(t, p.IsRoot())

	c, err := p.Child("c")
	require.NoError(t, err)
	assert.Equal(t, "root.a.b.c", c.String())
	_, err = p.Child("c.d")
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
	_, err = Path{}.Child("x")
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)

	assert.True(t, par.IsAncestorOf(p))
	assert.True(t, RootPath().IsAncestorOf(p))
	assert.False(t, p.IsAncestorOf(p))
	assert.False(t, mustPath(t, "root.a.b").IsAncestorOf(mustPath(t, "root.a.bc")))
	assert.False(t, Path{}.IsAncestorOf(p))
	assert.Equal(t, -1, Path{}.Depth())
	assert.Nil(t, Path{}.Parts())
}

func TestPathCompare(t *testing.T) {
	sorted := []string{"root", "root.a", "root.a.b", "root.a.c", "root.a-x", "root.b"}
	for i := range sorted {
		for j := range sorted {
			a, b := mustPath(t, sorted[i]), mustPath(t, sorted[j])
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			assert.Equal(t, want, a.Compare(b), "%s vs %s", a, b)
		}
	}
}

func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"root", "root.a", "root.a.b", "", ".", "root..a", "root.a ", "root.\u00a0",
		"a.b", "root.a\x00b", "root.日本.x", "root.\xff", "rootroot", "root.root.root"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err != nil {
			if !errors.Is(err, berth.ErrInvalidArgument) {
				t.Fatalf("error %v does not wrap ErrInvalidArgument", err)
			}
			if !p.IsZero() {
				t.Fatalf("failed parse returned %q", p)
			}
			return
		}
		if p.String() != s || !strings.HasPrefix(s, "root") {
			t.Fatalf("round trip %q -> %q", s, p)
		}
		parts := p.Parts()
		if parts[0] != RootName || len(parts)-1 != p.Depth() {
			t.Fatalf("parts %q depth %d", parts, p.Depth())
		}
		for _, n := range parts {
			if err := ValidateName(n); err != nil {
				t.Fatalf("accepted path %q has bad name %q: %v", s, n, err)
			}
		}
		// Rebuilding from parts gives the same path; parents are ancestors.
		q := RootPath()
		for _, n := range parts[1:] {
			c, err := q.Child(n)
			if err != nil {
				t.Fatalf("Child(%q): %v", n, err)
			}
			if !q.IsAncestorOf(c) || q.Compare(c) >= 0 || c.Compare(q) <= 0 {
				t.Fatalf("ancestor/order broken for %q < %q", q, c)
			}
			pp, ok := c.Parent()
			if !ok || pp != q {
				t.Fatalf("Parent(%q) = %q", c, pp)
			}
			q = c
		}
		if q != p || p.Compare(q) != 0 {
			t.Fatalf("rebuilt %q != %q", q, p)
		}
		if p.Name() != parts[len(parts)-1] {
			t.Fatalf("name %q", p.Name())
		}
		qp, err := QualifyPath(s)
		if err != nil || qp != p {
			t.Fatalf("QualifyPath(%q) = %q, %v", s, qp, err)
		}
	})
}

func TestPathText(t *testing.T) {
	type rec struct {
		Q Path            `json:"q"`
		M map[Path]string `json:"m"`
	}
	in := rec{Q: mustPath(t, "root.a"), M: map[Path]string{mustPath(t, "root.b"): "x"}}
	b, err := json.Marshal(in)
	require.NoError(t, err)
	assert.JSONEq(t, `{"q":"root.a","m":{"root.b":"x"}}`, string(b))
	var out rec
	require.NoError(t, json.Unmarshal(b, &out))
	assert.Equal(t, in, out)
	assert.ErrorIs(t, json.Unmarshal([]byte(`{"q":"a..b"}`), &out), berth.ErrInvalidArgument)
	require.NoError(t, json.Unmarshal([]byte(`{"q":""}`), &out))
	assert.True(t, out.Q.IsZero())
}
