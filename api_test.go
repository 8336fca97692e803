package berth_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// The library's packages, by directory (the root is package berth).
var apiPackages = []string{".", "rle", "plan", "agent", "policy", "follower", "queue", "capacity", "fair", "preempt"}

// apiDecls lists what the sources of the library packages export: every
// package-level function ("plan.New") and, per exported type, its
// exported methods ("plan.Plan" → "Accept", ...). Methods of unexported
// types are reached only through interfaces and are not listed.
func apiDecls(t *testing.T) (funcs []string, methods map[string][]string) {
	t.Helper()
	methods = map[string][]string{}
	for _, dir := range apiPackages {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
		if err != nil {
			t.Fatalf("parsing %s: %v", dir, err)
		}
		for name, pkg := range pkgs {
			for _, f := range pkg.Files {
				for _, d := range f.Decls {
					fd, ok := d.(*ast.FuncDecl)
					if !ok || !fd.Name.IsExported() {
						continue
					}
					if fd.Recv == nil {
						funcs = append(funcs, name+"."+fd.Name.Name)
						continue
					}
					if typ := receiverName(fd.Recv.List[0].Type); ast.IsExported(typ) {
						methods[name+"."+typ] = append(methods[name+"."+typ], fd.Name.Name)
					}
				}
			}
		}
	}
	slices.Sort(funcs)
	return funcs, methods
}

// receiverName is the type name of a method's receiver, without pointer
// or type parameters.
func receiverName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// errKinds are the error kinds a library call may return: package berth's
// and the packages' own sentinels.
func errTyped(err error) bool {
	for _, k := range apiErrKinds {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}

// maxCalls bounds the calls made to one function or method: the
// arguments' candidates are combined exhaustively up to this many
// combinations, else varied one argument at a time around a few bases.
const maxCalls = apiMaxCalls

// callTimeout is how long one call may take before it counts as hung.
const callTimeout = 5 * time.Second

// TestPublicAPIExtremes calls every exported function and method of the
// library packages with zero values, nil and extreme values (MaxInt64,
// MinInt64, NaN, ±Inf, empty strings, empty and nil slices, maps and
// readers) as well as valid ones. No call may panic or hang; an error
// returned must be of one of the library's kinds (errors.Is); and a
// receiver that has a Check method must still pass it after every call.
// The functions are enumerated from the sources, so an exported
// function or method missing from the tables (apiFuncs, apiReceivers)
// fails the test.
func TestPublicAPIExtremes(t *testing.T) {
	funcs, methods := apiDecls(t)
	for _, name := range funcs {
		if _, ok := apiFuncs[name]; !ok {
			t.Errorf("exported function %s is not in apiFuncs: add it", name)
		}
	}
	for _, name := range sortedNames(apiFuncs) {
		if !slices.Contains(funcs, name) {
			t.Errorf("apiFuncs lists %s, which the sources do not declare", name)
		}
	}
	probe := newAPIFixture(t)
	for _, typ := range sortedNames(methods) {
		mk, ok := apiReceivers[typ]
		if !ok {
			t.Errorf("exported type %s has methods %v but no receivers in apiReceivers: add them", typ, methods[typ])
			continue
		}
		for _, m := range methods[typ] {
			found := false
			for _, r := range mk(probe) {
				if addressable(reflect.ValueOf(r)).MethodByName(m).IsValid() {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("no receiver of %s has method %s", typ, m)
			}
		}
	}
	if t.Failed() {
		return
	}

	calls := 0
	defer func() {
		// The tables are not hollow: every function and method ran with
		// many argument combinations.
		if !t.Failed() && calls < 20*(len(funcs)+len(methods)) {
			t.Errorf("only %d calls made", calls)
		}
		t.Logf("%d calls", calls)
	}()
	// A fresh world per package for its functions and per type for its
	// methods: calls change it, and the next calls build on what the
	// earlier ones left.
	var fx *apiFixture
	pkg := ""
	for _, name := range funcs {
		if p, _, _ := strings.Cut(name, "."); p != pkg {
			pkg, fx = p, newAPIFixture(t)
		}
		t.Run(name, func(t *testing.T) {
			calls += callAll(t, name, reflect.ValueOf(apiFuncs[name]), reflect.Value{}, fx)
		})
	}
	for _, typ := range sortedNames(methods) {
		fx := newAPIFixture(t)
		for _, m := range methods[typ] {
			t.Run(typ+"."+m, func(t *testing.T) {
				for i, r := range apiReceivers[typ](fx) {
					rv := addressable(reflect.ValueOf(r))
					mv := rv.MethodByName(m)
					if !mv.IsValid() {
						continue
					}
					calls += callAll(t, fmt.Sprintf("%s[%d].%s", typ, i, m), mv, rv, fx)
				}
			})
		}
	}
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// addressable returns a pointer to a copy of a non-pointer value, so that
// its whole method set is reachable.
func addressable(v reflect.Value) reflect.Value {
	if !v.IsValid() || v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		return v
	}
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	return p
}

// callAll calls fn with combinations of candidate arguments and returns
// how many calls it made. recv, when valid, is the receiver whose Check
// must pass after every call (with both schedulers').
func callAll(t *testing.T, name string, fn reflect.Value, recv reflect.Value, fx *apiFixture) int {
	ft := fn.Type()
	cands := make([][]reflect.Value, ft.NumIn())
	total := 1
	for i := range cands {
		cands[i] = fx.gen.values(ft.In(i), 0)
		if total <= maxCalls {
			total *= len(cands[i])
		}
	}
	var combos [][]int
	switch {
	case len(cands) == 0:
		combos = [][]int{{}}
	case total <= maxCalls:
		idx := make([]int, len(cands))
		for {
			combos = append(combos, slices.Clone(idx))
			k := len(idx) - 1
			for k >= 0 {
				idx[k]++
				if idx[k] < len(cands[k]) {
					break
				}
				idx[k] = 0
				k--
			}
			if k < 0 {
				break
			}
		}
	default:
		for base := 0; base < 3; base++ {
			b := make([]int, len(cands))
			for i := range b {
				b[i] = min(base, len(cands[i])-1)
			}
			for i := range cands {
				for c := range cands[i] {
					x := slices.Clone(b)
					x[i] = c
					combos = append(combos, x)
				}
			}
		}
	}
	check := func() error {
		if recv.IsValid() {
			if m := recv.MethodByName("Check"); m.IsValid() && m.Type().NumIn() == 0 && m.Type().NumOut() == 1 {
				if err, _ := m.Call(nil)[0].Interface().(error); err != nil {
					return err
				}
			}
		}
		return fx.checkAll()
	}
	failures := 0
	for _, c := range combos {
		args := make([]reflect.Value, len(c))
		for i, j := range c {
			args[i] = cands[i][j]
			if r, ok := args[i].Interface().(*replayReader); ok && r != nil {
				r.reset()
			}
		}
		if msg := invoke(fn, args, check); msg != "" {
			failures++
			if failures <= 3 {
				t.Errorf("%s(%s): %s", name, describe(args), msg)
			}
			if strings.HasPrefix(msg, "hung") {
				return len(combos) // the receiver may be locked for good
			}
		}
	}
	if failures > 3 {
		t.Errorf("%s: %d failing calls in all", name, failures)
	}
	return len(combos)
}

// invoke makes one call and reports what went wrong, "" when nothing did.
func invoke(fn reflect.Value, args []reflect.Value, check func() error) string {
	done := make(chan string, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Sprintf("panicked: %v", p)
			}
		}()
		var out []reflect.Value
		if fn.Type().IsVariadic() {
			out = fn.CallSlice(args)
		} else {
			out = fn.Call(args)
		}
		for _, o := range out {
			if msg := inspect(o); msg != "" {
				done <- msg
				return
			}
		}
		if err := check(); err != nil {
			done <- "Check fails afterwards: " + err.Error()
			return
		}
		done <- ""
	}()
	select {
	case msg := <-done:
		return msg
	case <-time.After(callTimeout):
		return "hung (no answer in " + callTimeout.String() + ")"
	}
}

