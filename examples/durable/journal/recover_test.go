package journal

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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

func segFirst(path string) uint64 {
	first, _ := strconv.ParseUint(strings.TrimSuffix(filepath.Base(path)[4:], ".wal"), 10, 64)
	return first
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
		dir := withFile(t, src, seg, func(d []byte) []byte { clear(d[b:dataEnd]); return d })
		require.NoError(t, os.Remove(filepath.Join(dir, manifestName))) // a crash before the Close that wrote it
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
