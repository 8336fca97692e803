package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"runtime/debug"
	"time"

	"github.com/hashicorp/raft"
	bolt "go.etcd.io/bbolt"

	"github.com/berthsched/berth"
)

// BoltStore is a replica's durable raft log and stable store in one bbolt
// file: every StoreLogs, DeleteRange and Set is one bbolt transaction,
// synced to disk before it returns (unless NoSync was asked for), which
// is what raft needs of its log before it answers a leader or counts
// itself in a majority.
//
// It does what hashicorp/raft-boltdb does (that module does not build
// against raft v1.8's metrics package), with a CRC-32C over each stored
// entry and stable value: bbolt checks neither its pages nor their
// contents, and a damaged entry or term must be reported, not used.
//
// A damaged file is refused, never a crash: OpenBoltStore reads every
// entry and stable value back before raft sees any (raft panics on a log
// it cannot read while starting), and every call turns a panic of bbolt
// on a damaged page, or a fault reading past the mapped file where a
// damaged page points, into an error wrapping berth.ErrCorruptState.
type BoltStore struct {
	db   *bolt.DB
	path string
}

var (
	bucketLogs = []byte("logs")
	// bucketStable holds the stable store's values with a checksum;
	// bucketStableV1 those an older build wrote without one, read until
	// they are next set.
	bucketStable   = []byte("stable.v2")
	bucketStableV1 = []byte("stable")
	crcTable       = crc32.MakeTable(crc32.Castagnoli)
)

// OpenBoltStore opens (creating if need be) the store in file path and
// checks it: every log entry and stable value must read back whole, the
// entries' indexes without a gap. With noSync the writes are not synced:
// faster, and still safe against a process crash, but not against the
// machine's. A file another process has open is refused after a second.
func OpenBoltStore(path string, noSync bool) (*BoltStore, error) {
	s := &BoltStore{path: path}
	err := s.guard("open", func() error {
		db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, NoSync: noSync, FreelistType: bolt.FreelistMapType})
		if errors.Is(err, bolt.ErrTimeout) {
			return errors.New("in use by another process (its lock was not released within a second)")
		}
		if err != nil {
			return err
		}
		s.db = db
		return db.Update(func(tx *bolt.Tx) error {
			for _, name := range [][]byte{bucketLogs, bucketStable, bucketStableV1} {
				if _, err := tx.CreateBucketIfNotExists(name); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err == nil {
		err = s.verify()
	}
	if err != nil {
		if s.db != nil {
			s.db.Close()
		}
		return nil, fmt.Errorf("ha: raft store %s: %w", path, err)
	}
	return s, nil
}

// guard runs fn, turning a panic of bbolt (a damaged page) or a memory
// fault (a damaged page pointing past the mapped file) into an error
// wrapping berth.ErrCorruptState: bbolt rolls its transaction back as the
// panic passes.
func (s *BoltStore) guard(op string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %s %s: %v", berth.ErrCorruptState, op, s.path, p)
		}
	}()
	return fn()
}

// view and update are bbolt's, guarded.
func (s *BoltStore) view(op string, fn func(*bolt.Tx) error) error {
	return s.guard(op, func() error { return s.db.View(fn) })
}

func (s *BoltStore) update(op string, fn func(*bolt.Tx) error) error {
	return s.guard(op, func() error { return s.db.Update(fn) })
}

// verify reads every entry and stable value back.
func (s *BoltStore) verify() error {
	return s.view("check", func(tx *bolt.Tx) error {
		var first, prev uint64
		var l raft.Log
		b := tx.Bucket(bucketLogs)
		err := b.ForEach(func(k, v []byte) error {
			if len(k) != 8 {
				return fmt.Errorf("%w: a key of %d bytes", ErrLogCorrupt, len(k))
			}
			i := binary.BigEndian.Uint64(k)
			if prev != 0 && i != prev+1 {
				return fmt.Errorf("%w: index %d follows %d", ErrLogCorrupt, i, prev)
			}
			if prev == 0 {
				first = i
			}
			prev = i
			return decodeLog(v, i, &l)
		})
		if err != nil {
			return err
		}
		// Read in order, the leaves may be whole while a damaged branch
		// page sends a lookup astray: look each entry up by its index.
		for i := first; i != 0 && i <= prev; i++ {
			if b.Get(indexKey(i)) == nil {
				return fmt.Errorf("%w: index %d is in the log but not found by its key", ErrLogCorrupt, i)
			}
		}
		err = tx.Bucket(bucketStable).ForEach(func(k, v []byte) error {
			_, err := openStable(k, v)
			return err
		})
		if err != nil {
			return err
		}
		return nil
	})
}

// Close closes the file.
func (s *BoltStore) Close() error { return s.db.Close() }

func indexKey(i uint64) []byte { return binary.BigEndian.AppendUint64(nil, i) }

// FirstIndex implements raft.LogStore.
func (s *BoltStore) FirstIndex() (uint64, error) { return s.edge(true) }

// LastIndex implements raft.LogStore.
func (s *BoltStore) LastIndex() (uint64, error) { return s.edge(false) }

func (s *BoltStore) edge(first bool) (uint64, error) {
	var i uint64
	err := s.view("reading the log's ends", func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketLogs).Cursor()
		k, _ := c.Last()
		if first {
			k, _ = c.First()
		}
		if k != nil {
			i = binary.BigEndian.Uint64(k)
		}
		return nil
	})
	return i, err
}

