package journal

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
)

// The lock test re-executes the test binary as a child that opens a
// journal; these variables tell it which and what to do.
const (
	envLockDir  = "BERTH_JOURNAL_LOCK_DIR"
	envLockMode = "BERTH_JOURNAL_LOCK_MODE" // "hold" or "try"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(envLockDir); dir != "" {
		os.Exit(lockChild(dir, os.Getenv(envLockMode)))
	}
	os.Exit(m.Run())
}

// lockChild opens dir: "hold" keeps it open until its stdin closes,
// "try" prints what Open said and exits.
func lockChild(dir, mode string) int {
	j, err := Open(dir, Options{SegmentBytes: 64 << 10})
	if mode == "try" {
		var le *LockedError
		if errors.As(err, &le) {
			fmt.Printf("locked pid=%d host=%s\n", le.PID, le.Host)
			return 0
		}
		fmt.Printf("opened err=%v\n", err)
		return 0
	}
	if err != nil {
		fmt.Println("error:", err)
		return 2
	}
	fmt.Println("holding")
	bufio.NewReader(os.Stdin).ReadString('\n')
	j.Close()
	return 0
}

// TestOneWriter: a second opener in the same process is refused with a
// typed error naming this process as the holder, read-only openers share
// the directory with each other and not with a writer, and Close
// releases it.
func TestOneWriter(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(dir, Options{SegmentBytes: 64 << 10})
	require.NoError(t, err)
	appendN(t, a, 3)

	_, err = Open(dir, Options{})
	var le *LockedError
	require.ErrorAs(t, err, &le)
	assert.ErrorIs(t, err, ErrLocked)
	host, _ := os.Hostname()
	assert.Equal(t, LockedError{Dir: dir, PID: os.Getpid(), Host: host}, *le)
	assert.Contains(t, err.Error(), fmt.Sprintf("process %d", os.Getpid()))
	_, err = Open(dir, Options{ReadOnly: true})
	assert.ErrorIs(t, err, ErrLocked, "a reader waits for the writer")

	// The refused openers changed nothing: the writer goes on.
	appendN(t, a, 2)
	require.NoError(t, a.Close())

	r1, err := Open(dir, Options{ReadOnly: true})
	require.NoError(t, err)
	r2, err := Open(dir, Options{ReadOnly: true})
	require.NoError(t, err, "readers share")
	assert.Equal(t, seqs(1, 5), replayAll(t, r2))
	_, err = Open(dir, Options{})
	assert.ErrorIs(t, err, ErrLocked, "a writer waits for the readers")
	_, err = r1.Append([]byte("x"), 0)
	assert.ErrorIs(t, err, ErrReadOnly)
	require.NoError(t, r1.Close())
	require.NoError(t, r2.Close())

	b, err := Open(dir, Options{})
	require.NoError(t, err, "closed journals release the directory")
	assert.Equal(t, seqs(1, 5), replayAll(t, b))
	require.NoError(t, b.Close())
}

// TestOneWriterAcrossProcesses: a journal held by another process is
// refused with its process id; a journal this process holds is refused
// to another; a holder killed (SIGKILL) releases it, whatever its LOCK
// file still says.
func TestOneWriterAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), envLockDir+"="+dir, envLockMode+"=hold")
	stdin, err := child.StdinPipe()
	require.NoError(t, err)
	stdout, err := child.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, child.Start())
	defer child.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "holding\n", line)

	_, err = Open(dir, Options{})
	var le *LockedError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, child.Process.Pid, le.PID, "the holder is named")

	require.NoError(t, child.Process.Kill())
	child.Wait()
	stdin.Close()
	assert.Contains(t, readFileString(t, dir, lockName), "pid "+strconv.Itoa(child.Process.Pid), "the dead holder's note stays")
	j, err := Open(dir, Options{})
	require.NoError(t, err, "the kernel released the dead holder's lock")
	defer j.Close()

	try := exec.Command(os.Args[0], "-test.run=^$")
	try.Env = append(os.Environ(), envLockDir+"="+dir, envLockMode+"=try")
	out, err := try.Output()
	require.NoError(t, err)
	host, _ := os.Hostname()
	assert.Equal(t, fmt.Sprintf("locked pid=%d host=%s\n", os.Getpid(), host), string(out))
}

