package journal

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// BenchmarkAppend appends 16-byte records (the size of a typical encoded
// command) under each sync mode: SyncNever is the cost of the journal
// itself, SyncBatch amortises one fsync over 64 records, SyncAlways pays
// an fsync per record (dominated by the disk).
func BenchmarkAppend(b *testing.B) {
	rec := make([]byte, 16)
	for _, m := range []struct {
		name string
		opts Options
	}{
		{"never", Options{Sync: SyncNever}},
		{"batch64", Options{Sync: SyncBatch, SyncEvery: 64}},
		{"always", Options{Sync: SyncAlways}},
	} {
		b.Run(m.name, func(b *testing.B) {
			j, err := Open(b.TempDir(), m.opts)
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := j.Append(rec, int64(i)); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkRecover opens a journal of 1,000,000 records of 11 bytes (19
// with their framing: the mean of encoded workload commands) in 64 MiB
// segments and replays it: the journal's share of a recovery, every
// segment read, every record checked, the free space after the last one
// scanned. BERTH_RECOVER_N sets another length.
func BenchmarkRecover(b *testing.B) {
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("BERTH_RECOVER_N")); err == nil && v > 0 {
		n = v
	}
	dir := b.TempDir()
	j, err := Open(dir, Options{Sync: SyncNever})
	if err != nil {
		b.Fatal(err)
	}
	rec := make([]byte, 11)
	for i := range n {
		rec[0] = byte(i)
		if _, err := j.Append(rec, 0); err != nil {
			b.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		b.Fatal(err)
	}
	bytes := float64(n) * float64(len(rec)+recHeaderSize)
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	for i := 0; i < b.N; i++ {
		j, err := Open(dir, Options{Sync: SyncNever})
		if err != nil {
			b.Fatal(err)
		}
		got := 0
		if err := j.Replay(func(uint64, []byte) error { got++; return nil }); err != nil || got != n {
			b.Fatalf("replayed %d of %d: %v", got, n, err)
		}
		j.Close()
	}
	el := time.Since(start).Seconds() / float64(b.N)
	cpu := (cpuTime() - cpu0).Seconds() / float64(b.N)
	b.ReportMetric(float64(n)/el, "records/s")
	b.ReportMetric(bytes/el/1e6, "MB/s")
	// The machine is shared: the process's CPU time says what a
	// dedicated core would do.
	b.ReportMetric(bytes/cpu/1e6, "MB/CPU-s")
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
