// Package manifests reads Kubernetes objects from YAML or JSON files and
// serves them as a cluster, for running sliceway without an API server
// (render and watch with --manifests, the demo, the fixtures):
//
//	manifests.go    files to objects: decoding, the kinds kept, problems
//	                that name the file and the document
//	gatewaykinds.go the Gateway API kinds: which are read, the scheme that
//	                decodes them beside client-go's, older versions read
//	                as v1
//	manifestset.go  the files under some paths as last read, read again
//	                when they change
//	cluster.go      the objects as client-go's fake clientset and, for
//	                the Gateway API kinds, gateway-api's fake clientset,
//	                changed in place when the files change
//	watchgate.go    what keeps the fake clientset's watchers within their
//	                limits while informers follow thousands of changes
package manifests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/rs/zerolog"
	yamlv3 "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/sliceway/sliceway/internal/excerpt"
)

// MaxSize bounds one manifest file, so that a huge or endless input
// fails with a clear error instead of eating the memory.
const MaxSize = 64 << 20

// maxDocumentSize bounds one YAML document of a manifest file.
const maxDocumentSize = 16 << 20

// Object is one object read from a manifest, with where it came from.
type Object struct {
	Object   runtime.Object
	File     string
	Document int // 1-based number of the YAML document in File
}

// Source says where the object was read, as errors say it.
func (o Object) Source() string { return fmt.Sprintf("%s: document %d", o.File, o.Document) }

// Error is a problem with one document of a manifest file.
type Error struct {
	File     string
	Document int // 1-based; 0 when the whole file is at fault
	Warning  bool
	Err      error
}

func (e *Error) Error() string {
	if e.Document == 0 {
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s: document %d: %v", e.File, e.Document, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// LogProblems logs each problem with its file and document in
// structured fields and what is wrong as the message, which does not
// repeat them; warnings as warnings. It returns how many are errors.
func LogProblems(logger zerolog.Logger, problems []*Error) int {
	errs := 0
	for _, p := range problems {
		ev := logger.Warn()
		if !p.Warning {
			errs++
			ev = logger.Error()
		}
		ev = ev.Str("file", p.File)
		if p.Document > 0 {
			ev = ev.Int("document", p.Document)
		}
		ev.Msg(p.reason())
	}
	return errs
}

// reason is what is wrong, without the file and document the log fields
// give: an error of the file system on the file itself ("stat x: no such
// file or directory") is given as its cause alone.
func (e *Error) reason() string {
	if e.Err == nil {
		return e.Error()
	}
	if pe, ok := e.Err.(*fs.PathError); ok && pe.Path == e.File {
		return pe.Op + ": " + pe.Err.Error()
	}
	return e.Err.Error()
}

// manifestExtensions are the files read from a directory.
var manifestExtensions = []string{".yaml", ".yml", ".json"}

// Read reads files, or directories of .yaml, .yml and .json files
// (recursively, in lexical order), as multi-document YAML. It returns the
// objects of the kinds wanted (nil wants all), and the problems found: a
// document that does not parse is an error naming its file and number; an
// object of another kind is a warning. Reading goes on after a bad document.
// A file reached through two paths is read once, its problems said once;
// its objects are listed at each place.
func Read(paths []string, wanted func(schema.GroupVersionKind) bool) ([]Object, []*Error) {
	set := NewSet(paths, wanted)
	_, problems := set.Read()
	return set.Objects(), problems
}

// listManifests returns the manifest files of a path (the path itself when
// it is a file) and the directories walked to find them.
func listManifests(p string) (files, dirs []string, err error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, nil, err
	}
	if !info.IsDir() {
		return []string{p}, nil, nil
	}
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, path)
		} else if slices.Contains(manifestExtensions, strings.ToLower(filepath.Ext(path))) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, dirs, err
	}
	if len(files) == 0 {
		return nil, dirs, fmt.Errorf("no %s files in the directory", strings.Join(manifestExtensions, ", "))
	}
	return files, dirs, nil
}

// readBounded reads one manifest file. Only a regular file, or a symlink
// to one, is read: a named pipe, a device or a socket is refused, naming
// what it is, without being opened, since opening a named pipe for
// reading waits for a writer and a device may never end; either would
// hold up every read after it.
func readBounded(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, notRegular(info.Mode())
	}
	// Non-blocking, should the file be swapped for a named pipe between
	// the stat and the open: the open does not wait, and the check of
	// what was opened refuses it. A regular file reads as usual.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	if info, err = f.Stat(); err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, notRegular(info.Mode())
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("larger than %d MiB", MaxSize>>20)
	}
	return data, nil
}