func readFileString(t *testing.T, dir, name string) string { return string(readFile(t, dir, name)) }

// ackedJournal appends n records with fsync each (every one acknowledged)
// in 16 KiB segments, and closes the journal cleanly or drops it as a
// crash would.
func ackedJournal(t *testing.T, n int, clean bool) string {
	t.Helper()
	dir := t.TempDir()
	j, err := Open(dir, fast(Options{SegmentBytes: 16 << 10}))
	require.NoError(t, err)
	appendN(t, j, n)
	if clean {
		require.NoError(t, j.Close())
	} else {
		crash(j)
	}
	return dir
}

// TestTruncatedTailRefused: the last segment cut at random offsets, and
// the last segments deleted, after 1,500 acknowledged records: Open
// recovers all of them (the cut took only free space) or refuses with a
// LossError, never silently less; with AcceptTruncation it keeps the
// records before the cut, reports the loss, and the journal goes on.
func TestTruncatedTailRefused(t *testing.T) {
	const n = 1500
	for _, clean := range []bool{true, false} {
		t.Run(fmt.Sprintf("clean=%t", clean), func(t *testing.T) {
			src := ackedJournal(t, n, clean)
			segs := segFiles(t, src)
			require.Greater(t, len(segs), 4)
			last := filepath.Base(segs[len(segs)-1])
			full := readFile(t, src, last)
			ends := recordEnds(t, full)
			dataEnd := ends[len(ends)-1]
			rng := rand.New(rand.NewPCG(60, uint64(len(segs))))
			refused := 0
			for trial := range 30 { // twice: 60 offsets in all
				cut := rng.Int64N(int64(len(full)))
				if trial%2 == 0 { // half of them inside the records
					cut = rng.Int64N(dataEnd + 16)
				}
				dir := withFile(t, src, last, func(b []byte) []byte { return b[:cut] })
				j, err := Open(dir, fast(Options{}))
				if cut >= dataEnd+recHeaderSize {
					require.NoError(t, err, "cut at %d, in the free space after the records", cut)
					assert.Equal(t, uint64(n), j.Recovery().Last, "cut at %d", cut)
					require.NoError(t, j.Close())
					continue
				}
				refused++
				var lost *LossError
				require.ErrorAs(t, err, &lost, "cut at %d", cut)
				assert.ErrorIs(t, err, berth.ErrCorruptState)
				assert.Contains(t, err.Error(), last, "the message names the cut segment")
				kept := uint64(0)
				for i, e := range ends[1:] {
					if e <= cut {
						kept = uint64(i + 1)
					}
				}
				first, _ := strconv.ParseUint(last[4:24], 10, 64)
				assert.Equal(t, first-1+kept, lost.Last, "cut at %d", cut)

				j, err = Open(dir, fast(Options{AcceptTruncation: true}))
				require.NoError(t, err)
				assert.Equal(t, seqs(1, lost.Last), replayAll(t, j))
				assert.Equal(t, lost, j.Recovery().Lost)
				appendN(t, j, 2)
				require.NoError(t, j.Close())
				j, err = Open(dir, fast(Options{}))
				require.NoError(t, err, "the accepted loss is recorded: the next Open needs no leave")
				assert.Equal(t, seqs(1, lost.Last+2), replayAll(t, j))
				require.NoError(t, j.Close())
			}
			assert.Greater(t, refused, 12, "half the cuts or more reach the records")

			for k := 1; k <= 3; k++ {
				dir := copyDir(t, src)
				for _, s := range segs[len(segs)-k:] {
					require.NoError(t, os.Remove(filepath.Join(dir, filepath.Base(s))))
				}
				_, err := Open(dir, fast(Options{}))
				var lost *LossError
				require.ErrorAs(t, err, &lost, "the last %d segments deleted", k)
				assert.Contains(t, err.Error(), last, "the message names the newest segment")
				j, err := Open(dir, fast(Options{AcceptTruncation: true}))
				require.NoError(t, err)
				assert.Equal(t, lost.Last, j.Next()-1)
				assert.Equal(t, seqs(1, lost.Last), replayAll(t, j))
				require.NoError(t, j.Close())
			}
		})
	}
}