// GetLog implements raft.LogStore.
func (s *BoltStore) GetLog(index uint64, l *raft.Log) error {
	return s.view("reading the log", func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketLogs).Get(indexKey(index))
		if v == nil {
			return raft.ErrLogNotFound
		}
		return decodeLog(v, index, l)
	})
}

// StoreLog implements raft.LogStore.
func (s *BoltStore) StoreLog(l *raft.Log) error { return s.StoreLogs([]*raft.Log{l}) }

// StoreLogs implements raft.LogStore: all or none.
func (s *BoltStore) StoreLogs(logs []*raft.Log) error {
	return s.update("appending to the log", func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketLogs)
		for _, l := range logs {
			if err := b.Put(indexKey(l.Index), encodeLog(l)); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeleteRange implements raft.LogStore (min and max included).
func (s *BoltStore) DeleteRange(lo, hi uint64) error {
	return s.update("deleting from the log", func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketLogs).Cursor()
		for k, _ := c.Seek(indexKey(lo)); k != nil && binary.BigEndian.Uint64(k) <= hi; k, _ = c.Next() {
			if err := c.Delete(); err != nil {
				return err
			}
		}
		return nil
	})
}

// Set implements raft.StableStore.
func (s *BoltStore) Set(key, val []byte) error {
	return s.update("setting "+string(key), func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketStable).Put(key, sealStable(key, val)); err != nil {
			return err
		}
		return tx.Bucket(bucketStableV1).Delete(key)
	})
}

// Get implements raft.StableStore: nil for a key never set.
func (s *BoltStore) Get(key []byte) ([]byte, error) {
	var v []byte
	err := s.view("reading "+string(key), func(tx *bolt.Tx) error {
		if sealed := tx.Bucket(bucketStable).Get(key); sealed != nil {
			var err error
			v, err = openStable(key, sealed)
			return err
		}
		v = append([]byte(nil), tx.Bucket(bucketStableV1).Get(key)...)
		return nil
	})
	return v, err
}

// A stable value is stored with the CRC-32C of its key and itself,
// little-endian, after it: a damaged term or vote is refused rather than
// believed (a replica that forgot its vote could vote twice in a term).
func sealStable(key, val []byte) []byte {
	crc := crc32.Update(crc32.Checksum(key, crcTable), crcTable, val)
	return binary.LittleEndian.AppendUint32(append([]byte(nil), val...), crc)
}

