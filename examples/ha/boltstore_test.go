package main

import (
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/berthsched/berth"
)

func openTestStore(t *testing.T, path string) *BoltStore {
	t.Helper()
	s, err := OpenBoltStore(path, true)
	require.NoError(t, err)
	return s
}

// TestBoltStoreMatchesInmem: random appends, truncations of the tail
// (a follower's conflicting entries) and of the head (compaction) leave
// the bolt store holding what raft's in-memory store holds, also after a
// reopen.
func TestBoltStoreMatchesInmem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "raft.db")
	s := openTestStore(t, path)
	ref := raft.NewInmemStore()
	rng := rand.New(rand.NewPCG(1, 2))
	next := uint64(1)
	check := func(step int) {
		f1, err := s.FirstIndex()
		require.NoError(t, err)
		f2, _ := ref.FirstIndex()
		l1, err := s.LastIndex()
		require.NoError(t, err)
		l2, _ := ref.LastIndex()
		require.Equal(t, [2]uint64{f2, l2}, [2]uint64{f1, l1}, "step %d", step)
		for i := f2; i <= l2 && i > 0; i++ {
			var a, b raft.Log
			require.NoError(t, ref.GetLog(i, &a))
			require.NoError(t, s.GetLog(i, &b), "step %d index %d", step, i)
			require.True(t, a.AppendedAt.Equal(b.AppendedAt))
			a.AppendedAt, b.AppendedAt = time.Time{}, time.Time{}
			if len(a.Data) == 0 {
				a.Data = nil
			}
			if len(a.Extensions) == 0 {
				a.Extensions = nil
			}
			require.Equal(t, a, b, "step %d index %d", step, i)
		}
		var l raft.Log
		require.ErrorIs(t, s.GetLog(l1+1, &l), raft.ErrLogNotFound)
	}
	for step := range 300 {
		switch op := rng.IntN(10); {
		case op < 6:
			var logs []*raft.Log
			for range 1 + rng.IntN(5) {
				l := &raft.Log{Index: next, Term: uint64(1 + step/50), Type: raft.LogType(rng.IntN(3))}
				if rng.IntN(4) > 0 {
					l.Data = make([]byte, rng.IntN(300))
					for i := range l.Data {
						l.Data[i] = byte(rng.Uint32())
					}
				}
				if rng.IntN(5) == 0 {
					l.Extensions = []byte("ext")
				}
				if rng.IntN(2) == 0 {
					l.AppendedAt = time.Unix(1700000000, int64(rng.IntN(1e9)))
				}
				logs = append(logs, l)
				next++
			}
			require.NoError(t, s.StoreLogs(logs))
			require.NoError(t, ref.StoreLogs(logs))
		default: // drop a tail (a follower's conflicting entries) or compact a head
			last, _ := ref.LastIndex()
			first, _ := ref.FirstIndex()
			if last > first {
				cut := first + uint64(rng.IntN(int(last-first)))
				lo, hi := cut, last
				if op >= 8 {
					lo, hi = first, cut
				} else {
					next = cut
				}
				require.NoError(t, s.DeleteRange(lo, hi))
				require.NoError(t, ref.DeleteRange(lo, hi))
			}
		}
		check(step)
		if step%100 == 99 {
			require.NoError(t, s.Close())
			s = openTestStore(t, path)
			check(step)
		}
	}
	require.NoError(t, s.Close())
}

// TestBoltStoreStable: the stable store keeps keys across a reopen and
// answers zero values for keys never set.
func TestBoltStoreStable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "raft.db")
	s := openTestStore(t, path)
	v, err := s.Get([]byte("none"))
	require.NoError(t, err)
	assert.Empty(t, v)
	n, err := s.GetUint64([]byte("none"))
	require.NoError(t, err)
	assert.Zero(t, n)
	require.NoError(t, s.Set([]byte("k"), []byte("v")))
	require.NoError(t, s.SetUint64([]byte("term"), 42))
	require.NoError(t, s.Close())
	s = openTestStore(t, path)
	defer s.Close()
	v, err = s.Get([]byte("k"))
	require.NoError(t, err)
	assert.Equal(t, []byte("v"), v)
	n, err = s.GetUint64([]byte("term"))
	require.NoError(t, err)
	assert.Equal(t, uint64(42), n)
	_, err = s.GetUint64([]byte("k"))
	assert.ErrorIs(t, err, berth.ErrCorruptState, "a one-byte value is no uint64")
}

// TestBoltStoreDetectsDamage: an entry whose bytes changed on disk is
// reported as corrupt, not handed to raft.
func TestBoltStoreDetectsDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "raft.db")
	s := openTestStore(t, path)
	require.NoError(t, s.StoreLog(&raft.Log{Index: 1, Term: 1, Type: raft.LogCommand, Data: []byte("hello")}))
	for i := range 12 {
		require.NoError(t, s.db.Update(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketLogs)
			v := append([]byte(nil), b.Get(indexKey(1))...)
			v[i%len(v)] ^= 1 << (i % 8)
			return b.Put(indexKey(1), v)
		}))
		var l raft.Log
		assert.ErrorIs(t, s.GetLog(1, &l), ErrLogCorrupt, "flip %d", i)
		assert.ErrorIs(t, s.GetLog(1, &l), berth.ErrCorruptState)
		// Undo for the next flip.
		require.NoError(t, s.db.Update(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketLogs)
			v := append([]byte(nil), b.Get(indexKey(1))...)
			v[i%len(v)] ^= 1 << (i % 8)
			return b.Put(indexKey(1), v)
		}))
	}
	require.NoError(t, s.Close())
}

// FuzzDecodeLog: any stored bytes decode to an entry that re-encodes to
// them, or are refused as corrupt; never a panic.
func FuzzDecodeLog(f *testing.F) {
	f.Add(encodeLog(&raft.Log{Term: 3, Type: raft.LogCommand, Data: []byte("x"), Extensions: []byte("e"), AppendedAt: time.Unix(5, 6)}))
	f.Add(encodeLog(&raft.Log{}))
	f.Fuzz(func(t *testing.T, b []byte) {
		var l raft.Log
		if err := decodeLog(b, 9, &l); err != nil {
			require.ErrorIs(t, err, ErrLogCorrupt)
			return
		}
		require.Equal(t, uint64(9), l.Index)
		var again raft.Log
		require.NoError(t, decodeLog(encodeLog(&l), 9, &again))
		require.Equal(t, l, again)
	})
}