// inspect checks one result: an error must be typed; an iterator is
// drained (up to a bound) so that a panic inside it shows.
func inspect(o reflect.Value) string {
	if o.Type() == reflect.TypeFor[error]() {
		if o.IsNil() {
			return ""
		}
		err := o.Interface().(error)
		if !errTyped(err) {
			return fmt.Sprintf("untyped error %T: %v", err, err)
		}
		_ = err.Error()
		return ""
	}
	if o.Kind() == reflect.Func && !o.IsNil() && o.Type().NumIn() == 1 && o.Type().NumOut() == 0 {
		yt := o.Type().In(0)
		if yt.Kind() == reflect.Func && yt.NumOut() == 1 && yt.Out(0).Kind() == reflect.Bool {
			n := 0
			yield := reflect.MakeFunc(yt, func([]reflect.Value) []reflect.Value {
				n++
				return []reflect.Value{reflect.ValueOf(n < 1000)}
			})
			o.Call([]reflect.Value{yield})
		}
	}
	if o.Kind() == reflect.Interface && !o.IsNil() {
		if s, ok := o.Interface().(fmt.Stringer); ok {
			_ = s.String()
		}
	}
	return ""
}

// describe prints arguments briefly.
func describe(args []reflect.Value) string {
	parts := make([]string, len(args))
	for i, a := range args {
		s := "<invalid>"
		if a.IsValid() {
			switch {
			case a.Kind() == reflect.Func:
				s = "func"
				if a.IsNil() {
					s = "nil func"
				}
			case (a.Kind() == reflect.Pointer || a.Kind() == reflect.Interface) && a.IsNil():
				s = "nil " + a.Type().String()
			case a.Kind() == reflect.Pointer && a.Elem().Kind() == reflect.Struct:
				s = "&" + a.Type().Elem().String() + "{…}"
			default:
				s = fmt.Sprintf("%#v", a.Interface())
			}
		}
		if len(s) > 120 {
			s = s[:117] + "..."
		}
		parts[i] = s
	}
	return strings.Join(parts, ", ")
}
