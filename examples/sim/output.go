package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// fileOps are the file-system calls the output writer makes, so that a
// test can make any one of them fail.
type fileOps struct {
	writeFile func(name string, data []byte) error
	link      func(oldname, newname string) error
	rename    func(oldpath, newpath string) error
}

// osOps writes for real.
var osOps = fileOps{
	writeFile: func(name string, data []byte) error {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		if serr := f.Sync(); err == nil {
			err = serr
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	},
	link:   linkOrCopy,
	rename: os.Rename,
}

// linkOrCopy hard-links a file, or copies it where the file system has no
// hard links.
func linkOrCopy(oldname, newname string) error {
	if os.Link(oldname, newname) == nil {
		return nil
	}
	in, err := os.Open(oldname)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(newname, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeTree writes files (paths with '/') under dir, created if missing,
// all at once: a failure at any step leaves dir exactly as it was (see
// replaceDir).
func writeTree(dir string, files map[string][]byte) error {
	return osOps.replaceDir(dir, files, os.Stderr)
}

// replaceDir builds the new directory beside dir (in the same parent, so
// on the same file system): the files, plus hard links to whatever else
// dir holds under top-level names the run does not write (a user's
// notes, SLS's own outputs); a top-level name the run writes is the
// run's whole, so an old file below it that the run no longer writes
// goes. Then it swaps the two by renames, putting the old directory back
// if the second rename fails, and removes the old one. Until the swap
// nothing in dir changes; after it, dir holds every new file.
func (o fileOps) replaceDir(dir string, files map[string][]byte, warn io.Writer) (err error) {
	dir = filepath.Clean(dir)
	if target, err := filepath.EvalSymlinks(dir); err == nil {
		dir = target // replace what the link points to, keep the link
	}
	old, err := os.Lstat(dir)
	exists := err == nil
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	case exists && !old.IsDir():
		return fmt.Errorf("output directory %s: not a directory", dir)
	}
	parent, base := filepath.Split(dir)
	if parent == "" {
		parent = "."
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+base+".new-")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	mode := fs.FileMode(0o755)
	if exists {
		mode = old.Mode().Perm()
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return err
	}
	tops := map[string]bool{}
	for name, data := range files {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := o.writeFile(p, data); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
		top, _, _ := strings.Cut(name, "/")
		tops[top] = true
	}
	if !exists {
		return o.rename(tmp, dir)
	}
	if err := o.carry(dir, tmp, tops); err != nil {
		return fmt.Errorf("keeping the other files of %s: %w", dir, err)
	}
	// The old directory's new name: free, as tmp's suffix is unique.
	aside := filepath.Join(parent, "."+base+".old-"+strings.TrimPrefix(filepath.Base(tmp), "."+base+".new-"))
	if err := o.rename(dir, aside); err != nil {
		return err
	}
	if err := o.rename(tmp, dir); err != nil {
		if rerr := o.rename(aside, dir); rerr != nil {
			return fmt.Errorf("%w; and putting the old directory back failed, it is at %s: %w", err, aside, rerr)
		}
		return err
	}
	if rerr := os.RemoveAll(aside); rerr != nil {
		fmt.Fprintf(warn, "warning: the outputs are in %s, but the old directory %s could not be removed: %v\n", dir, aside, rerr)
	}
	return nil
}

// carry hard-links into dst every entry of src below a top-level name the
// run does not write, recreating directories and symbolic links.
func (o fileOps) carry(src, dst string, tops map[string]bool) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil || rel == "." {
			return err
		}
		if top, _, _ := strings.Cut(filepath.ToSlash(rel), "/"); tops[top] {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil // the new run's
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			info, err := d.Info()
			if err != nil {
				return err
			}
			return os.Mkdir(to, info.Mode().Perm())
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		}
		return o.link(path, to)
	})
}