// TestMissingFilesRefused: a segment deleted in the middle, the first
// one, the manifest, or the snapshot the manifest names: each is a
// LossError naming what is missing, and AcceptTruncation keeps the
// records in order before the gap, setting the segments after it aside.
func TestMissingFilesRefused(t *testing.T) {
	src := ackedJournal(t, 600, true)
	segs := segFiles(t, src)
	require.GreaterOrEqual(t, len(segs), 3)
	for _, tc := range []struct {
		name    string
		remove  string
		keep    uint64 // records AcceptTruncation keeps
		message string
	}{
		{"middle segment", filepath.Base(segs[1]), segFirst(segs[1]) - 1, "are missing (between"},
		{"first segment", filepath.Base(segs[0]), 0, "is the first segment"},
		{"manifest", manifestName, 600, "MANIFEST is missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDir(t, src)
			require.NoError(t, os.Remove(filepath.Join(dir, tc.remove)))
			_, err := Open(dir, fast(Options{}))
			var lost *LossError
			require.ErrorAs(t, err, &lost)
			assert.Contains(t, err.Error(), tc.message)
			j, err := Open(dir, fast(Options{AcceptTruncation: true}))
			require.NoError(t, err)
			assert.Equal(t, seqs(1, tc.keep), replayAll(t, j))
			appendN(t, j, 1)
			require.NoError(t, j.Close())
			lostFiles, _ := filepath.Glob(filepath.Join(dir, "*.lost"))
			if tc.keep < 600 {
				assert.NotEmpty(t, lostFiles, "segments past the gap are set aside, not deleted")
			}
			j, err = Open(dir, fast(Options{}))
			require.NoError(t, err)
			assert.Equal(t, seqs(1, tc.keep+1), replayAll(t, j))
			require.NoError(t, j.Close())
		})
	}

	// The snapshot the manifest names.
	dir := t.TempDir()
	j, err := Open(dir, fast(Options{SegmentBytes: 4 << 10}))
	require.NoError(t, err)
	appendN(t, j, 100)
	require.NoError(t, j.WriteSnapshot(100, func(w io.Writer) error { _, err := w.Write([]byte("s")); return err }))
	appendN(t, j, 5)
	require.NoError(t, j.Close())
	require.NoError(t, os.Remove(filepath.Join(dir, snapName(100))))
	_, err = Open(dir, fast(Options{}))
	assert.ErrorIs(t, err, ErrLostRecords)
	assert.ErrorContains(t, err, snapName(100))
}

// TestCutHeaderWithoutManifest: a journal's one segment cut inside its
// header and marks, and its manifest deleted, is a loss: only a format 1
// segment, which grew as it was written, can be cut there by a crash (a
// format 2 or 3 one is created whole and renamed into place). It was
// taken for an interrupted first Open, and its records dropped silently.
func TestCutHeaderWithoutManifest(t *testing.T) {
	src := ackedJournal(t, 20, false)
	require.Len(t, segFiles(t, src), 1)
	for _, cut := range []int{9, segHeaderV2, markA + 100, segDataStart - 1} {
		dir := withFile(t, src, segName(1), func(b []byte) []byte { return b[:cut] })
		require.NoError(t, os.Remove(filepath.Join(dir, manifestName)))
		_, err := Open(dir, fast(Options{}))
		var lost *LossError
		require.ErrorAs(t, err, &lost, "cut at %d", cut)
		assert.Contains(t, err.Error(), segName(1)+" is cut inside its header")
	}
}

func segFirst(path string) uint64 {
	first, _ := strconv.ParseUint(strings.TrimSuffix(filepath.Base(path)[4:], ".wal"), 10, 64)
	return first
}

