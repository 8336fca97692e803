package main

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth/examples/durable"
)

var (
	historyDuration = flag.Duration("history.duration", 3*time.Second, "how long TestHistoryLinearizable injects faults")
	historyClients  = flag.Int("history.clients", 5, "concurrent clients in TestHistoryLinearizable")
)

// The linearizability model of the replicated Cluster, as Jepsen checks a
// database: its state is the Ledger (how many requests were applied and
// the hash chain of which, in order). A write of request (session, seq)
// acknowledged with result sequence number p is legal only as the p-th
// request applied, and moves the ledger on by that request; a write whose
// outcome is unknown may or may not have been applied; a read must return
// the ledger as it is. So a history is linearizable only if no
// acknowledged write is lost or applied twice or in a place its answer
// contradicts, and no read misses a write acknowledged before it began or
// sees one that is never applied.
type opInput struct {
	read         bool
	session, seq uint64
}

type opOutput struct {
	unknown bool   // a write whose outcome is unknown
	pos     uint64 // an acknowledged write's Result.Seq
	ledger  Ledger // what a read returned
}

var ledgerModel = porcupine.NondeterministicModel{
	Init: func() []any { return []any{Ledger{}} },
	Step: func(state, input, output any) []any {
		s, in, out := state.(Ledger), input.(opInput), output.(opOutput)
		switch {
		case in.read:
			if out.ledger == s {
				return []any{s}
			}
			return nil
		case out.unknown:
			return []any{s, s.Next(in.session, in.seq)}
		case out.pos == s.Applied+1:
			return []any{s.Next(in.session, in.seq)}
		}
		return nil
	},
	Hash: func(state any) uint64 {
		s := state.(Ledger)
		h := s.Applied
		for _, b := range s.Digest[:8] {
			h = h<<8 ^ uint64(b)
		}
		return h
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(opInput), output.(opOutput)
		switch {
		case in.read:
			return fmt.Sprintf("read → %d", out.ledger.Applied)
		case out.unknown:
			return fmt.Sprintf("write %d/%d → ?", in.session, in.seq)
		}
		return fmt.Sprintf("write %d/%d → #%d", in.session, in.seq, out.pos)
	},
	DescribeState: func(state any) string { return fmt.Sprintf("%d applied", state.(Ledger).Applied) },
}

// TestLedgerModel: the model refuses the histories it must refuse.
func TestLedgerModel(t *testing.T) {
	var l0 Ledger
	l1 := l0.Next(1, 1)
	l2 := l1.Next(2, 1)
	w := func(client int, s, q uint64, call, ret int64, pos uint64) porcupine.Operation {
		return porcupine.Operation{ClientId: client, Input: opInput{session: s, seq: q}, Call: call, Return: ret, Output: opOutput{pos: pos}}
	}
	r := func(client int, call, ret int64, l Ledger) porcupine.Operation {
		return porcupine.Operation{ClientId: client, Input: opInput{read: true}, Call: call, Return: ret, Output: opOutput{ledger: l}}
	}
	unknown := func(client int, s, q uint64, call int64) porcupine.Operation {
		return porcupine.Operation{ClientId: client, Input: opInput{session: s, seq: q}, Call: call, Return: 1 << 62, Output: opOutput{unknown: true}}
	}
	m := ledgerModel.ToModel()
	for _, tc := range []struct {
		name string
		ok   bool
		ops  []porcupine.Operation
	}{
		{"two writes and a read", true, []porcupine.Operation{w(0, 1, 1, 0, 10, 1), w(1, 2, 1, 5, 20, 2), r(2, 30, 40, l2)}},
		{"concurrent writes in either order", true, []porcupine.Operation{w(0, 1, 1, 0, 10, 1), w(1, 2, 1, 0, 10, 2), r(2, 30, 40, l2)}},
		{"stale read", false, []porcupine.Operation{w(0, 1, 1, 0, 10, 1), r(1, 20, 30, l0)}},
		{"acknowledged write lost", false, []porcupine.Operation{w(0, 1, 1, 0, 10, 1), w(1, 2, 1, 20, 30, 2), r(2, 40, 50, l2.Next(9, 9)), r(2, 60, 70, l0.Next(2, 1))}},
		{"acknowledged with an empty result", false, []porcupine.Operation{w(0, 1, 1, 0, 10, 1), w(1, 2, 1, 0, 10, 0)}},
		{"unknown write applied", true, []porcupine.Operation{w(0, 1, 1, 0, 10, 1), unknown(1, 2, 1, 5), r(2, 30, 40, l2)}},
		{"unknown write not applied", true, []porcupine.Operation{w(0, 1, 1, 0, 10, 1), unknown(1, 2, 1, 5), r(2, 30, 40, l1)}},
		{"read of a write never made", false, []porcupine.Operation{w(0, 1, 1, 0, 10, 1), r(2, 30, 40, l1.Next(7, 7))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.ok, porcupine.CheckOperations(m, tc.ops))
		})
	}
}

