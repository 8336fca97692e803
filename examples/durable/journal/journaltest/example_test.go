package journaltest_test

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/berthsched/berth/examples/durable/journal"
	"github.com/berthsched/berth/examples/durable/journal/journaltest"
)

// A journal on a disk that fills up: appends go on inside the segment
// whose space was allocated, and the one that needs a new segment fails
// with ENOSPC without stopping the journal.
func Example() {
	dir, err := os.MkdirTemp("", "berth-journaltest")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	fsys := &journaltest.FaultFS{}
	fsys.NoDiskSync(true) // the test need not wait for the disk
	j, err := journal.Open(dir, journal.Options{SegmentBytes: 8 << 10, FS: fsys})
	if err != nil {
		panic(err)
	}
	defer j.Close()
	fsys.SetFull(true)
	record := make([]byte, 1000)
	for {
		seq, err := j.Append(record, 0)
		if errors.Is(err, syscall.ENOSPC) {
			fmt.Printf("record %d: the disk is full\n", j.Next())
			break
		}
		fmt.Printf("record %d appended\n", seq)
	}
	fsys.SetFull(false)
	seq, err := j.Append(record, 0)
	fmt.Printf("record %d appended once there is room: %v\n", seq, err)
	// Output:
	// record 1 appended
	// record 2 appended
	// record 3 appended
	// record 4 appended
	// record 5 appended
	// record 6 appended
	// record 7: the disk is full
	// record 7 appended once there is room: <nil>
}
