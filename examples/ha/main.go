package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/berthsched/berth/examples/durable"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := runMain(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "ha:", err)
		}
		os.Exit(1)
	}
}

// run is the demo: three replicas, a stream of commands through the
// leader, the leader killed half-way, a new leader carrying on, the old
// one restarted and caught up from a snapshot.
func run(out io.Writer, kind durable.SchedulerKind) error {
	cfg, err := durable.DemoConfig(kind)
	if err != nil {
		return err
	}
	g, err := NewGroup(3, cfg)
	if err != nil {
		return err
	}
	defer g.Shutdown()
	l, err := g.Leader()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "three replicas up; leader %s\n", l.ID)
	w := durable.NewWorkload(1, kind)
	w.Nodes, w.Apps = 24, 16
	containers := 0
	step := func(n int) error {
		for range n {
			r, callErr, err := g.Apply(w.Next())
			if err != nil {
				return err
			}
			containers += len(r.Allocations)
			w.Observe(r, callErr)
		}
		return nil
	}
	if err := step(1500); err != nil {
		return err
	}
	seq := l.FSM.Cluster().Seq()
	fmt.Fprintf(out, "%d commands committed, %d containers allocated; snapshotting the leader's log\n", seq, containers)
	if err := l.Raft.Snapshot().Error(); err != nil {
		return err
	}
	fmt.Fprintf(out, "killing leader %s\n", l.ID)
	if err := g.Stop(l); err != nil {
		return err
	}
	nl, err := g.Leader()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "new leader %s at command %d\n", nl.ID, nl.FSM.Cluster().Seq())
	if err := step(1500); err != nil {
		return err
	}
	if err := nl.Raft.Snapshot().Error(); err != nil {
		return err
	}
	if err := step(100); err != nil {
		return err
	}
	fmt.Fprintf(out, "restarting %s\n", l.ID)
	if err := g.Restart(l); err != nil {
		return err
	}
	seq = nl.FSM.Cluster().Seq()
	if err := g.WaitApplied(seq); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s caught up to command %d (snapshots installed: %d); %d containers allocated in all\n",
		l.ID, l.FSM.Cluster().Seq(), l.FSM.Restores(), containers)
	digests := map[string]bool{}
	for _, r := range g.Running() {
		d, err := Digest(r.FSM.Cluster())
		if err != nil {
			return err
		}
		digests[d] = true
		fmt.Fprintf(out, "  %s: command %d, state digest %s\n", r.ID, r.FSM.Cluster().Seq(), d[:16])
	}
	if len(digests) != 1 {
		return fmt.Errorf("replicas disagree")
	}
	fmt.Fprintln(out, "all replicas agree")
	return nil
}