// history records client operations with monotonic timestamps.
type history struct {
	start time.Time
	mu    sync.Mutex
	ops   []porcupine.Operation
	count struct{ ok, unknown, retries, failed, reads, readFails int }
}

func (h *history) now() int64 { return int64(time.Since(h.start)) }

func (h *history) add(op porcupine.Operation) {
	h.mu.Lock()
	h.ops = append(h.ops, op)
	h.mu.Unlock()
}

// TestHistoryLinearizable records every client operation (invoke, then
// ok, fail or unknown) while partitions, isolated leaders and killed
// replicas (the leader most often) are injected, and checks the history
// with porcupine against the ledger model: nothing acknowledged is lost
// or doubled, no read is stale. A failed operation (one that was never
// sent, or refused) is left out, which asserts it had no effect. Half the
// writes whose outcome is unknown are retried, and the retry must get the
// first answer if the first attempt was applied.
func TestHistoryLinearizable(t *testing.T) {
	g, _ := newGroupWith(t, 3, GroupOptions{Timeout: 5 * time.Second})
	h := &history{start: time.Now()}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range *historyClients {
		c, err := g.NewClient()
		require.NoError(t, err)
		// Half the clients give up quickly, so that some writes end
		// with their outcome unknown and some reads fail.
		c.Timeout = time.Second
		if i%2 == 1 {
			c.Timeout = 150 * time.Millisecond
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			runHistoryClient(h, g, c, i, stop)
		}()
	}
	faults := nemesis(t, g, *historyDuration)
	close(stop)
	wg.Wait()
	g.Heal()
	for _, r := range g.Replicas {
		if r.trans == nil {
			require.NoError(t, g.Restart(r))
		}
	}
	// A last read after the faults: every acknowledged write is in it.
	call := h.now()
	var final Ledger
	require.NoError(t, g.Read(func(_ *durable.Cluster, l Ledger) error { final = l; return nil }))
	h.add(porcupine.Operation{ClientId: *historyClients, Input: opInput{read: true}, Call: call, Return: h.now(), Output: opOutput{ledger: final}})

	t.Logf("%d operations: %d writes acknowledged, %d unknown (%d retried), %d failed; %d reads, %d failed; faults: %v",
		len(h.ops), h.count.ok, h.count.unknown, h.count.retries, h.count.failed, h.count.reads, h.count.readFails, faults)
	assert.GreaterOrEqual(t, final.Applied, uint64(h.count.ok), "the final read holds every acknowledged write")
	require.Positive(t, h.count.ok)
	require.Positive(t, h.count.reads)

	res, info := porcupine.CheckOperationsVerbose(ledgerModel.ToModel(), h.ops, 30*time.Second)
	if res != porcupine.Ok {
		path := filepath.Join(os.TempDir(), fmt.Sprintf("ha-history-%d.html", time.Now().UnixNano()))
		if err := porcupine.VisualizePath(ledgerModel.ToModel(), info, path); err == nil {
			t.Logf("history visualised in %s", path)
		}
	}
	require.Equal(t, porcupine.Ok, res, "the history is not linearizable")

	// And the replicas agree with one another.
	seq := g.Running()[0].FSM.Cluster().Seq()
	for _, r := range g.Running() {
		seq = max(seq, r.FSM.Cluster().Seq())
	}
	require.NoError(t, g.WaitApplied(seq))
	var want string
	for _, r := range g.Running() {
		d, err := Digest(r.FSM.Cluster())
		require.NoError(t, err)
		if want == "" {
			want = d
		}
		assert.Equal(t, want, d, "%s", r.ID)
	}
}