// notRegular says what a file that is not a regular one is.
func notRegular(mode fs.FileMode) error {
	what := "not a regular file"
	switch {
	case mode&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		what = "a socket"
	case mode&fs.ModeDevice != 0:
		what = "a device"
	case mode.IsDir():
		what = "a directory"
	}
	return fmt.Errorf("%s, not a regular file: not read (manifests are read from regular files, or symlinks to them)", what)
}

// Decode decodes the documents of one manifest file. A List (as
// kubectl get -o yaml prints) is expanded into its items. It knows the
// kinds of client-go and of the Gateway API (gatewaykinds.go); a Gateway
// API kind the Gateway front end reads is returned as v1 whatever version
// it was written in, or refused when that version cannot be read as v1.
func Decode(file string, data []byte, wanted func(schema.GroupVersionKind) bool) ([]Object, []*Error) {
	var objs []Object
	var problems []*Error
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, []*Error{{File: file, Err: errors.New("the file is empty")}}
	}
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return nil, []*Error{{File: file, Err: errors.New("not a text file (invalid UTF-8 or NUL bytes)")}}
	}
	decoder := manifestDecoder
	content := false
	for doc, raw := range splitDocuments(data) {
		if len(raw) > maxDocumentSize {
			content = true
			problems = append(problems, &Error{File: file, Document: doc, Err: fmt.Errorf("document larger than %d MiB", maxDocumentSize>>20)})
			continue
		}
		if isBlankDocument(raw) {
			continue
		}
		content = true
		o, pr := decodeDocument(decoder, raw, wanted)
		for _, obj := range o {
			objs = append(objs, Object{Object: obj, File: file, Document: doc})
		}
		for _, e := range pr {
			e.File, e.Document = file, doc
			problems = append(problems, e)
		}
	}
	if !content {
		return nil, []*Error{{File: file, Err: errors.New("the file holds no object (only comments and separators)")}}
	}
	return objs, problems
}

// splitDocuments splits a YAML stream into its documents, numbered from 1
// as YAML counts them: a separator line ("---", or "--- " followed by
// content or a comment) starts a document; what stands before the first
// separator is a document only if it holds more than comments and blank
// lines. Empty documents between separators keep their number.
func splitDocuments(data []byte) iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		doc, start := 0, 0
		explicit := false // the current document was opened by a separator
		emit := func(end int) bool {
			chunk := data[start:end]
			if !explicit && isBlankDocument(chunk) {
				return true
			}
			doc++
			return yield(doc, chunk)
		}
		for pos := 0; pos < len(data); {
			end := bytes.IndexByte(data[pos:], '\n')
			next := len(data)
			if end >= 0 {
				end += pos
				next = end + 1
			} else {
				end = len(data)
			}
			line := bytes.TrimRight(data[pos:end], "\r")
			if bytes.Equal(line, []byte("---")) || bytes.HasPrefix(line, []byte("--- ")) || bytes.HasPrefix(line, []byte("---\t")) {
				if !emit(pos) {
					return
				}
				explicit = true
				// Content after the marker on the same line belongs to the document.
				start = pos + 3
				pos = next
				continue
			}
			pos = next
		}
		emit(len(data))
	}
}

// isBlankDocument says whether a document holds only comments and blank lines.
func isBlankDocument(raw []byte) bool {
	for line := range bytes.SplitSeq(raw, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] != '#' && !bytes.Equal(line, []byte("---")) {
			return false
		}
	}
	return true
}

func decodeDocument(decoder runtime.Decoder, raw []byte, wanted func(schema.GroupVersionKind) bool) ([]runtime.Object, []*Error) {
	if err := checkExpansion(raw, maxDocumentSize); err != nil {
		return nil, []*Error{{Err: err}}
	}
	data, err := sigsyaml.YAMLToJSON(raw)
	if err != nil {
		return nil, []*Error{{Err: fmt.Errorf("not valid YAML: %w", err)}}
	}
	return decodeJSON(decoder, data, wanted)
}

