package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/berthsched/berth"
)

// TestBoltStoreFlips flips one bit at a time at 300 random offsets of a
// replica's raft.db: OpenBoltStore either refuses the file with an error
// wrapping berth.ErrCorruptState, or opens it and then every entry and
// stable key reads back as it was, or fails the same way. A flip in a
// page's element table used to make bbolt hand out a value pointing past
// the mapped file, and reading it killed the process with SIGSEGV; flips
// in page headers made bbolt panic.
func TestBoltStoreFlips(t *testing.T) {
	path := filepath.Join(t.TempDir(), "raft.db")
	s := openTestStore(t, path)
	rng := rand.New(rand.NewPCG(1, 2))
	var want []raft.Log
	for i := uint64(1); i <= 200; i++ {
		data := make([]byte, 20+rng.IntN(200))
		for k := range data {
			data[k] = byte(rng.Uint32())
		}
		want = append(want, raft.Log{Index: i, Term: 1 + i/50, Type: raft.LogCommand, Data: data})
	}
	for i := 0; i < len(want); i += 10 {
		batch := make([]*raft.Log, 0, 10)
		for k := i; k < i+10; k++ {
			batch = append(batch, &want[k])
		}
		require.NoError(t, s.StoreLogs(batch))
	}
	require.NoError(t, s.SetUint64([]byte("CurrentTerm"), 5))
	require.NoError(t, s.Set([]byte("LastVoteCand"), []byte("berth2")))
	require.NoError(t, s.Close())
	orig, err := os.ReadFile(path)
	require.NoError(t, err)

	hot := pageTables(orig)
	require.NotEmpty(t, hot)
	outcomes := map[string]int{}
	for trial := range 300 {
		b := slices.Clone(orig)
		off := rng.IntN(len(b))
		if trial%2 == 1 { // half of them in the pages' headers and element tables
			off = hot[rng.IntN(len(hot))]
		}
		b[off] ^= 1 << rng.IntN(8)
		p := filepath.Join(t.TempDir(), "flip.db")
		require.NoError(t, os.WriteFile(p, b, 0o600))
		err := func() error {
			s, err := OpenBoltStore(p, true)
			if err != nil {
				return err
			}
			defer s.Close()
			lo, err := s.FirstIndex()
			if err != nil {
				return err
			}
			hi, err := s.LastIndex()
			if err != nil {
				return err
			}
			if lo != 1 || hi != 200 {
				return fmt.Errorf("log %d to %d read back", lo, hi)
			}
			for _, w := range want {
				var l raft.Log
				if err := s.GetLog(w.Index, &l); err != nil {
					return err
				}
				if l.Term != w.Term || l.Type != w.Type || !slices.Equal(l.Data, w.Data) {
					return fmt.Errorf("entry %d read back changed", w.Index)
				}
			}
			if term, err := s.GetUint64([]byte("CurrentTerm")); err != nil || term != 5 {
				return fmt.Errorf("term %d read back (%v)", term, err)
			}
			if v, err := s.Get([]byte("LastVoteCand")); err != nil || string(v) != "berth2" {
				return fmt.Errorf("vote %q read back (%v)", v, err)
			}
			return nil
		}()
		switch {
		case err == nil:
			outcomes["intact"]++
		case errors.Is(err, berth.ErrCorruptState):
			outcomes["refused"]++
		default:
			t.Errorf("flip %d at byte %d: %v", trial, off, err)
		}
	}
	t.Logf("300 flips: %v", outcomes)
	assert.Positive(t, outcomes["refused"])
}

// pageTables lists the offsets of a bbolt file's page headers and element
// tables (of its branch and leaf pages), where a flip sends bbolt's reads
// astray: most of a small file is free pages, which a random offset hits
// far more often.
func pageTables(db []byte) []int {
	const headerSize, elemSize = 16, 16                            // bbolt's page header; branch and leaf elements
	pageSize := int(binary.LittleEndian.Uint32(db[headerSize+8:])) // the first meta's page size
	if pageSize < 512 {
		return nil
	}
	var offs []int
	for p := 2 * pageSize; p+headerSize <= len(db); p += pageSize {
		if flags := binary.LittleEndian.Uint16(db[p+8:]); flags != 0x01 && flags != 0x02 {
			continue // not a branch or leaf page
		}
		n := int(binary.LittleEndian.Uint16(db[p+10:]))
		for o := p; o < min(p+headerSize+n*elemSize, len(db)); o++ {
			offs = append(offs, o)
		}
	}
	return offs
}

