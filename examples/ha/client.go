package main

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/berthsched/berth/examples/durable"
)

// Client is one client of the replicas: a session with its own request
// numbers, one request in flight at a time (calls from several goroutines
// take turns). A request that fails for want of a leader is sent again,
// with the same number, until it is answered or the client's Timeout
// passes; the FSM applies it once whichever attempt got through.
//
// When no answer came in time ([ErrOutcomeUnknown]), the Client keeps the
// request: sending the same command again (the same encoding) is a retry
// of it, under its number, so it is applied at most once and answered
// with its first answer, even if the replicas restarted from a snapshot
// meanwhile. Any other command gives it up: it was applied before the
// new one, or never will be.
//
// Concurrent callers use a Client each (or [Group.Apply], which keeps a
// pool of them).
type Client struct {
	// Timeout bounds one call, retries included (an attempt on a leader
	// that has taken the entry waits for the commit, or for the leader to
	// step down, which its lease bounds).
	Timeout time.Duration
	// Backoff is the pause between two attempts.
	Backoff time.Duration

	b  backend
	mu sync.Mutex
	id uint64
	// seq is the last request number sent.
	seq uint64
	// pending is request seq's entry while its outcome is unknown.
	pending []byte
}

// backend is how a Client reaches the replicas: the in-process Group or
// a replica process over HTTP.
type backend interface {
	// submit sends one log entry to the replica it believes leads and
	// waits until it is applied there. sent reports whether the entry may
	// have reached a leader's log (so may yet be applied) when err is set.
	submit(entry []byte, timeout time.Duration) (resp Response, sent bool, err error)
}

var (
	// ErrOutcomeUnknown: a request was sent but no answer came before the
	// deadline; it may or may not have been applied (and if it was not,
	// it never will be once the client's next request is applied).
	ErrOutcomeUnknown = errors.New("ha: outcome unknown")
	// ErrUnavailable: no replica took the request: it was not applied.
	ErrUnavailable = errors.New("ha: no leader took the request")
)

// newClient opens a session through b.
func newClient(b backend, timeout, backoff time.Duration) (*Client, error) {
	c := &Client{b: b, Timeout: timeout, Backoff: backoff}
	resp, err := c.submit(OpenEntry())
	if err != nil {
		return nil, fmt.Errorf("ha: opening a session: %w", err)
	}
	c.id = resp.Session
	return c, nil
}

// Session is the client's session id.
func (c *Client) Session() uint64 { return c.id }

// Apply sends a command and returns its result once it is committed and
// applied on the leader: then it is acknowledged, held by a majority of
// replicas, and no later failover loses it. It returns the durable call's
// own error second (the command counts all the same) and a failure third:
// ErrUnavailable (not applied), ErrOutcomeUnknown (perhaps applied:
// send the same command again to find out, see [Client]),
// ErrSessionExpired or ErrStaleRequest (not applied).
func (c *Client) Apply(cmd durable.Command) (durable.Result, error, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, err := CommandEntry(c.id, c.seq, cmd)
	if err != nil {
		return durable.Result{}, nil, err
	}
	retry := bytes.Equal(b, c.pending)
	if !retry { // a new request
		if b, err = CommandEntry(c.id, c.seq+1, cmd); err != nil {
			return durable.Result{}, nil, err
		}
		c.seq++
	}
	resp, err := c.submit(b)
	// The outcome stays unknown after an attempt no replica took, if an
	// earlier one may have got through.
	c.pending = nil
	if errors.Is(err, ErrOutcomeUnknown) || retry && errors.Is(err, ErrUnavailable) {
		c.pending = b
	}
	if err != nil {
		return durable.Result{}, nil, err
	}
	if resp.Rejected != nil {
		return durable.Result{}, nil, resp.Rejected
	}
	return resp.Result, resp.Err, nil
}

// Close closes the session, freeing its cached answer on the replicas.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.submit(CloseEntry(c.id))
	return err
}

// submit sends an entry until a leader applies it or the timeout passes.
func (c *Client) submit(entry []byte) (Response, error) {
	deadline := time.Now().Add(c.Timeout)
	maybe := false
	for {
		// A zero or negative timeout means none to raft and net/http.
		resp, sent, err := c.b.submit(entry, max(time.Until(deadline), time.Millisecond))
		if err == nil {
			return resp, nil
		}
		maybe = maybe || sent
		if time.Now().Add(c.Backoff).After(deadline) {
			if maybe {
				return Response{}, fmt.Errorf("%w: %w", ErrOutcomeUnknown, err)
			}
			return Response{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		time.Sleep(c.Backoff)
	}
}