// decodeJSON decodes one object (or List) given as JSON.
func decodeJSON(decoder runtime.Decoder, data []byte, wanted func(schema.GroupVersionKind) bool) ([]runtime.Object, []*Error) {
	// Read the type first, so that an unknown kind is a warning and not a
	// decoding error. Keys are matched exactly, as the API server does.
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, []*Error{{Err: errors.New("not a Kubernetes object: a mapping with apiVersion and kind is required")}}
	}
	var apiVersion, kind string
	if json.Unmarshal(fields["apiVersion"], &apiVersion) != nil || json.Unmarshal(fields["kind"], &kind) != nil ||
		apiVersion == "" || kind == "" {
		return nil, []*Error{{Err: errors.New("not a Kubernetes object: apiVersion and kind are required")}}
	}
	gvk := schema.FromAPIVersionAndKind(apiVersion, kind)
	if strings.HasSuffix(kind, "List") && gvk.Group == "" && gvk.Version == "v1" {
		return decodeList(decoder, fields["items"], wanted)
	}
	if wanted != nil && !wanted(gvk) {
		return nil, []*Error{{Warning: true, Err: fmt.Errorf("%s %s is not used, skipped", excerpt.Text(apiVersion), excerpt.Text(kind))}}
	}
	if err := checkGatewayVersion(gvk); err != nil {
		return nil, []*Error{{Err: err}}
	}
	obj, _, err := decoder.Decode(data, nil, nil)
	if err != nil {
		return nil, []*Error{{Err: fmt.Errorf("%s %s: %w", excerpt.Text(apiVersion), excerpt.Text(kind), err)}}
	}
	obj, _ = asGatewayV1(obj)
	if err := checkMeta(obj); err != nil {
		return nil, []*Error{{Err: fmt.Errorf("%s: %w", kind, err)}}
	}
	return []runtime.Object{obj}, nil
}

func decodeList(decoder runtime.Decoder, items json.RawMessage, wanted func(schema.GroupVersionKind) bool) ([]runtime.Object, []*Error) {
	var list []json.RawMessage
	if len(items) > 0 {
		if err := json.Unmarshal(items, &list); err != nil {
			return nil, []*Error{{Err: fmt.Errorf("reading the List: items: %w", err)}}
		}
	}
	var objs []runtime.Object
	var problems []*Error
	for i, item := range list {
		o, pr := decodeJSON(decoder, item, wanted)
		objs = append(objs, o...)
		for _, e := range pr {
			e.Err = fmt.Errorf("items[%d]: %w", i, e.Err)
			problems = append(problems, e)
		}
	}
	return objs, problems
}

// checkExpansion refuses a document whose aliases would expand it past
// limit bytes (a "billion laughs" or an alias of a long string repeated):
// the expanded size is computed on the node tree, without expanding it.
func checkExpansion(raw []byte, limit int) error {
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(raw, &doc); err != nil {
		return nil // the YAML error is reported by the decoding that follows
	}
	sizes := map[*yamlv3.Node]int{}
	var size func(n *yamlv3.Node, depth int) int
	size = func(n *yamlv3.Node, depth int) int {
		if n == nil || depth > 10000 {
			return limit + 1
		}
		if s, ok := sizes[n]; ok {
			return s
		}
		sizes[n] = limit + 1 // an alias of a node being measured expands forever
		total := len(n.Value) + 1
		if n.Kind == yamlv3.AliasNode {
			total = size(n.Alias, depth+1)
		}
		for _, c := range n.Content {
			if total > limit {
				break
			}
			total += size(c, depth+1)
		}
		sizes[n] = total
		return total
	}
	if size(&doc, 0) > limit {
		return fmt.Errorf("the document expands past %d MiB through YAML aliases", limit>>20)
	}
	return nil
}

func checkMeta(obj runtime.Object) error {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	if accessor.GetName() == "" {
		return errors.New("metadata.name is required")
	}
	// As the API server would: no object has a longer name, and every
	// message about an object names it.
	if name := accessor.GetName(); len(name) > maxNameLength {
		return fmt.Errorf("metadata.name %s is longer than %d bytes", excerpt.Quote(name), maxNameLength)
	}
	if ns := accessor.GetNamespace(); len(ns) > maxNamespaceLength {
		return fmt.Errorf("metadata.namespace %s is longer than %d bytes", excerpt.Quote(ns), maxNamespaceLength)
	}
	return nil
}

// The longest names Kubernetes gives objects (a DNS subdomain) and
// namespaces (a DNS label).
const (
	maxNameLength      = 253
	maxNamespaceLength = 63
)
