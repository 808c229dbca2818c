package k8s

import (
	"crypto/sha256"
	"errors"
	"path/filepath"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ManifestSet is the manifests under some paths as last read, file by file.
// Read reads them again and decodes only the files whose content changed.
// While a file has errors, the objects of its last version that had none
// stay: a file saved half-way or mistyped does not take its objects out of
// the cluster. A file that never read without error gives the objects of
// its documents that parse, as a one-shot read does.
type ManifestSet struct {
	paths    []string
	wanted   func(schema.GroupVersionKind) bool
	order    []string // the files in reading order
	files    map[string]*manifestFile
	pathErrs map[string]string // the listing error of each path, as last reported
	dirs     []string
	onRead   func(name string) // told each path and file before it is read; may be nil
}

// manifestFile is one file as last read.
type manifestFile struct {
	sum     [sha256.Size]byte
	read    bool   // sum is that of a version read
	readErr string // the read error last reported
	objects []Object
	clean   bool // objects come from a version without errors
}

// NewManifestSet returns the set of manifests under paths (files, or
// directories of .yaml, .yml and .json files, recursively), of the kinds
// wanted (nil wants all), not read yet.
func NewManifestSet(paths []string, wanted func(schema.GroupVersionKind) bool) *ManifestSet {
	return &ManifestSet{
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
func (s *ManifestSet) Read() (changed bool, problems []*ManifestError) {
	var order, dirs []string
	listed := map[string]bool{}
	for _, p := range s.paths {
		s.reading(p)
		files, walked, err := listManifests(p)
		dirs = append(dirs, walked...)
		if err != nil {
			if msg := err.Error(); s.pathErrs[p] != msg {
				s.pathErrs[p] = msg
				problems = append(problems, &ManifestError{File: p, Err: err})
			}
			continue
		}
		delete(s.pathErrs, p)
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
func (s *ManifestSet) OnRead(fn func(name string)) { s.onRead = fn }

func (s *ManifestSet) reading(name string) {
	if s.onRead != nil {
		s.onRead(name)
	}
}

func (s *ManifestSet) readFile(f string) (bool, []*ManifestError) {
	mf := s.files[f]
	if mf == nil {
		mf = &manifestFile{}
		s.files[f] = mf
	}
	data, err := readBounded(f)
	if err != nil {
		if msg := err.Error(); msg != mf.readErr {
			mf.readErr = msg
			return false, withKeptNote(f, mf, []*ManifestError{{File: f, Err: err}})
		}
		return false, nil
	}
	mf.readErr = ""
	sum := sha256.Sum256(data)
	if mf.read && sum == mf.sum {
		return false, nil // touched, or written with the same content
	}
	mf.sum, mf.read = sum, true
	objs, problems := DecodeManifest(f, data, s.wanted)
	failed := slices.ContainsFunc(problems, func(p *ManifestError) bool { return !p.Warning })
	if failed && mf.clean {
		return false, withKeptNote(f, mf, problems)
	}
	mf.objects, mf.clean = objs, !failed
	return true, problems
}

// withKeptNote adds to the problems of a file that has objects from an
// earlier version a warning that they stay.
func withKeptNote(f string, mf *manifestFile, problems []*ManifestError) []*ManifestError {
	if len(mf.objects) == 0 {
		return problems
	}
	return append(problems, &ManifestError{File: f, Warning: true,
		Err: errors.New("the objects of its last version that could be used stay until it is fixed")})
}

// Objects are the objects of the files, in reading order: the paths in the
// order given, a directory's files in lexical order.
func (s *ManifestSet) Objects() []Object {
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
func (s *ManifestSet) Dirs() []string {
	dirs := slices.Clone(s.dirs)
	for _, p := range s.paths {
		dirs = append(dirs, filepath.Dir(filepath.Clean(p)))
	}
	slices.Sort(dirs)
	return slices.Compact(dirs)
}
