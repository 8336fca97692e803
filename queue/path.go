package queue

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// RootName is the name of the root queue; every full path starts with it.
const RootName = "root"

// Separator separates the names of a queue path.
const Separator = "."

// Path is a validated full queue path such as "root.a.b". The zero Path is
// invalid (IsZero reports it); every Path obtained from this package starts
// with "root" and has only valid names (see [ValidateName]). Paths are
// comparable and can be map keys.
type Path struct{ s string }

// RootPath returns the path "root".
func RootPath() Path { return Path{RootName} }

// ValidateName checks one queue name (one part of a path) against YARN's
// rules: not empty, no "." inside, no whitespace (Unicode, so NBSP too, as
// the fair scheduler's Unicode-aware trim rejects it), and — stricter than
// YARN — no control characters and valid UTF-8, because such names cannot
// round-trip through configuration files. The error names the field "name".
func ValidateName(name string) error {
	if err := nameProblem(name); err != "" {
		return invalid(name, "name", name, err)
	}
	return nil
}

// nameProblem returns why name is invalid, or "".
func nameProblem(name string) string {
	if name == "" {
		return "queue name must not be empty"
	}
	if !utf8.ValidString(name) {
		return "queue name must be valid UTF-8"
	}
	for _, r := range name {
		switch {
		case r == '.':
			return "queue name must not contain a period"
		case unicode.IsSpace(r):
			return "queue name must not contain whitespace"
		case unicode.IsControl(r):
			return "queue name must not contain control characters"
		}
	}
	return ""
}

// ParsePath parses a full queue path: names joined by ".", the first one
// "root". The error (kind berth.ErrInvalidArgument, field "queue-path")
// names the offending part.
func ParsePath(s string) (Path, error) {
	if s == "" {
		return Path{}, invalid(s, "queue-path", s, "queue path must not be empty")
	}
	first := true
	rest := s
	for {
		name, tail, more := strings.Cut(rest, Separator)
		if first && name != RootName {
			return Path{}, invalid(s, "queue-path", s, "queue path must start with \"root\"")
		}
		if p := nameProblem(name); p != "" {
			return Path{}, invalid(s, "queue-path", name, p)
		}
		first = false
		if !more {
			break
		}
		rest = tail
	}
	return Path{s}, nil
}

// QualifyPath is the fair scheduler's reading of a queue name: names are
// full paths, and "root." is prefixed when the name does not start with it
// ("a.b" is "root.a.b"). The result is then parsed as [ParsePath] does.
func QualifyPath(s string) (Path, error) {
	if s != RootName && !strings.HasPrefix(s, RootName+Separator) {
		s = RootName + Separator + s
	}
	return ParsePath(s)
}

// String returns the path as "root.a.b" ("" for the zero Path).
func (p Path) String() string { return p.s }

// IsZero reports whether p is the zero (invalid) Path.
func (p Path) IsZero() bool { return p.s == "" }

// IsRoot reports whether p is "root".
func (p Path) IsRoot() bool { return p.s == RootName }

// Name returns the last name of the path (the queue's short name).
func (p Path) Name() string {
	i := strings.LastIndex(p.s, Separator)
	return p.s[i+1:]
}

// Parent returns the parent path; ok is false for root and the zero Path.
func (p Path) Parent() (parent Path, ok bool) {
	i := strings.LastIndex(p.s, Separator)
	if i < 0 {
		return Path{}, false
	}
	return Path{p.s[:i]}, true
}

// Child returns p + "." + name, checking name with [ValidateName].
func (p Path) Child(name string) (Path, error) {
	if p.IsZero() {
		return Path{}, invalid(name, "queue-path", name, "child of an empty path")
	}
	if r := nameProblem(name); r != "" {
		return Path{}, invalid(p.s+Separator+name, "name", name, r)
	}
	return Path{p.s + Separator + name}, nil
}

// Depth returns the number of names below root: 0 for root, 1 for root.a.
func (p Path) Depth() int {
	if p.s == "" {
		return -1
	}
	return strings.Count(p.s, Separator)
}

// Parts returns the names of the path, root first.
func (p Path) Parts() []string {
	if p.s == "" {
		return nil
	}
	return strings.Split(p.s, Separator)
}

// IsAncestorOf reports whether p is a strict ancestor of o.
func (p Path) IsAncestorOf(o Path) bool {
	return p.s != "" && len(o.s) > len(p.s) && strings.HasPrefix(o.s, p.s) && o.s[len(p.s)] == '.'
}

// Compare orders paths name by name (so a parent sorts right before its
// subtree: root.a < root.a.b < root.a-x), returning -1, 0 or +1.
func (p Path) Compare(o Path) int {
	a, b := p.s, o.s
	for {
		an, arest, amore := strings.Cut(a, Separator)
		bn, brest, bmore := strings.Cut(b, Separator)
		if c := strings.Compare(an, bn); c != 0 {
			return c
		}
		switch {
		case !amore && !bmore:
			return 0
		case !amore:
			return -1
		case !bmore:
			return 1
		}
		a, b = arest, brest
	}
}

// MarshalText returns the path string, so paths print as strings in JSON
// reports and can be JSON map keys.
func (p Path) MarshalText() ([]byte, error) { return []byte(p.s), nil }

// UnmarshalText parses a full path as [ParsePath] does; the empty text
// gives the zero Path.
func (p *Path) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*p = Path{}
		return nil
	}
	q, err := ParsePath(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}