func openStable(key, sealed []byte) ([]byte, error) {
	if len(sealed) < 4 {
		return nil, fmt.Errorf("ha: raft stable key %q: %w: %d bytes", key, berth.ErrCorruptState, len(sealed))
	}
	val := sealed[:len(sealed)-4]
	if crc32.Update(crc32.Checksum(key, crcTable), crcTable, val) != binary.LittleEndian.Uint32(sealed[len(val):]) {
		return nil, fmt.Errorf("ha: raft stable key %q: %w: checksum mismatch", key, berth.ErrCorruptState)
	}
	return append([]byte(nil), val...), nil
}

// SetUint64 implements raft.StableStore.
func (s *BoltStore) SetUint64(key []byte, v uint64) error {
	return s.Set(key, binary.BigEndian.AppendUint64(nil, v))
}

// GetUint64 implements raft.StableStore: 0 for a key never set.
func (s *BoltStore) GetUint64(key []byte) (uint64, error) {
	v, err := s.Get(key)
	if err != nil || len(v) == 0 {
		return 0, err
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("ha: raft store key %q: %w: %d bytes for a uint64", key, berth.ErrCorruptState, len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}

// A stored entry: term, type, appended-at (Unix nanoseconds, 0 for the
// zero time), data and extensions (each a uvarint length and the bytes),
// then the CRC-32C of all of it, little-endian.
func encodeLog(l *raft.Log) []byte {
	b := make([]byte, 0, 24+len(l.Data)+len(l.Extensions)+4)
	b = binary.AppendUvarint(b, l.Term)
	b = append(b, byte(l.Type))
	var at int64
	if !l.AppendedAt.IsZero() {
		at = l.AppendedAt.UnixNano()
	}
	b = binary.AppendVarint(b, at)
	b = binary.AppendUvarint(b, uint64(len(l.Data)))
	b = append(b, l.Data...)
	b = binary.AppendUvarint(b, uint64(len(l.Extensions)))
	b = append(b, l.Extensions...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crcTable))
}

// ErrLogCorrupt: a stored raft entry fails its checksum or does not
// parse. It wraps berth.ErrCorruptState.
var ErrLogCorrupt = fmt.Errorf("ha: raft log entry: %w", berth.ErrCorruptState)

// decodeLog reads a stored entry into l. The bytes belong to bbolt and
// live only as long as the transaction: Data and Extensions are copied.
func decodeLog(v []byte, index uint64, l *raft.Log) error {
	bad := func(why string) error { return fmt.Errorf("%w: index %d: %s", ErrLogCorrupt, index, why) }
	if len(v) < 4 {
		return bad("too short")
	}
	body := v[:len(v)-4]
	if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(v[len(v)-4:]) {
		return bad("checksum mismatch")
	}
	term, n := binary.Uvarint(body)
	if n <= 0 || len(body) < n+1 {
		return bad("term")
	}
	typ := raft.LogType(body[n])
	body = body[n+1:]
	at, n := binary.Varint(body)
	if n <= 0 {
		return bad("appended-at")
	}
	body = body[n:]
	bytesField := func() ([]byte, error) {
		ln, n := binary.Uvarint(body)
		if n <= 0 || ln > uint64(len(body)-n) {
			return nil, errors.New("length")
		}
		out := append([]byte(nil), body[n:n+int(ln)]...)
		body = body[n+int(ln):]
		return out, nil
	}
	data, err := bytesField()
	if err != nil {
		return bad("data " + err.Error())
	}
	ext, err := bytesField()
	if err != nil || len(body) != 0 {
		return bad("extensions")
	}
	*l = raft.Log{Index: index, Term: term, Type: typ, Data: data, Extensions: ext}
	if at != 0 {
		l.AppendedAt = time.Unix(0, at)
	}
	return nil
}
