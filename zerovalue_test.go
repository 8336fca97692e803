package berth_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/policy"
	"github.com/berthsched/berth/queue"
	"github.com/berthsched/berth/rle"
)

// TestZeroValuesDocumentedUsable checks the types whose documentation says
// the zero value is ready to use. (The stateful types that need their
// constructor, such as plan.Plan, plan.System, queue.Tree, follower.Follower
// and both schedulers, say so in their documentation.)
func TestZeroValuesDocumentedUsable(t *testing.T) {
	t.Run("berth.ManualClock", func(t *testing.T) {
		var c berth.ManualClock
		assert.Equal(t, berth.Time(0), c.Now())
		c.Advance(5)
		assert.Equal(t, berth.Time(5), c.Now())
	})
	t.Run("rle.Series", func(t *testing.T) {
		var s rle.Series
		assert.True(t, s.Equal(rle.New()), "the zero value is New()'s empty series")
		require.NoError(t, s.Add(berth.Interval{Start: 0, End: 10}, berth.New(1024, 1)))
		assert.Equal(t, berth.New(1024, 1), s.At(5))
		assert.Equal(t, berth.Resource{}, s.At(10))
	})
	t.Run("queue.ReservationACLs", func(t *testing.T) {
		var a queue.ReservationACLs
		for _, op := range []plan.ReservationOp{plan.OpSubmitReservation, plan.OpUpdateReservation, plan.OpDeleteReservation, plan.OpListReservations} {
			assert.NoError(t, a.AuthorizeReservation("anyone", op, "dedicated", "someone-else"), op)
		}
	})
}

// TestZeroCapacityOverTimeRefuses: a policy not built by its constructor
// has no limits; it must say so rather than admit every reservation.
func TestZeroCapacityOverTimeRefuses(t *testing.T) {
	var c policy.CapacityOverTime
	p, err := plan.New(plan.DefaultConfig("q", berth.New(8192, 8), berth.NewManualClock(0)))
	require.NoError(t, err)
	def := plan.Definition{Arrival: 0, Deadline: 10_000, Interpreter: plan.RAll,
		Stages: []plan.Stage{{Capability: berth.New(1024, 1), Containers: 1, Concurrency: 1, Duration: 1000}}}
	a, err := plan.NewAllocation(plan.ReservationID{ClusterTimestamp: 1, Sequence: 1}, "u", def,
		berth.Interval{Start: 0, End: 10_000}, []plan.IntervalResource{{Interval: berth.Interval{Start: 0, End: 1000}, Resource: berth.New(1024, 1)}})
	require.NoError(t, err)
	err = c.Validate(p, a)
	assert.ErrorIs(t, err, berth.ErrInvalidState)
	_, err = c.Available(rle.New(), p, "u", plan.ReservationID{}, berth.Interval{Start: 0, End: 10_000})
	assert.ErrorIs(t, err, berth.ErrInvalidState)
}

// unusableZero is how a type's documentation says its zero value is not
// to be used: "Only [New] makes a usable T: the zero value is not one".
// A function type says instead "A nil T is not usable".
var unusableZero = regexp.MustCompile(`Only \[[\w.]+\](?: (?:and|\(or) \[[\w.]+\]\)?)? makes? a usable \w+|A nil \w+ is not usable`)

// TestZeroValuesUnusableOnlyWhenDocumented calls every exported method of
// every exported type on the type's zero value (a pointer to a zero
// struct, a nil map, func or slice) with valid arguments. A type whose
// zero value panics, returns an untyped error or hangs must say in its
// documentation that only its constructor makes a usable one; a type
// whose documentation says so is checked to have that constructor. The
// rule costs the methods nothing: no zero-value check on any hot path.
func TestZeroValuesUnusableOnlyWhenDocumented(t *testing.T) {
	_, methods := apiDecls(t)
	docs := apiTypeDocs(t)
	funcs, _ := apiDecls(t)
	fx := newAPIFixture(t)
	unusable := 0
	for _, typ := range sortedNames(methods) {
		recvs := apiReceivers[typ](fx)
		if len(recvs) == 0 {
			continue
		}
		rt := reflect.TypeOf(recvs[0])
		var zero reflect.Value
		if rt.Kind() == reflect.Pointer {
			zero = reflect.New(rt.Elem()) // &T{}
		} else {
			zero = addressable(reflect.Zero(rt))
		}
		var broken []string
		for _, m := range methods[typ] {
			mv := zero.MethodByName(m)
			if !mv.IsValid() {
				continue
			}
			ft := mv.Type()
			args := make([]reflect.Value, ft.NumIn())
			for i := range args {
				args[i] = fx.gen.values(ft.In(i), 0)[0]
			}
			if msg := invoke(mv, args, func() error { return nil }); msg != "" {
				broken = append(broken, m+": "+msg)
			}
		}
		documented := unusableZero.FindString(docs[typ])
		short := typ[strings.IndexByte(typ, '.')+1:]
		switch {
		case len(broken) > 0 && documented == "":
			t.Errorf("%s: the zero value fails (%s) but its documentation does not say \"Only [New] makes a usable %s\" (a function type: \"A nil %s is not usable\")",
				typ, strings.Join(broken, "; "), short, short)
		case strings.HasPrefix(documented, "A nil "):
			// A function type: its zero value is a nil func, nothing to build.
			if rt.Kind() != reflect.Func {
				t.Errorf("%s says \"%s\" but is a %s, not a function type", typ, documented, rt.Kind())
			}
		case documented != "":
			ctor := strings.Trim(regexp.MustCompile(`\[[\w.]+\]`).FindString(documented), "[]")
			if !strings.Contains(ctor, ".") {
				ctor = typ[:strings.IndexByte(typ, '.')+1] + ctor
			}
			if !slices.Contains(funcs, ctor) {
				t.Errorf("%s names %s as its constructor, which the package does not declare", typ, ctor)
			}
		}
		if len(broken) > 0 {
			unusable++
		}
	}
	// The check is not hollow: zero values were called, and some fail.
	assert.Greater(t, unusable, 3, "zero values that fail (each documented)")
}

// apiTypeDocs returns the documentation of every exported type of the
// library packages, by "pkg.Type".
func apiTypeDocs(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range apiPackages {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
		if err != nil {
			t.Fatalf("parsing %s: %v", dir, err)
		}
		for name, pkg := range pkgs {
			for _, f := range pkg.Files {
				for _, d := range f.Decls {
					gd, ok := d.(*ast.GenDecl)
					if !ok || gd.Tok != token.TYPE {
						continue
					}
					for _, s := range gd.Specs {
						ts := s.(*ast.TypeSpec)
						doc := ts.Doc
						if doc == nil && len(gd.Specs) == 1 {
							doc = gd.Doc
						}
						if ts.Name.IsExported() && doc != nil {
							out[name+"."+ts.Name.Name] = strings.Join(strings.Fields(doc.Text()), " ")
						}
					}
				}
			}
		}
	}
	return out
}
