package journal_test

import (
	"fmt"
	"io"
	"os"

	"github.com/berthsched/berth/examples/durable/journal"
)

// Records are appended, a snapshot truncates the journal, and a reopening
// replays what came after the snapshot.
func Example() {
	dir, err := os.MkdirTemp("", "berth-journal")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	j, err := journal.Open(dir, journal.Options{Sync: journal.SyncBatch, SyncEvery: 2})
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

	j, err = journal.Open(dir, journal.Options{})
	if err != nil {
		panic(err)
	}
	defer j.Close()
	rc, seq, _, _ := j.OpenSnapshot()
	state, _ := io.ReadAll(rc)
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
	// snapshot 3: state after 3
	// replay 4: heartbeat n1
}