// TestMisplacedRecords: a record's sequence number is not stored, it is
// the segment's first plus the record's index, and each record's
// checksum covers it, so records moved within a segment (two swapped, one
// copied over its neighbour, one dropped and the rest shifted down) fail
// their check where they now stand. Open refuses every such segment (the
// records are acknowledged: process crash, no Close), as corruption or a
// loss, and never recovers another list of records.
func TestMisplacedRecords(t *testing.T) {
	src := t.TempDir()
	j, err := Open(src, fast(Options{}))
	require.NoError(t, err)
	for seq := uint64(1); seq <= 30; seq++ {
		_, err := j.Append([]byte(fmt.Sprintf("record %03d", seq)), 0) // records of one size
		require.NoError(t, err)
	}
	crash(j)
	full := readFile(t, src, segName(1))
	ends := recordEnds(t, full)
	rec := func(b []byte, i int) []byte { return b[ends[i]:ends[i+1]] } // the (i+1)th record
	for i := range 30 {
		k := (i + 1) % 30 // another record; the last's is the first
		changes := map[string]func(b []byte) []byte{
			"swapped": func(b []byte) []byte {
				a, c := bytes.Clone(rec(b, i)), bytes.Clone(rec(b, k))
				copy(rec(b, i), c)
				copy(rec(b, k), a)
				return b
			},
			"copied": func(b []byte) []byte { copy(rec(b, k), rec(b, i)); return b },
			"dropped": func(b []byte) []byte {
				copy(b[ends[i]:], b[ends[i+1]:ends[30]])
				clear(b[ends[30]-(ends[i+1]-ends[i]) : ends[30]])
				return b
			},
		}
		for _, name := range []string{"swapped", "copied", "dropped"} {
			dir := withFile(t, src, segName(1), changes[name])
			j, err := Open(dir, fast(Options{}))
			if err == nil {
				t.Errorf("record %d %s: recovered %v", i+1, name, replayAllAny(t, j))
				j.Close()
				continue
			}
			assert.ErrorIs(t, err, berth.ErrCorruptState, "record %d %s", i+1, name)
		}
	}
}

// TestRolledBackSegment: the last segment replaced by an older copy of
// itself (same size, fewer records: a restore from a backup, a file
// system rolled back) holds fewer records than the manifest says were
// synced, and Open says which are lost.
func TestRolledBackSegment(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, Options{SegmentBytes: 64 << 10})
	require.NoError(t, err)
	appendN(t, j, 10)
	require.NoError(t, j.Sync())
	seg := filepath.Base(segFiles(t, dir)[0])
	old := readFile(t, dir, seg)
	appendN(t, j, 10)
	require.NoError(t, j.Close())
	require.NoError(t, os.WriteFile(filepath.Join(dir, seg), old, 0o644))
	_, err = Open(dir, Options{})
	var lost *LossError
	require.ErrorAs(t, err, &lost)
	assert.Equal(t, LossError{Last: 10, Synced: 20, Problems: []string{"the manifest says records up to 20 were synced"}}, *lost)
	assert.Equal(t, "journal: records 11 to 20 were synced and are lost: the manifest says records up to 20 were synced", err.Error())
}

// TestFinalRecordFlip flips every bit of the final record, header
// included, of journals whose last records have assorted sizes: each
// flip is corruption (the record was acknowledged), never a torn tail
// cut without a word.
func TestFinalRecordFlip(t *testing.T) {
	for _, n := range []int{7, 30} { // final records of 55 and 26 bytes
		src := t.TempDir()
		j, err := Open(src, Options{SegmentBytes: 64 << 10})
		require.NoError(t, err)
		appendN(t, j, n)
		require.NoError(t, j.Close())
		seg := filepath.Base(segFiles(t, src)[0])
		ends := recordEnds(t, readFile(t, src, seg))
		path := filepath.Join(src, seg)
		for pos := ends[n-1]; pos < ends[n]; pos++ {
			for bit := range 8 {
				err := openFlipped(t, src, path, pos, bit)
				require.Error(t, err, "%d records, bit %d of byte %d", n, bit, pos)
				assert.ErrorIs(t, err, berth.ErrCorruptState)
				assert.NotErrorIs(t, err, ErrTornTail, "%d records, bit %d of byte %d", n, bit, pos)
				assert.NotErrorIs(t, err, ErrLostRecords)
			}
		}
		j, err = Open(src, fast(Options{}))
		require.NoError(t, err, "the directory is intact after the refusals")
		assert.Equal(t, seqs(1, uint64(n)), replayAll(t, j))
		require.NoError(t, j.Close())
	}
}

