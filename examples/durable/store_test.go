package durable

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/examples/durable/journal"
	"github.com/berthsched/berth/examples/durable/journal/journaltest"
)

// quick is journal options on a file system that does not wait for the
// disk (fsync is a no-op, crashes are simulated), in small segments.
func quick() (journal.Options, *journaltest.FaultFS) {
	fsys := &journaltest.FaultFS{}
	fsys.NoDiskSync(true)
	return journal.Options{SegmentBytes: 16 << 10, FS: fsys}, fsys
}

// filled opens a Store of kind k in a new directory, in 8 KiB segments
// on a quick file system, and applies the first n commands of workload
// seed through it.
func filled(t *testing.T, k SchedulerKind, seed uint64, n int) (string, *Store, journal.Options, *journaltest.FaultFS) {
	t.Helper()
	opts, fsys := quick()
	opts.SegmentBytes = 8 << 10
	dir := t.TempDir()
	st, err := Open(dir, demo(t, k), opts)
	require.NoError(t, err)
	applied(t, st, seed, n)
	return dir, st, opts, fsys
}

// applied runs n workload commands through st and returns their stream.
func applied(t *testing.T, st *Store, seed uint64, n int) {
	t.Helper()
	w := smallWorkload(seed, st.Cluster().cfg.Scheduler)
	for range n {
		r, err := st.Apply(w.Next())
		require.NotZero(t, r.Seq, "journal: %v", err)
		w.Observe(r, err)
	}
}

// reference is a Cluster that applied the first n commands of the
// workload directly.
func reference(t *testing.T, k SchedulerKind, seed uint64, n uint64) *Cluster {
	t.Helper()
	c, err := New(demo(t, k))
	require.NoError(t, err)
	w := smallWorkload(seed, k)
	for range n {
		w.Observe(c.Apply(w.Next()))
	}
	return c
}

// TestStoreOneWriter: two Stores on one directory, the trial that lost
// acknowledged commands: the second is refused, names this process, and
// the first goes on.
func TestStoreOneWriter(t *testing.T) {
	dir := t.TempDir()
	opts, _ := quick()
	cfg := demo(t, Fair)
	a, err := Open(dir, cfg, opts)
	require.NoError(t, err)
	applied(t, a, 1, 50)
	_, err = Open(dir, cfg, opts)
	var le *journal.LockedError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, os.Getpid(), le.PID)
	applied(t, a, 2, 50)
	require.NoError(t, a.Close())
	b, err := Open(dir, cfg, opts)
	require.NoError(t, err)
	assert.Equal(t, uint64(100), b.Cluster().Seq())
	require.NoError(t, b.Close())
}

// TestStoreLostTail: 1,500 acknowledged commands, then the last segment
// cut inside its records or deleted: Open refuses with a LossError
// rather than recover fewer commands without a word; with
// AcceptTruncation it recovers exactly the commands that are left.
func TestStoreLostTail(t *testing.T) {
	const n = 1500
	cfg := demo(t, Capacity)
	src, st, opts, _ := filled(t, Capacity, 3, n)
	require.NoError(t, st.Close())
	segs, _ := filepath.Glob(filepath.Join(src, "seg-*.wal"))
	sort.Strings(segs)
	require.Greater(t, len(segs), 2)
	last := filepath.Base(segs[len(segs)-1])
	data, err := os.ReadFile(segs[len(segs)-1])
	require.NoError(t, err)
	end := len(data)
	for end > 0 && data[end-1] == 0 {
		end--
	}
	rng := rand.New(rand.NewPCG(1500, 1))
	for trial := range 6 {
		dir := t.TempDir()
		copyFiles(t, src, dir)
		if trial == 5 {
			require.NoError(t, os.Remove(filepath.Join(dir, last)))
		} else {
			require.NoError(t, os.Truncate(filepath.Join(dir, last), 40+rng.Int64N(int64(end))))
		}
		_, err := Open(dir, cfg, opts)
		var lost *journal.LossError
		require.ErrorAs(t, err, &lost, "trial %d", trial)
		assert.Contains(t, err.Error(), last)

		accept := opts
		accept.AcceptTruncation = true
		st, err := Open(dir, cfg, accept)
		require.NoError(t, err)
		assert.Equal(t, lost.Last, st.Cluster().Seq())
		assert.Equal(t, lost, st.Recovery().Lost)
		assertSameState(t, reference(t, Capacity, 3, lost.Last), st.Cluster(), fmt.Sprintf("trial %d", trial))
		require.NoError(t, st.Close())
	}
}