// TestReplicaStoreDamage: a replica whose own files are damaged (its raft
// log, its snapshots) either comes back and catches up, every
// acknowledged command applied once, or refuses to start with an error
// wrapping berth.ErrCorruptState that names the file, and the others go
// on; never a panic. A damaged newest snapshot used to make raft fall
// back to an older one whose log was compacted away, and panic with "log
// not found" while starting.
func TestReplicaStoreDamage(t *testing.T) {
	trailing := func(id raft.ServerID) *raft.Config { c := RaftConfig(id); c.TrailingLogs = 5; return c }
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string, snaps []string)
		starts bool // the replica can come back from what is left
	}{
		{"newest snapshot's state flipped", func(t *testing.T, dir string, snaps []string) {
			flipFile(t, filepath.Join(dir, "snapshots", snaps[0], "state.bin"))
		}, false},
		{"newest snapshot's state cut", func(t *testing.T, dir string, snaps []string) {
			p := filepath.Join(dir, "snapshots", snaps[0], "state.bin")
			st, err := os.Stat(p)
			require.NoError(t, err)
			require.NoError(t, os.Truncate(p, st.Size()/2))
		}, false},
		{"newest snapshot's meta flipped", func(t *testing.T, dir string, snaps []string) {
			flipFile(t, filepath.Join(dir, "snapshots", snaps[0], "meta.json"))
		}, false},
		{"newest snapshot deleted", func(t *testing.T, dir string, snaps []string) {
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "snapshots", snaps[0])))
		}, false},
		{"older snapshot flipped", func(t *testing.T, dir string, snaps []string) {
			flipFile(t, filepath.Join(dir, "snapshots", snaps[1], "state.bin"))
		}, true},
		{"log entry flipped", func(t *testing.T, dir string, snaps []string) {
			s, err := OpenBoltStore(filepath.Join(dir, "raft.db"), true)
			require.NoError(t, err)
			hi, err := s.LastIndex()
			require.NoError(t, err)
			require.NoError(t, s.db.Update(func(tx *bolt.Tx) error {
				b := tx.Bucket(bucketLogs)
				v := slices.Clone(b.Get(indexKey(hi - 1)))
				v[len(v)/2] ^= 8
				return b.Put(indexKey(hi-1), v)
			}))
			require.NoError(t, s.Close())
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			g, cfg := newGroupWith(t, 3, GroupOptions{Dir: base, NoSync: true, Raft: trailing})
			var log ackLog
			d := newDriver(t, g, 71, &log)
			for range 2 { // two snapshots, the log compacted behind each
				d.run(30)
				for _, r := range g.Running() {
					require.NoError(t, r.Raft.Snapshot().Error())
				}
			}
			d.run(10)
			l, err := g.Leader()
			require.NoError(t, err)
			down := otherThan(t, g, l)
			require.NoError(t, g.Stop(down))
			dir := filepath.Join(base, string(down.ID))
			snaps := snapshotDirs(t, dir)
			require.Len(t, snaps, 2)
			tc.damage(t, dir, snaps)

			err = g.Restart(down)
			d.run(10)
			if tc.starts {
				require.NoError(t, err)
				checkExactlyOnce(t, g, cfg, log.all)
				return
			}
			require.Error(t, err, "the replica cannot rebuild its state from its own files")
			assert.ErrorIs(t, err, berth.ErrCorruptState)
			assert.Contains(t, err.Error(), dir)
			// The other two go on.
			want, seq := replayAcked(t, cfg, log.all)
			agree(t, g, seq, want, "the two others")
		})
	}
}

func flipFile(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	b[len(b)/2] ^= 0x10
	require.NoError(t, os.WriteFile(path, b, 0o644))
}

// snapshotDirs lists a replica's snapshot directories, newest first.
func snapshotDirs(t *testing.T, dir string) []string {
	t.Helper()
	fs, err := raft.NewFileSnapshotStoreWithLogger(dir, 2, nil)
	require.NoError(t, err)
	metas, err := fs.List()
	require.NoError(t, err)
	var ids []string
	for _, m := range metas {
		ids = append(ids, m.ID)
	}
	return ids
}
