package durable

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
)

// FuzzDecodeCommand feeds arbitrary bytes to the command decoder: it
// never panics, refuses with a typed error, and a command it accepts
// encodes to bytes that decode to the same command. The seeds are every
// 10th command of a workload's first 800 (all kinds but the rare
// reload) and a ReloadConfig; inputs over 8 KiB (a reloaded file is the
// largest field) add nothing but time.
func FuzzDecodeCommand(f *testing.F) {
	c, err := New(demo(f, Capacity))
	require.NoError(f, err)
	w := smallWorkload(9, Capacity)
	for i := range 800 {
		cmd := w.Next()
		if i%10 == 0 {
			b, _ := cmd.AppendBinary(nil)
			f.Add(b)
		}
		w.Observe(c.Apply(cmd))
	}
	f.Add([]byte{CommandVersion, byte(KindSubmitApp), 1, 'a'})
	reload, err := ReloadConfig{File: []byte("<allocations><queue name=\"a\"/></allocations>")}.AppendBinary(nil)
	require.NoError(f, err)
	f.Add(reload)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 8<<10 {
			return
		}
		cmd, err := DecodeCommand(data)
		if err != nil {
			if !errors.Is(err, berth.ErrCorruptState) && !errors.Is(err, berth.ErrUnsupportedVersion) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		b, err := cmd.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		again, err := DecodeCommand(b)
		if err != nil {
			t.Fatalf("re-encoded command does not decode: %v", err)
		}
		assert.Equal(t, cmd, again)
	})
}

// TestClusterConcurrent: a Cluster is safe for concurrent use: parallel
// callers apply commands and take snapshots (-race), every command is
// counted once, and the snapshots restore.
func TestClusterConcurrent(t *testing.T) {
	cfg := demo(t, Fair)
	c, err := New(cfg)
	require.NoError(t, err)
	const workers, each = 4, 300
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := smallWorkload(uint64(i+1), Fair)
			for range each {
				w.Observe(c.Apply(w.Next()))
			}
		}()
	}
	snaps := make(chan []byte, 8)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(snaps)
		for range 8 {
			var buf bytes.Buffer
			if err := c.WriteSnapshot(&buf); err != nil {
				t.Error(err)
				return
			}
			snaps <- buf.Bytes()
		}
	}()
	var got [][]byte
	for b := range snaps {
		got = append(got, b)
	}
	wg.Wait()
	assert.Equal(t, uint64(workers*each), c.Seq())
	for _, b := range got {
		_, err := Restore(bytes.NewReader(b), cfg)
		assert.NoError(t, err, "a snapshot taken under concurrent callers is a consistent cut")
	}
}

// TestDecodeCountCostsOnlyItsBytes: a count that the bytes after it do
// not bear out is refused without first allocating room for that many
// elements (an Ask is far larger than the byte its count needs).
func TestDecodeCountCostsOnlyItsBytes(t *testing.T) {
	const n = 1 << 20
	data := []byte{CommandVersion, byte(KindAllocate), 0}
	data = binary.AppendUvarint(data, n)
	data = append(data, bytes.Repeat([]byte{0xff}, n)...) // no ask decodes from these
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := DecodeCommand(data)
	runtime.ReadMemStats(&after)
	var ce *CommandError
	require.ErrorAs(t, err, &ce)
	assert.ErrorIs(t, err, berth.ErrCorruptState)
	assert.Equal(t, KindAllocate, ce.Kind)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(n), "bytes allocated to decode a bogus count of %d asks", n)
}