// runHistoryClient reads or writes until stop. A write whose outcome is
// unknown is retried (the same command again) half the time: the two
// calls are one operation, invoked with the first and answered with the
// retry, since the request is applied at most once, between them.
func runHistoryClient(h *history, g *Group, c *Client, id int, stop <-chan struct{}) {
	rng := rand.New(rand.NewPCG(uint64(id), 7))
	w := smallWorkload(uint64(200+id), durable.Capacity)
	var unknown *porcupine.Operation // a write whose outcome is unknown
	var unknownCmd durable.Command
	settle := func() { // the unknown write is given up: it stays unknown
		if unknown != nil {
			h.add(*unknown)
			unknown = nil
		}
	}
	defer settle()
	for {
		select {
		case <-stop:
			return
		default:
		}
		call := h.now()
		if rng.IntN(10) < 3 {
			var l Ledger
			err := groupBackend{g: g}.readWithin(c.Timeout, func(_ *durable.Cluster, got Ledger) error { l = got; return nil })
			h.mu.Lock()
			h.count.reads++
			if err != nil {
				h.count.readFails++ // a read that failed saw nothing
				h.mu.Unlock()
				continue
			}
			h.mu.Unlock()
			h.add(porcupine.Operation{ClientId: id, Input: opInput{read: true}, Call: call, Return: h.now(), Output: opOutput{ledger: l}})
			continue
		}
		cmd, in := unknownCmd, opInput{session: c.Session(), seq: c.seq}
		retry := unknown != nil && rng.IntN(2) == 0
		if retry {
			call = unknown.Call
			h.mu.Lock()
			h.count.retries++
			h.mu.Unlock()
		} else {
			settle()
			cmd, in = w.Next(), opInput{session: c.Session(), seq: c.seq + 1}
		}
		unknown = nil
		r, callErr, err := c.Apply(cmd)
		op := porcupine.Operation{ClientId: id, Input: in, Call: call, Return: h.now(), Output: opOutput{pos: r.Seq}}
		h.mu.Lock()
		switch {
		case err == nil:
			h.count.ok++
			w.Observe(r, callErr)
		case errors.Is(err, ErrOutcomeUnknown) || retry:
			// A retry that did not get through leaves the first
			// attempt's outcome unknown.
			h.count.unknown++
			op.Output, op.Return = opOutput{unknown: true}, 1<<62
			unknown, unknownCmd = &op, cmd
			h.mu.Unlock()
			continue
		default:
			h.count.failed++ // not applied: left out of the history
			h.mu.Unlock()
			continue
		}
		h.mu.Unlock()
		h.add(op)
	}
}

// nemesis injects faults for d, one at a time with pauses between them,
// and returns how many of each it injected.
func nemesis(t *testing.T, g *Group, d time.Duration) map[string]int {
	rng := rand.New(rand.NewPCG(42, 43))
	done := map[string]int{}
	end := time.Now().Add(d)
	pause := func() { time.Sleep(time.Duration(100+rng.IntN(200)) * time.Millisecond) }
	for time.Now().Before(end) {
		pause()
		l, err := g.Leader()
		require.NoError(t, err)
		follower := otherThan(t, g, l)
		switch rng.IntN(4) {
		case 0:
			done["isolate leader"]++
			g.Partition(l)
			pause()
			g.Heal()
		case 1:
			done["isolate follower"]++
			g.Partition(follower)
			pause()
			g.Heal()
		case 2, 3:
			victim := l
			if rng.IntN(3) == 0 {
				victim = follower
			}
			if victim == l {
				done["kill leader"]++
			} else {
				done["kill follower"]++
			}
			require.NoError(t, g.Stop(victim))
			pause()
			require.NoError(t, g.Restart(victim))
		}
	}
	return done
}
