package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/durable"
)

// A replica process serves its clients over HTTP on loopback:
//
//	POST /apply   body: a log entry (OpenEntry, CommandEntry, CloseEntry);
//	              200 and the encoded Response once the leader applied it,
//	              421 with the leader's id in X-Berth-Leader when this
//	              replica does not lead (the entry was not taken),
//	              503 when raft failed; X-Berth-Sent says whether the
//	              entry may be in a log.
//	GET  /read    a linearizable read: a barrier is committed first, then
//	              the ReadState is returned as JSON (421 on a follower).
//	GET  /status  this replica's Status as JSON, no questions asked of
//	              the others (for operators and tests: it may be stale).
const (
	headerLeader = "X-Berth-Leader"
	headerSent   = "X-Berth-Sent"
)

// ReadState is what a linearizable read returns over HTTP.
type ReadState struct {
	Applied uint64 // the Cluster's command sequence number
	Ledger  Ledger
	Digest  string // the Cluster's snapshot digest (see Digest)
}

// Status is a replica's own view of itself.
type Status struct {
	ID           string
	State        string // raft's: Leader, Follower, Candidate, Shutdown
	Leader       string // the leader's id, as this replica knows it
	Applied      uint64 // the Cluster's command sequence number
	Ledger       Ledger
	Digest       string
	AppliedIndex uint64 // the raft log index applied
	Term         uint64 // the raft term: how many elections there were
	Restores     int64  // snapshots installed since the process started
}

