package journal

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"

	"github.com/berthsched/berth"
)

// The MANIFEST file (format 2) is the journal's durable bookkeeping of
// what it has made durable, rewritten whole (a temporary file, fsynced,
// renamed, the directory fsynced) at every rotation, checkpoint and
// clean Close:
//
//	magic     8 bytes  "BERTHMAN"
//	version   1 byte   1
//	flags     1 byte   1: the snapshot is framed (see snapfile.go);
//	                   0: written by an older build, read as it is
//	snapshot  8 bytes  the snapshot replay starts after (0: none)
//	segment   8 bytes  the first record of the newest segment created
//	synced    8 bytes  every record up to this one was durable
//	checksum  4 bytes  CRC-32C of the 34 bytes before it
//
// Recovery holds the directory to it: the snapshot and the newest
// segment must exist and the records must reach synced, or something
// other than a crash removed acknowledged records.
type manifest struct {
	framed   bool // the snapshot has the framing of snapfile.go
	snapshot uint64
	segment  uint64
	synced   uint64
}

const (
	manifestName    = "MANIFEST"
	manifestMagic   = "BERTHMAN"
	manifestVersion = 1
	manifestSize    = 8 + 1 + 1 + 3*8 + 4
)

func (m manifest) encode() []byte {
	b := make([]byte, 0, manifestSize)
	b = append(b, manifestMagic...)
	b = append(b, manifestVersion)
	if m.framed {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.LittleEndian.AppendUint64(b, m.snapshot)
	b = binary.LittleEndian.AppendUint64(b, m.segment)
	b = binary.LittleEndian.AppendUint64(b, m.synced)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

func decodeManifest(b []byte) (manifest, error) {
	switch {
	case len(b) != manifestSize || string(b[:8]) != manifestMagic:
		return manifest{}, fmt.Errorf("%w: not a journal manifest (%d bytes)", berth.ErrCorruptState, len(b))
	case crc32.Checksum(b[:manifestSize-4], castagnoli) != binary.LittleEndian.Uint32(b[manifestSize-4:]):
		return manifest{}, fmt.Errorf("%w: manifest checksum", berth.ErrCorruptState)
	case b[8] != manifestVersion:
		return manifest{}, fmt.Errorf("%w: manifest version %d (this build reads %d)", berth.ErrUnsupportedVersion, b[8], manifestVersion)
	case b[9] > 1:
		return manifest{}, fmt.Errorf("%w: manifest flags %#x", berth.ErrCorruptState, b[9])
	}
	return manifest{
		framed:   b[9] == 1,
		snapshot: binary.LittleEndian.Uint64(b[10:]),
		segment:  binary.LittleEndian.Uint64(b[18:]),
		synced:   binary.LittleEndian.Uint64(b[26:]),
	}, nil
}

// readManifest reads the directory's manifest; ok is false when there is
// none.
func (j *Journal) readManifest() (m manifest, ok bool, err error) {
	f, err := j.fs.OpenFile(filepath.Join(j.dir, manifestName), os.O_RDONLY, 0)
	if os.IsNotExist(err) {
		return manifest{}, false, nil
	}
	if err != nil {
		return manifest{}, false, fmt.Errorf("journal: reading %s in %s: %w", manifestName, j.dir, pathless(err))
	}
	defer f.Close()
	b := make([]byte, manifestSize+1)
	n, err := f.ReadAt(b, 0)
	if n == len(b) || err != nil && n < manifestSize {
		err = fmt.Errorf("%w: %d bytes", berth.ErrCorruptState, n)
	} else {
		m, err = decodeManifest(b[:n])
	}
	if err != nil {
		return manifest{}, true, fmt.Errorf("journal: %s in %s: %w", manifestName, j.dir, err)
	}
	return m, true, nil
}

// writeManifest replaces the manifest with m, durably.
func (j *Journal) writeManifest(m manifest) error {
	if err := j.replaceFile(manifestName, func(f File) error {
		_, err := f.WriteAt(m.encode(), 0)
		return err
	}); err != nil {
		return err
	}
	j.man = m
	return nil
}

// replaceFile writes name in the journal's directory through a temporary
// file that is fsynced and renamed over it, and fsyncs the directory: a
// crash leaves the old file or the new one. Errors name the file being
// replaced, never the temporary one (which is removed).
func (j *Journal) replaceFile(name string, write func(f File) error) error {
	path := filepath.Join(j.dir, name)
	tmp := path + ".tmp"
	f, err := j.fs.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err == nil {
		err = write(f)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = j.fs.Rename(tmp, path)
		}
		if err == nil {
			err = j.fs.SyncDir(j.dir)
		}
		if err != nil {
			j.fs.Remove(tmp)
		}
	}
	if err != nil {
		return fmt.Errorf("journal: writing %s in %s: %w", name, j.dir, pathless(err))
	}
	return nil
}