// openFlipped opens the journal in dir with one bit of file path flipped,
// and flips it back: Open must refuse, and a refusal changes nothing.
func openFlipped(t *testing.T, dir, path string, pos int64, bit int) error {
	t.Helper()
	flipBit(t, path, pos, bit)
	defer flipBit(t, path, pos, bit)
	j, err := Open(dir, fast(Options{}))
	if err == nil {
		j.Close()
	}
	return err
}

// flipBit flips one bit of a file in place.
func flipBit(t *testing.T, path string, pos int64, bit int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	b := make([]byte, 1)
	_, err = f.ReadAt(b, pos)
	require.NoError(t, err)
	b[0] ^= 1 << bit
	_, err = f.WriteAt(b, pos)
	require.NoError(t, err)
}

// TestTornWrite: a crash in the middle of writing the last records leaves
// their sectors from some point on unwritten (zeros); recovery keeps every
// whole record before it, keeps the torn bytes in a .torn file, reports
// them, and appends after the cut. When the zeros differ from the lost
// bytes by a single bit, a flip explains them as well as a tear, and
// recovery refuses rather than guess.
func TestTornWrite(t *testing.T) {
	src := t.TempDir()
	j, err := Open(src, fast(Options{SegmentBytes: 64 << 10, Sync: SyncNever}))
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(3, 3))
	for range 80 {
		p := make([]byte, 1+rng.IntN(700))
		for i := range p {
			p[i] = byte(rng.Uint32())
		}
		_, err := j.Append(p, 0)
		require.NoError(t, err)
	}
	require.NoError(t, j.Close())
	seg := filepath.Base(segFiles(t, src)[0])
	full := readFile(t, src, seg)
	ends := recordEnds(t, full)
	dataEnd := ends[len(ends)-1]
	torn, refused := 0, 0
	for b := (ends[20]/sectorSize + 1) * sectorSize; b < dataEnd; b += sectorSize {
		kept := 0
		for i, e := range ends[1:] {
			if e <= b {
				kept = i + 1
			}
		}
		// A crash before the Close that synced the records, marked them
		// and wrote the manifest.
		dir := withFile(t, src, seg, func(d []byte) []byte {
			clear(d[b:dataEnd])
			clear(d[markA : markB+markSize])
			return d
		})
		require.NoError(t, os.Remove(filepath.Join(dir, manifestName)))
		rewriteManifest(t, dir, manifest{segment: 1, synced: uint64(kept)})
		lostBits := 0
		for _, c := range full[b:min(dataEnd, ends[kept+1])] {
			lostBits += popcount(c)
		}
		j, err := Open(dir, fast(Options{}))
		if lostBits == 1 {
			assert.ErrorIs(t, err, berth.ErrCorruptState, "one bit lost at %d reads as a flip", b)
			refused++
			continue
		}
		require.NoError(t, err, "torn at %d", b)
		torn++
		r := j.Recovery()
		assert.Equal(t, uint64(kept), r.Last, "torn at %d", b)
		assert.Equal(t, b-ends[kept], r.TornBytes)
		assert.Equal(t, fmt.Sprintf("%s.%d.torn", seg, ends[kept]), r.TornFile)
		assert.Equal(t, full[ends[kept]:b], readFile(t, dir, r.TornFile), "the torn bytes are kept")
		assert.Equal(t, seqs(1, uint64(kept)), replayAllAny(t, j))
		_, err = j.Append([]byte("after"), 0)
		require.NoError(t, err)
		require.NoError(t, j.Close())
		j, err = Open(dir, fast(Options{}))
		require.NoError(t, err)
		assert.Equal(t, uint64(kept+1), j.Recovery().Last, "appends continue after the cut")
		assert.Zero(t, j.Recovery().TornBytes, "the cut was made durable")
		require.NoError(t, j.Close())
	}
	assert.Greater(t, torn, 20)
	t.Logf("%d tears cut, %d single-bit losses refused", torn, refused)
}