// MarshalJSON writes the digest in hex.
func (l Ledger) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Applied uint64
		Digest  string
	}{l.Applied, hex.EncodeToString(l.Digest[:])})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (l *Ledger) UnmarshalJSON(b []byte) error {
	var v struct {
		Applied uint64
		Digest  string
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	d, err := hex.DecodeString(v.Digest)
	if err != nil || len(d) != len(l.Digest) {
		return fmt.Errorf("%w: ledger digest %q", berth.ErrCorruptState, v.Digest)
	}
	l.Applied = v.Applied
	copy(l.Digest[:], d)
	return nil
}

// rejectKinds are the kinds a rejected request's error keeps over the
// wire.
var rejectKinds = append([]error{ErrSessionExpired, ErrStaleRequest}, errorKinds...)

const (
	responseKind    = "ha.Response"
	responseVersion = 1
)

func encodeResponse(r Response) ([]byte, error) {
	var buf bytes.Buffer
	e := berth.NewStateEncoder(&buf, responseKind, responseVersion)
	e.Uvarint(r.Session)
	e.Bool(r.Duplicate)
	encodeError(e, r.Rejected, rejectKinds)
	encodeAnswer(e, r.Result, r.Err)
	if err := e.Finish(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func decodeResponse(b []byte) (Response, error) {
	d, err := berth.NewStateDecoder(bufio.NewReader(bytes.NewReader(b)), responseKind, responseVersion)
	if err != nil {
		return Response{}, err
	}
	var r Response
	r.Session = d.Uvarint()
	r.Duplicate = d.Bool()
	r.Rejected = decodeError(d, rejectKinds)
	r.Result, r.Err = decodeAnswer(d)
	if err := d.Finish(); err != nil {
		return Response{}, err
	}
	return r, nil
}

// server answers a replica's clients.
type server struct {
	raft    *raft.Raft
	fsm     *FSM
	id      raft.ServerID
	timeout time.Duration
	stop    <-chan struct{} // closed when the replica shuts down
}

func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /apply", s.apply)
	mux.HandleFunc("GET /read", s.read)
	mux.HandleFunc("GET /status", s.status)
	return mux
}

// notLeader answers 421 naming the leader, if this replica does not lead.
func (s *server) notLeader(w http.ResponseWriter) bool {
	if s.raft.State() == raft.Leader {
		return false
	}
	_, id := s.raft.LeaderWithID()
	w.Header().Set(headerLeader, string(id))
	http.Error(w, "not the leader", http.StatusMisdirectedRequest)
	return true
}

func (s *server) apply(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if s.notLeader(w) {
		return
	}
	f := s.raft.Apply(body, s.timeout)
	if err := waitFuture(f, s.timeout, s.stop); err != nil {
		sent := !errors.Is(err, raft.ErrNotLeader) && !errors.Is(err, raft.ErrEnqueueTimeout) &&
			!errors.Is(err, raft.ErrLeadershipTransferInProgress)
		w.Header().Set(headerSent, fmt.Sprint(sent))
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	b, err := encodeResponse(f.Response().(Response))
	if err != nil {
		w.Header().Set(headerSent, "true")
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Write(b)
}

func (s *server) read(w http.ResponseWriter, req *http.Request) {
	if s.notLeader(w) {
		return
	}
	if err := waitFuture(s.raft.Barrier(s.timeout), s.timeout, s.stop); err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	var st ReadState
	err := s.fsm.Read(func(c *durable.Cluster, l Ledger) error {
		d, err := Digest(c)
		st = ReadState{Applied: c.Seq(), Ledger: l, Digest: d}
		return err
	})
	writeJSON(w, st, err)
}

func (s *server) status(w http.ResponseWriter, req *http.Request) {
	_, leader := s.raft.LeaderWithID()
	st := Status{ID: string(s.id), State: s.raft.State().String(), Leader: string(leader),
		AppliedIndex: s.raft.AppliedIndex(), Restores: s.fsm.Restores()}
	st.Term, _ = strconv.ParseUint(s.raft.Stats()["term"], 10, 64)
	err := s.fsm.Read(func(c *durable.Cluster, l Ledger) error {
		d, err := Digest(c)
		st.Applied, st.Ledger, st.Digest = c.Seq(), l, d
		return err
	})
	writeJSON(w, st, err)
}

func writeJSON(w http.ResponseWriter, v any, err error) {
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// Remote reaches replica processes over HTTP: it keeps a guess of the
// leader, follows a replica's redirect, and moves on to the next replica
// when one does not answer.
type Remote struct {
	ids   []raft.ServerID
	addrs map[raft.ServerID]string
	http  *http.Client

	mu     sync.Mutex
	guess  int
	served raft.ServerID // the replica that answered the last request
}

// NewRemote reaches the replicas at the given HTTP addresses (host:port)
// by raft server id.
func NewRemote(addrs map[raft.ServerID]string) *Remote {
	r := &Remote{addrs: addrs, http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	for id := range addrs {
		r.ids = append(r.ids, id)
	}
	slices.Sort(r.ids)
	return r
}

// NewClient opens a session: see [Client].
func (r *Remote) NewClient(timeout time.Duration) (*Client, error) {
	return newClient(r, timeout, 10*time.Millisecond)
}

func (r *Remote) target() raft.ServerID {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ids[r.guess%len(r.ids)]
}

// follow moves the guess to the leader a replica named, or to the next
// replica.
func (r *Remote) follow(from raft.ServerID, leader string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i := slices.Index(r.ids, raft.ServerID(leader)); i >= 0 && leader != string(from) {
		r.guess = i
		return
	}
	if r.ids[r.guess%len(r.ids)] == from {
		r.guess++
	}
}

// errNotLeader is a 421: the entry was not taken.
var errNotLeader = errors.New("ha: not the leader")

func (r *Remote) submit(entry []byte, timeout time.Duration) (Response, bool, error) {
	id := r.target()
	ctxReq, err := http.NewRequest(http.MethodPost, "http://"+r.addrs[id]+"/apply", bytes.NewReader(entry))
	if err != nil {
		return Response{}, false, err
	}
	c := *r.http
	c.Timeout = timeout
	resp, err := c.Do(ctxReq)
	if err != nil {
		r.follow(id, "")
		var op *net.OpError
		dial := errors.As(err, &op) && op.Op == "dial"
		return Response{}, !dial, fmt.Errorf("%s: %w", id, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return Response{}, true, fmt.Errorf("%s: %w", id, err)
	case resp.StatusCode == http.StatusMisdirectedRequest:
		r.follow(id, resp.Header.Get(headerLeader))
		return Response{}, false, fmt.Errorf("%s: %w", id, errNotLeader)
	case resp.StatusCode != http.StatusOK:
		r.follow(id, "")
		return Response{}, resp.Header.Get(headerSent) != "false", fmt.Errorf("%s: %s: %s", id, resp.Status, strings.TrimSpace(string(body)))
	}
	out, err := decodeResponse(body)
	r.mu.Lock()
	r.served = id
	r.mu.Unlock()
	return out, true, err
}

// ServedBy is the replica that answered the last request.
func (r *Remote) ServedBy() raft.ServerID {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.served
}

// Read runs a linearizable read on the leader, trying again (on the
// leader a replica names, or the next one) until timeout.
func (r *Remote) Read(timeout time.Duration) (ReadState, error) {
	deadline := time.Now().Add(timeout)
	for {
		id := r.target()
		var st ReadState
		err := r.getJSON(id, "/read", time.Until(deadline), &st)
		if err == nil {
			return st, nil
		}
		if time.Now().After(deadline) {
			return ReadState{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Status asks one replica for its own view.
func (r *Remote) Status(id raft.ServerID, timeout time.Duration) (Status, error) {
	var st Status
	err := r.getJSON(id, "/status", timeout, &st)
	return st, err
}

func (r *Remote) getJSON(id raft.ServerID, path string, timeout time.Duration, v any) error {
	c := *r.http
	c.Timeout = timeout
	resp, err := c.Get("http://" + r.addrs[id] + path)
	if err != nil {
		r.follow(id, "")
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		r.follow(id, resp.Header.Get(headerLeader))
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s%s: %s: %s", id, path, resp.Status, strings.TrimSpace(string(b)))
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
