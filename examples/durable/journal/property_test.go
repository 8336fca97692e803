package journal_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	. "github.com/berthsched/berth/examples/durable/journal"
	"github.com/berthsched/berth/examples/durable/journal/journaltest"
)

// TestCrashProperty runs random operations against a journal and a
// simple model: appends, syncs, snapshots, clean reopenings, and crashes
// of the process (what was written survives, the buffer does not) or of
// the machine (only what was fsynced survives, with some sectors of what
// was being written). After every reopening the journal recovers without
// a refusal a prefix of what was appended that includes every record
// Synced reported, and replay returns exactly that prefix after the
// snapshot.
func TestCrashProperty(t *testing.T) {
	for seed := uint64(1); seed <= 9; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			dir := t.TempDir()
			fsys := &journaltest.FaultFS{}
			fsys.NoDiskSync(true)
			opts := Options{Sync: SyncMode(seed % 3), SyncEvery: 1 + rng.IntN(8), SyncInterval: int64(rng.IntN(50)),
				SegmentBytes: int64(256 + rng.IntN(4096)), BufferBytes: 64 + rng.IntN(2048), FS: fsys}
			j, err := Open(dir, opts)
			require.NoError(t, err)
			var appended uint64 // the model: records 1..appended were appended
			snap := uint64(0)
			now := int64(0)
			for step := range 400 {
				switch p := rng.IntN(100); {
				case p < 70:
					now += int64(rng.IntN(10))
					seq, err := j.Append(Payload(j.Next()), now)
					require.NoError(t, err)
					require.Equal(t, appended+1, seq)
					appended = seq
				case p < 75:
					require.NoError(t, j.Tick(now))
				case p < 80:
					require.NoError(t, j.Sync())
					require.Equal(t, appended, j.Synced())
				case p < 85:
					require.NoError(t, j.WriteSnapshot(appended, func(w io.Writer) error {
						_, err := fmt.Fprintf(w, "state@%d", appended)
						return err
					}))
					snap = appended
				case p < 90:
					require.NoError(t, j.Close())
					j, err = Open(dir, opts)
					require.NoError(t, err)
					assert.Equal(t, Seqs(snap+1, appended), ReplayAll(t, j), "step %d: clean reopen keeps everything", step)
				default:
					synced := j.Synced()
					machine := rng.IntN(2) == 0
					if machine {
						fsys.CrashMachine(rng)
					} else {
						fsys.CrashProcess()
					}
					j, err = Open(dir, opts)
					require.NoError(t, err, "step %d: crash of the machine %t", step, machine)
					got := ReplayAll(t, j)
					kept := j.Next() - 1
					assert.GreaterOrEqual(t, kept, synced, "step %d: synced records survive", step)
					assert.LessOrEqual(t, kept, appended)
					if kept > snap {
						assert.Equal(t, Seqs(snap+1, kept), got, "step %d: a prefix survives", step)
					} else {
						assert.Empty(t, got)
					}
					assert.Equal(t, snap, j.SnapshotSeq())
					assert.Nil(t, j.Recovery().Lost)
					appended = kept
				}
			}
			require.NoError(t, j.Close())
		})
	}
}

// TestInterruptedSnapshot: a snapshot a crash interrupted before its
// rename (a .tmp file) is ignored and removed; the previous one stands.
func TestInterruptedSnapshot(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, Options{SegmentBytes: 64 << 10})
	require.NoError(t, err)
	AppendN(t, j, 10)
	require.NoError(t, j.WriteSnapshot(10, func(w io.Writer) error { _, err := w.Write([]byte("s10")); return err }))
	AppendN(t, j, 5)
	require.NoError(t, j.Close())
	tmp := filepath.Join(dir, fmt.Sprintf("snap-%020d.snap.tmp", 15))
	require.NoError(t, os.WriteFile(tmp, []byte("half"), 0o644))
	j, err = Open(dir, Options{})
	require.NoError(t, err)
	defer j.Close()
	assert.Equal(t, uint64(10), j.SnapshotSeq())
	assert.Equal(t, Seqs(11, 15), ReplayAll(t, j))
	_, err = os.Stat(tmp)
	assert.True(t, os.IsNotExist(err), "the interrupted snapshot is removed")
}