func popcount(b byte) int {
	n := 0
	for ; b != 0; b &= b - 1 {
		n++
	}
	return n
}

// replayAllAny replays records of any payload.
func replayAllAny(t *testing.T, j *Journal) []uint64 {
	t.Helper()
	var got []uint64
	require.NoError(t, j.Replay(func(seq uint64, _ []byte) error { got = append(got, seq); return nil }))
	return got
}

func rewriteManifest(t *testing.T, dir string, m manifest) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, manifestName), m.encode(), 0o644))
}

// TestDamagedManifest: a manifest that fails its checksum is corruption;
// AcceptTruncation goes on as without one, keeps every record, and
// writes a new one.
func TestDamagedManifest(t *testing.T) {
	src := ackedJournal(t, 100, true)
	dir := withFile(t, src, manifestName, func(b []byte) []byte { b[20] ^= 4; return b })
	_, err := Open(dir, fast(Options{}))
	assert.ErrorIs(t, err, berth.ErrCorruptState)
	assert.ErrorContains(t, err, manifestName)
	j, err := Open(dir, fast(Options{AcceptTruncation: true}))
	require.NoError(t, err)
	assert.Equal(t, seqs(1, 100), replayAll(t, j))
	require.NotNil(t, j.Recovery().Lost)
	require.NoError(t, j.Close())
	j, err = Open(dir, fast(Options{}))
	require.NoError(t, err, "a new manifest was written")
	require.NoError(t, j.Close())
}

// TestLockFileDamage: the LOCK file is a note for people, not the lock:
// an operator who deletes it as stale while the writer runs, or empties
// it, does not let a second writer in; a directory without one (a
// journal an older build wrote, a read-only copy) opens read-only.
func TestLockFileDamage(t *testing.T) {
	t.Run("deleted while held", func(t *testing.T) {
		dir := t.TempDir()
		a, err := Open(dir, fast(Options{}))
		require.NoError(t, err)
		defer a.Close()
		appendN(t, a, 3)
		require.NoError(t, os.Remove(filepath.Join(dir, lockName)))
		_, err = Open(dir, fast(Options{}))
		assert.ErrorIs(t, err, ErrLocked, "a second writer while the first runs")
		_, err = Open(dir, fast(Options{ReadOnly: true}))
		assert.ErrorIs(t, err, ErrLocked, "a reader while the writer runs")
		appendN(t, a, 2)
	})
	t.Run("garbage", func(t *testing.T) {
		dir := t.TempDir()
		a, err := Open(dir, fast(Options{}))
		require.NoError(t, err)
		defer a.Close()
		require.NoError(t, os.WriteFile(filepath.Join(dir, lockName), []byte("pid -1 host\x00\xff pid x"), 0o644))
		_, err = Open(dir, fast(Options{}))
		var le *LockedError
		require.ErrorAs(t, err, &le)
		assert.Equal(t, dir, le.Dir)
	})
	t.Run("missing, read-only", func(t *testing.T) {
		dir := t.TempDir()
		a, err := Open(dir, fast(Options{}))
		require.NoError(t, err)
		appendN(t, a, 4)
		require.NoError(t, a.Close())
		require.NoError(t, os.Remove(filepath.Join(dir, lockName)))
		r, err := Open(dir, Options{ReadOnly: true})
		require.NoError(t, err, "a reader needs no LOCK file")
		assert.Equal(t, seqs(1, 4), replayAll(t, r))
		_, err = Open(dir, fast(Options{}))
		assert.ErrorIs(t, err, ErrLocked, "the reader still keeps writers out")
		require.NoError(t, r.Close())
		_, err = os.Stat(filepath.Join(dir, lockName))
		assert.True(t, os.IsNotExist(err), "a reader creates nothing")
	})
}

