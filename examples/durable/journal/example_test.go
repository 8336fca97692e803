package journal_test

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/berthsched/berth/examples/durable/journal"
)

// Records are appended, a snapshot truncates the journal, and a reopening
// replays what came after the snapshot and reports what it recovered. A
// second opener of the directory is refused while the first has it.
func Example() {
	dir, err := os.MkdirTemp("", "berth-journal")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	opts := journal.Options{Sync: journal.SyncBatch, SyncEvery: 2, SegmentBytes: 1 << 20}
	j, err := journal.Open(dir, opts)
	if err != nil {
		panic(err)
	}
	for _, rec := range []string{"add n1", "submit app1", "heartbeat n1"} {
		seq, err := j.Append([]byte(rec), 0)
		if err != nil {
			panic(err)
		}
		fmt.Printf("appended %d, durable up to %d\n", seq, j.Synced())
	}
	if _, err := journal.Open(dir, opts); errors.Is(err, journal.ErrLocked) {
		fmt.Println("a second opener is refused")
	}
	if err := j.WriteSnapshot(3, func(w io.Writer) error {
		_, err := io.WriteString(w, "state after 3")
		return err
	}); err != nil {
		panic(err)
	}
	if _, err := j.Append([]byte("heartbeat n1"), 0); err != nil {
		panic(err)
	}
	j.Close()

	j, err = journal.Open(dir, opts)
	if err != nil {
		panic(err)
	}
	defer j.Close()
	r := j.Recovery()
	fmt.Printf("recovered records %d to %d after snapshot %d, %d torn bytes cut\n", r.First, r.Last, r.Snapshot, r.TornBytes)
	rc, seq, _, _ := j.OpenSnapshot()
	state, _ := io.ReadAll(rc) // reading to the end checks the snapshot's checksum
	rc.Close()
	fmt.Printf("snapshot %d: %s\n", seq, state)
	j.Replay(func(seq uint64, rec []byte) error {
		fmt.Printf("replay %d: %s\n", seq, rec)
		return nil
	})
	// Output:
	// appended 1, durable up to 0
	// appended 2, durable up to 2
	// appended 3, durable up to 2
	// a second opener is refused
	// recovered records 4 to 4 after snapshot 3, 0 torn bytes cut
	// snapshot 3: state after 3
	// replay 4: heartbeat n1
}
