package rle

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

func threadCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1, &ru) // RUSAGE_THREAD
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestCPUTmp(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	d := w1Generate()
	s := New()
	c0 := threadCPU(); w0 := time.Now()
	for i, iv := range d.ivs { _ = s.Add(iv, d.res[i]) }
	t.Logf("add    cpu %6.0f ns/op wall %6.0f", float64(threadCPU()-c0)/1e5, float64(time.Since(w0))/1e5)
	var sum int64
	c0 = threadCPU(); w0 = time.Now()
	for r := 0; r < 5; r++ { for _, tm := range d.points { sum += s.At(tm).Memory } }
	t.Logf("query  cpu %6.0f ns/op wall %6.0f", float64(threadCPU()-c0)/5e5, float64(time.Since(w0))/5e5)
	c0 = threadCPU(); w0 = time.Now()
	for r := 0; r < 5; r++ { for _, iv := range d.ranges { sum += s.Min(iv).Memory } }
	t.Logf("minh   cpu %6.0f ns/op wall %6.0f", float64(threadCPU()-c0)/5e4, float64(time.Since(w0))/5e4)
	c0 = threadCPU(); w0 = time.Now()
	for i, iv := range d.ivs { _ = s.Remove(iv, d.res[i]) }
	t.Logf("remove cpu %6.0f ns/op wall %6.0f", float64(threadCPU()-c0)/1e5, float64(time.Since(w0))/1e5)
}