func copyFiles(t *testing.T, src, dst string) {
	t.Helper()
	ents, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644))
	}
}

// TestSnapshotDamageIsCorruption flips random bits of a checkpoint's
// snapshot: each is reported as corruption naming the snapshot file, never
// as a Config mismatch (which some flips decoded to), while an intact
// snapshot with another Config still is one.
func TestSnapshotDamageIsCorruption(t *testing.T) {
	cfg := demo(t, Capacity)
	src, st, opts, _ := filled(t, Capacity, 3, 400)
	require.NoError(t, st.Checkpoint())
	require.NoError(t, st.Close())
	snaps, _ := filepath.Glob(filepath.Join(src, "snap-*.snap"))
	require.Len(t, snaps, 1)
	name := filepath.Base(snaps[0])
	full, err := os.ReadFile(snaps[0])
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(4, 4))
	for range 40 {
		dir := t.TempDir()
		copyFiles(t, src, dir)
		bad := append([]byte(nil), full...)
		bad[rng.IntN(len(bad))] ^= 1 << rng.IntN(8)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), bad, 0o644))
		_, err := Open(dir, cfg, opts)
		require.Error(t, err)
		assert.ErrorIs(t, err, berth.ErrCorruptState)
		assert.NotErrorIs(t, err, berth.ErrInvalidArgument, "damage reported as a Config mismatch")
		assert.Contains(t, err.Error(), name)
	}
	_, err = Open(src, demo(t, Fair), opts)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument, "an intact snapshot of another Config")
	assert.NotErrorIs(t, err, berth.ErrCorruptState)
}

// TestApplySyncFailure: an fsync that fails under SyncAlways leaves the
// command's outcome unknown: Apply says so and does not apply it, the
// Store refuses what follows, and the reopened Store holds what reached
// the disk (the command, after a process crash that kept the page cache;
// the command or not, after a machine crash), in the state a Cluster that
// applied as many commands has.
func TestApplySyncFailure(t *testing.T) {
	for _, machine := range []bool{false, true} {
		t.Run(fmt.Sprintf("machine=%t", machine), func(t *testing.T) {
			cfg := demo(t, Fair)
			dir, st, opts, fsys := filled(t, Fair, 5, 200)
			fsys.FailSync(syscall.EIO)
			w := smallWorkload(5, Fair)
			ref := reference(t, Fair, 5, 0)
			for range 200 {
				w.Observe(ref.Apply(w.Next()))
			}
			_, err := st.Apply(w.Next())
			assert.ErrorIs(t, err, journal.ErrSyncFailed)
			assert.ErrorIs(t, err, syscall.EIO)
			assert.Contains(t, err.Error(), "command 201")
			assert.Equal(t, uint64(200), st.Cluster().Seq(), "the Cluster does not hold it")
			fsys.FailSync(nil)
			_, err = st.Apply(AdvanceClock{To: st.Cluster().Now() + 1})
			assert.ErrorIs(t, err, journal.ErrFailed)
			assert.NotErrorIs(t, err, journal.ErrSyncFailed, "this one was certainly not recorded")
			assert.Equal(t, uint64(200), st.Cluster().Seq())
			require.NoError(t, st.Close())

			if machine {
				fsys.CrashMachine(rand.New(rand.NewPCG(2, 2)))
			} else {
				fsys.CrashProcess()
			}
			st, err = Open(dir, cfg, opts)
			require.NoError(t, err)
			got := st.Cluster().Seq()
			if !machine {
				assert.Equal(t, uint64(201), got)
			}
			assert.Contains(t, []uint64{200, 201}, got)
			assertSameState(t, reference(t, Fair, 5, got), st.Cluster(), "after the reopening")
			require.NoError(t, st.Close())
		})
	}
}
