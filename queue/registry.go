package queue

import (
	"fmt"
	"sort"

	"github.com/berthsched/berth"
)

// Registry maps the names a configuration file may use (a fair placement
// rule's <rule name>, a fair <schedulingPolicy>, a capacity
// ordering-policy) to a host's implementations. The host fills it
// explicitly and hands it to a parser: there is no global registry. The
// zero value is empty and ready; a nil *Registry finds nothing. It is not
// safe for concurrent Register; lookups after filling are read-only.
type Registry[T any] struct {
	// Kind names what is registered, for errors ("placement rule").
	Kind string
	m    map[string]T
}

// Register adds v under name. An empty name or one already registered is
// an error of kind berth.ErrInvalidArgument / berth.ErrAlreadyExists.
func (r *Registry[T]) Register(name string, v T) error {
	if name == "" {
		return berth.InvalidField(r.kind()+".name", name, "must not be empty")
	}
	if _, ok := r.m[name]; ok {
		return &berth.FieldError{Field: r.kind() + ".name", Value: name, Reason: "already registered", Kind: berth.ErrAlreadyExists}
	}
	if r.m == nil {
		r.m = map[string]T{}
	}
	r.m[name] = v
	return nil
}

// Lookup returns what name is registered as.
func (r *Registry[T]) Lookup(name string) (T, bool) {
	var zero T
	if r == nil {
		return zero, false
	}
	v, ok := r.m[name]
	if !ok {
		return zero, false
	}
	return v, true
}

// Resolve is Lookup with a typed error for an unknown name: an
// *UnknownNameError naming field, the name and what is registered.
func (r *Registry[T]) Resolve(field, name string) (T, error) {
	if v, ok := r.Lookup(name); ok {
		return v, nil
	}
	var zero T
	return zero, &UnknownNameError{Field: field, Kind: r.kind(), Name: name, Known: r.Names()}
}

// Names returns the registered names, sorted.
func (r *Registry[T]) Names() []string {
	if r == nil {
		return nil
	}
	out := make([]string, 0, len(r.m))
	for n := range r.m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (r *Registry[T]) kind() string {
	if r == nil || r.Kind == "" {
		return "registry"
	}
	return r.Kind
}

// UnknownNameError reports a configuration name that is neither built in
// nor registered. It wraps berth.ErrInvalidArgument.
type UnknownNameError struct {
	Field string   // the configuration field naming it
	Kind  string   // what was looked up ("placement rule")
	Name  string   // the unknown name
	Known []string // the registered names
}

// Error names the field, the name and the registered names.
func (e *UnknownNameError) Error() string {
	return fmt.Sprintf("%s: unknown %s %q (registered: %v)", e.Field, e.Kind, e.Name, e.Known)
}

// Unwrap returns berth.ErrInvalidArgument.
func (e *UnknownNameError) Unwrap() error { return berth.ErrInvalidArgument }