// TestOpenersRace: writers in six goroutines race to open one directory,
// each taking turns to append 25 records and close: at any time one
// holds it (the others get ErrLocked and try again), so every record is
// kept, in order, and none is written twice over.
func TestOpenersRace(t *testing.T) {
	dir := t.TempDir()
	const writers, each = 6, 25
	var wg sync.WaitGroup
	var holders atomic.Int32
	errs := make(chan error, writers*(each+2)) // room for every error a writer can send
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j, err := Open(dir, fast(Options{SegmentBytes: 4 << 10}))
				if errors.Is(err, ErrLocked) {
					runtime.Gosched()
					continue
				}
				if err != nil {
					errs <- err
					return
				}
				if n := holders.Add(1); n != 1 {
					errs <- fmt.Errorf("%d writers hold the directory", n)
				}
				for range each {
					if _, err := j.Append(payload(j.Next()), 0); err != nil {
						errs <- err
					}
				}
				holders.Add(-1)
				if err := j.Close(); err != nil {
					errs <- err
				}
				return
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	j, err := Open(dir, Options{ReadOnly: true})
	require.NoError(t, err)
	defer j.Close()
	assert.Equal(t, seqs(1, writers*each), replayAll(t, j))
}

// TestMarksProveLoss: after a crash of the process (no Close, so the
// manifest knows only what the first Open synced), the last segment's
// records zeroed in place from a record boundary on, are refused as a
// loss of the records the segment's synced marks say were synced. Without
// the marks it read as records never written, and Open gave back fewer
// records without a word. (After a machine crash the mark of the last
// group commit may be lost with it: the marks then prove the commits
// before it.) A segment replaced whole by an older copy of itself holds
// older marks too, and is not noticed after a crash (after a Close, the
// manifest notices it: TestRolledBackSegment).
func TestMarksProveLoss(t *testing.T) {
	for _, opts := range []Options{{Sync: SyncAlways}, {Sync: SyncBatch, SyncEvery: 8}} {
		t.Run(fmt.Sprint(opts.Sync), func(t *testing.T) {
			src := t.TempDir()
			opts.SegmentBytes = 64 << 10
			j, err := Open(src, fast(opts))
			require.NoError(t, err)
			appendN(t, j, 20)
			old := readFile(t, src, segName(1))
			appendN(t, j, 20)
			require.Equal(t, uint64(40), j.Synced())
			crash(j)
			ends := recordEnds(t, readFile(t, src, segName(1)))

			for _, keep := range []int{0, 10, 25, 39} {
				dir := withFile(t, src, segName(1), func(b []byte) []byte { clear(b[ends[keep]:]); return b })
				_, err := Open(dir, fast(opts))
				var lost *LossError
				require.ErrorAs(t, err, &lost, "records after %d zeroed", keep)
				assert.Equal(t, LossError{Last: uint64(keep), Synced: 40, Problems: []string{
					fmt.Sprintf("%s holds records up to %d, its mark says records up to 40 were synced", segName(1), keep)}}, *lost)
			}
			// A segment replaced whole by an older copy carries the older
			// marks: nothing proves the loss.
			dir := withFile(t, src, segName(1), func([]byte) []byte { return old })
			j, err = Open(dir, fast(opts))
			require.NoError(t, err)
			assert.Equal(t, uint64(len(recordEnds(t, old))-1), j.Recovery().Last)
			require.NoError(t, j.Close())

			// Accepted, the loss is recorded: the marks come down.
			dir = withFile(t, src, segName(1), func(b []byte) []byte { clear(b[ends[20]:]); return b })
			j, err = Open(dir, fast(Options{AcceptTruncation: true}))
			require.NoError(t, err)
			appendN(t, j, 1)
			crash(j)
			j, err = Open(dir, fast(Options{}))
			require.NoError(t, err, "the next Open needs no leave")
			assert.Equal(t, seqs(1, 21), replayAll(t, j))
			require.NoError(t, j.Close())
		})
	}
}
