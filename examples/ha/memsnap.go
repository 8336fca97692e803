package main

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/hashicorp/raft"
)

// memSnapshotStore keeps a replica's latest snapshot in memory, for a
// Group without a directory. raft's own InmemSnapshotStore lists a
// snapshot as soon as it is created, so a leader could send, or a
// restarting replica restore, one still being written (the race detector
// saw the leader read it while Persist wrote it); here a snapshot is
// published only when its sink is closed, and a cancelled one never is.
type memSnapshotStore struct {
	mu   sync.Mutex
	meta *raft.SnapshotMeta
	data []byte
}

func (s *memSnapshotStore) Create(version raft.SnapshotVersion, index, term uint64,
	conf raft.Configuration, confIndex uint64, trans raft.Transport) (raft.SnapshotSink, error) {
	if version != 1 {
		return nil, fmt.Errorf("ha: unsupported snapshot version %d", version)
	}
	meta := &raft.SnapshotMeta{Version: version, ID: fmt.Sprintf("%d-%d", term, index), Index: index, Term: term,
		Configuration: conf, ConfigurationIndex: confIndex}
	return &memSnapshotSink{store: s, meta: meta}, nil
}

// List returns the latest published snapshot, if any.
func (s *memSnapshotStore) List() ([]*raft.SnapshotMeta, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.meta == nil {
		return nil, nil
	}
	m := *s.meta
	return []*raft.SnapshotMeta{&m}, nil
}

// Open reads the latest published snapshot; its bytes are never changed.
func (s *memSnapshotStore) Open(id string) (*raft.SnapshotMeta, io.ReadCloser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.meta == nil || s.meta.ID != id {
		return nil, nil, fmt.Errorf("ha: no snapshot %q", id)
	}
	m := *s.meta
	return &m, io.NopCloser(bytes.NewReader(s.data)), nil
}

type memSnapshotSink struct {
	store *memSnapshotStore
	meta  *raft.SnapshotMeta
	buf   bytes.Buffer
	done  bool
}

func (k *memSnapshotSink) Write(p []byte) (int, error) { return k.buf.Write(p) }

func (k *memSnapshotSink) ID() string { return k.meta.ID }

// Close publishes the snapshot.
func (k *memSnapshotSink) Close() error {
	if k.done {
		return nil
	}
	k.done = true
	k.meta.Size = int64(k.buf.Len())
	k.store.mu.Lock()
	k.store.meta, k.store.data = k.meta, k.buf.Bytes()
	k.store.mu.Unlock()
	return nil
}

// Cancel drops the snapshot.
func (k *memSnapshotSink) Cancel() error {
	k.done = true
	return nil
}
