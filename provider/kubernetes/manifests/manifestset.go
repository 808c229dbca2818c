package manifests

import (
	"crypto/sha256"
	"errors"
	"path/filepath"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Set is the manifests under some paths as last read, file by file.
// Read reads them again and decodes only the files whose content changed.
// While a file has errors, the objects of its last version that had none
// stay: a file saved half-way or mistyped does not take its objects out of
// the cluster. A file that never read without error gives the objects of
// its documents that parse, as a one-shot read does.
type Set struct {
	paths    []string
	wanted   func(schema.GroupVersionKind) bool
	order    []string // the files in reading order
	files    map[string]*manifestFile
	pathErrs map[string]string // the listing error of each path, as last reported
	dirs     []string
	onRead   func(name string) // told each path and file before it is read; may be nil
	fixed    []string          // the paths and files the last Read found fixed
}

// manifestFile is one file as last read.
type manifestFile struct {
	sum     [sha256.Size]byte
	read    bool   // sum is that of a version read
	readErr string // the read error last reported
	objects []Object
	clean   bool // objects come from a version without errors
	broken  bool // the version read (sum) has errors
	failing bool // the last read of the file reported an error
}

// NewSet returns the set of manifests under paths (files, or
// directories of .yaml, .yml and .json files, recursively), of the kinds
// wanted (nil wants all), not read yet.
func NewSet(paths []string, wanted func(schema.GroupVersionKind) bool) *Set {
	return &Set{
		paths:    slices.Clone(paths),
		wanted:   wanted,
		files:    map[string]*manifestFile{},
		pathErrs: map[string]string{},
	}
}

// Read reads the files again. It says whether the objects may have changed
// (a file appeared, went, or has new content) and returns the problems of
// what changed: a file's when its content changes or it can no longer be
// read, a path's (missing, no manifests) when it first appears. A file that
// went takes its objects with it.
func (s *Set) Read() (changed bool, problems []*Error) {
	s.fixed = nil
	var order, dirs []string
	listed := map[string]bool{}
	for _, p := range s.paths {
		s.reading(p)
		files, walked, err := listManifests(p)
		dirs = append(dirs, walked...)
		if err != nil {
			if msg := err.Error(); s.pathErrs[p] != msg {
				s.pathErrs[p] = msg
				problems = append(problems, &Error{File: p, Err: err})
			}
			continue
		}
		if _, failed := s.pathErrs[p]; failed {
			s.fixed = append(s.fixed, p)
			delete(s.pathErrs, p)
		}
		for _, f := range files {
			order = append(order, f)
			if listed[f] {
				continue // named twice: read once
			}
			listed[f] = true
			s.reading(f)
			c, pr := s.readFile(f)
			changed = changed || c
			problems = append(problems, pr...)
		}
	}
	for f := range s.files {
		if !listed[f] {
			delete(s.files, f)
		}
	}
	changed = changed || !slices.Equal(order, s.order)
	s.order, s.dirs = order, dirs
	return changed, problems
}

// OnRead sets a function told the name of each path before it is listed
// and of each file before it is read, so that a caller watching the time
// a Read takes can name what it waits on. Set it before reading.
func (s *Set) OnRead(fn func(name string)) { s.onRead = fn }

func (s *Set) reading(name string) {
	if s.onRead != nil {
		s.onRead(name)
	}
}

func (s *Set) readFile(f string) (bool, []*Error) {
	mf := s.files[f]
	if mf == nil {
		mf = &manifestFile{}
		s.files[f] = mf
	}
	data, err := readBounded(f)
	if err != nil {
		mf.failing = true
		if msg := err.Error(); msg != mf.readErr {
			mf.readErr = msg
			return false, withKeptNote(f, mf, []*Error{{File: f, Err: err}})
		}
		return false, nil
	}
	mf.readErr = ""
	sum := sha256.Sum256(data)
	if mf.read && sum == mf.sum {
		s.settle(f, mf)
		return false, nil // touched, or written with the same content
	}
	mf.sum, mf.read = sum, true
	objs, problems := Decode(f, data, s.wanted)
	failed := slices.ContainsFunc(problems, func(p *Error) bool { return !p.Warning })
	mf.broken = failed
	s.settle(f, mf)
	if failed && mf.clean {
		return false, withKeptNote(f, mf, problems)
	}
	mf.objects, mf.clean = objs, !failed
	return true, problems
}

// settle records that file f was read, as its version mf.sum: a file whose
// previous read reported an error and whose version now has none is fixed.
func (s *Set) settle(f string, mf *manifestFile) {
	if mf.failing && !mf.broken {
		s.fixed = append(s.fixed, f)
	}
	mf.failing = mf.broken
}

// Fixed are the paths and files whose errors the last Read found gone: a
// path that exists again, a file that reads and decodes without error
// after a read that reported one. A file that went is not among them.
func (s *Set) Fixed() []string { return s.fixed }

// withKeptNote adds to the problems of a file that has objects from an
// earlier version a warning that they stay.
func withKeptNote(f string, mf *manifestFile, problems []*Error) []*Error {
	if len(mf.objects) == 0 {
		return problems
	}
	return append(problems, &Error{File: f, Warning: true,
		Err: errors.New("the objects of its last version that could be used stay until it is fixed")})
}

// Objects are the objects of the files, in reading order: the paths in the
// order given, a directory's files in lexical order.
func (s *Set) Objects() []Object {
	var objs []Object
	for _, f := range s.order {
		if mf := s.files[f]; mf != nil {
			objs = append(objs, mf.objects...)
		}
	}
	return objs
}

// Dirs are the directories whose entries can change what Read finds: the
// directories walked at the last Read, and the parent of each path, where
// the path itself may appear, go or be renamed over.
func (s *Set) Dirs() []string {
	dirs := slices.Clone(s.dirs)
	for _, p := range s.paths {
		dirs = append(dirs, filepath.Dir(filepath.Clean(p)))
	}
	slices.Sort(dirs)
	return slices.Compact(dirs)
}
