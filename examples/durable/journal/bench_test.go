package journal

import (
	"testing"
)

// BenchmarkAppend appends 24-byte records (the size of a typical encoded
// command with its framing) under each sync mode: SyncNever is the cost
// of the journal itself, SyncBatch amortises one fsync over 64 records,
// SyncAlways pays an fsync per record (dominated by the disk).
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
