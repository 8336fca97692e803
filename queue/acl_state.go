package queue

import "github.com/berthsched/berth"

// Durable state of an optional ACL, as both schedulers' snapshots hold a
// queue's configured ACLs: a presence flag, then the ACL in its canonical
// form ([ACL.String]), which [ParseACL] reads back to an equal ACL.

// WriteACL writes a, which may be nil (not configured), to e (a nil e
// writes nothing).
func WriteACL(e *berth.StateEncoder, a *ACL) {
	if e == nil {
		return
	}
	e.Bool(a != nil)
	if a != nil {
		e.String(a.String())
	}
}

// ReadACL reads an ACL written by [WriteACL]: nil when none was
// configured (or d is nil).
func ReadACL(d *berth.StateDecoder) *ACL {
	if d == nil || !d.Bool() {
		return nil
	}
	a := ParseACL(d.String())
	return &a
}
