package journal

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCrashProperty runs random operations against a journal and a
// simple model: appends, syncs, snapshots, clean reopenings, and crashes
// (the Journal dropped without Close, so its buffer is lost). After every
// reopening the journal holds a prefix of what was appended that includes
// every record Synced reported, and replay returns exactly that prefix
// after the snapshot.
func TestCrashProperty(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			dir := t.TempDir()
			opts := Options{Sync: SyncMode(seed % 3), SyncEvery: 1 + rng.IntN(8), SyncInterval: int64(rng.IntN(50)),
				SegmentBytes: int64(256 + rng.IntN(4096)), BufferBytes: 64 + rng.IntN(2048)}
			j, err := Open(dir, opts)
			require.NoError(t, err)
			var appended uint64 // the model: records 1..appended were appended
			snap := uint64(0)
			now := int64(0)
			for step := range 600 {
				switch p := rng.IntN(100); {
				case p < 70:
					now += int64(rng.IntN(10))
					seq, err := j.Append(payload(j.Next()), now)
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
				case p < 92:
					require.NoError(t, j.Close())
					j, err = Open(dir, opts)
					require.NoError(t, err)
					assert.Equal(t, seqs(snap+1, appended), replayAll(t, j), "step %d: clean reopen keeps everything", step)
				default:
					// Crash: the process dies; what it had not handed to the
					// OS is lost, what it synced is not.
					synced := j.Synced()
					j.f.Close() // release the descriptor as the OS would
					j, err = Open(dir, opts)
					require.NoError(t, err, "step %d", step)
					got := replayAll(t, j)
					kept := j.Next() - 1
					assert.GreaterOrEqual(t, kept, synced, "step %d: synced records survive", step)
					assert.LessOrEqual(t, kept, appended)
					if kept > snap {
						assert.Equal(t, seqs(snap+1, kept), got, "step %d: a prefix survives", step)
					} else {
						assert.Empty(t, got)
					}
					assert.Equal(t, snap, j.SnapshotSeq())
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
	j, err := Open(dir, Options{})
	require.NoError(t, err)
	appendN(t, j, 10)
	require.NoError(t, j.WriteSnapshot(10, func(w io.Writer) error { _, err := w.Write([]byte("s10")); return err }))
	appendN(t, j, 5)
	require.NoError(t, j.Close())
	tmp := filepath.Join(dir, fmt.Sprintf("snap-%020d.snap.tmp", 15))
	require.NoError(t, os.WriteFile(tmp, []byte("half"), 0o644))
	j, err = Open(dir, Options{})
	require.NoError(t, err)
	defer j.Close()
	assert.Equal(t, uint64(10), j.SnapshotSeq())
	assert.Equal(t, seqs(11, 15), replayAll(t, j))
	_, err = os.Stat(tmp)
	assert.True(t, os.IsNotExist(err), "the interrupted snapshot is removed")
}
