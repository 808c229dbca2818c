package main

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// reloadCheckInterval is how often a reloaded value looks at its files
// again: a rotation is picked up within it, and a busy server stats its
// files at most this often.
const reloadCheckInterval = time.Second

// fileStamp is what says a file changed: Kubernetes replaces a mounted
// Secret's files by swapping a symlink, cert-manager and editors rewrite
// them; each changes the modification time or the size.
type fileStamp struct {
	modTime time.Time
	size    int64
}

// reloaded is a value parsed from files, parsed again when one of them
// changes. A parse that fails after the first keeps the last good value
// (a rotation may write the certificate before its key) and is logged;
// the next change is tried again.
//
// A fail-closed value (newFailClosed: a credential) is withdrawn instead:
// while its file is missing, unreadable, empty or otherwise unusable,
// current returns an error naming the file, and what the file held is
// accepted no more, since emptying or deleting a token file is how an
// operator revokes it.
type reloaded[T any] struct {
	what       string // for logs: "serve.tls.cert and serve.tls.key"
	paths      []string
	parse      func(contents [][]byte) (T, error)
	log        zerolog.Logger
	failClosed bool

	mu      sync.Mutex
	stamps  []fileStamp
	checked time.Time
	value   T
	err     error  // fail-closed: why there is no value now
	said    string // fail-closed: the failure last logged, logged once
}

// newReloaded reads and parses the files once: an error here stops the
// start, naming the files.
func newReloaded[T any](what string, log zerolog.Logger, parse func([][]byte) (T, error), paths ...string) (*reloaded[T], error) {
	r := &reloaded[T]{what: what, paths: paths, parse: parse, log: log}
	stamps, contents, err := r.read()
	if err == nil {
		r.value, err = parse(contents)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	r.stamps, r.checked = stamps, time.Now()
	return r, nil
}

// newFailClosed is newReloaded for a credential: see reloaded.
func newFailClosed[T any](what string, log zerolog.Logger, parse func([][]byte) (T, error), paths ...string) (*reloaded[T], error) {
	r, err := newReloaded(what, log, parse, paths...)
	if r != nil {
		r.failClosed = true
	}
	return r, err
}

// current returns the value, or, for a fail-closed one whose files cannot
// be used now, an error naming them. The files are looked at again when
// the last look is older than reloadCheckInterval.
func (r *reloaded[T]) current() (T, error) {
	if !r.failClosed {
		return r.get(), nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if now := time.Now(); now.Sub(r.checked) >= reloadCheckInterval {
		r.checked = now
		r.recheck()
	}
	return r.value, r.err
}

// recheck reads a fail-closed value's files at every look, whatever their
// stamps: they are a few bytes, and a change of permissions or owner,
// which can make them unreadable, leaves modification time and size
// alone.
func (r *reloaded[T]) recheck() {
	stamps, contents, err := r.read()
	var value T
	if err == nil {
		value, err = r.parse(contents)
	}
	if err != nil {
		var zero T
		r.value, r.stamps = zero, nil
		r.err = fmt.Errorf("%s %s: %w", r.what, strings.Join(r.paths, ", "), err)
		if msg := err.Error(); msg != r.said {
			r.said = msg
			r.log.Error().Err(err).Strs("files", r.paths).Msgf("%s cannot be used: every request that needs it is refused until it can", r.what)
		}
		return
	}
	if r.err != nil || !equalStamps(stamps, r.stamps) {
		r.log.Info().Strs("files", r.paths).Msgf("%s read again", r.what)
	}
	r.value, r.err, r.stamps, r.said = value, nil, stamps, ""
}

// get returns the current value, reading the files again first when they
// changed and the last look is older than reloadCheckInterval.
func (r *reloaded[T]) get() T {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	if now.Sub(r.checked) < reloadCheckInterval {
		return r.value
	}
	r.checked = now
	stamps, err := r.stat()
	if err != nil {
		r.log.Error().Err(err).Msgf("%s: cannot be read; keeping the last good value", r.what)
		return r.value
	}
	if equalStamps(stamps, r.stamps) {
		return r.value
	}
	stamps, contents, err := r.read()
	var value T
	if err == nil {
		value, err = r.parse(contents)
	}
	if err != nil {
		r.log.Error().Err(err).Msgf("%s changed but cannot be used; keeping the last good value", r.what)
		return r.value
	}
	r.stamps, r.value = stamps, value
	r.log.Info().Strs("files", r.paths).Msgf("%s read again", r.what)
	return value
}

func (r *reloaded[T]) stat() ([]fileStamp, error) {
	stamps := make([]fileStamp, len(r.paths))
	for i, p := range r.paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		// A named pipe would hold every request up while it is read.
		if !info.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file (%s)", p, info.Mode().Type())
		}
		stamps[i] = fileStamp{modTime: info.ModTime(), size: info.Size()}
	}
	return stamps, nil
}

// read stats and reads every file; the stamps are taken before the
// contents, so a change during the read is seen at the next look.
func (r *reloaded[T]) read() ([]fileStamp, [][]byte, error) {
	stamps, err := r.stat()
	if err != nil {
		return nil, nil, err
	}
	contents := make([][]byte, len(r.paths))
	for i, p := range r.paths {
		if contents[i], err = os.ReadFile(p); err != nil {
			return nil, nil, err
		}
	}
	return stamps, contents, nil
}

func equalStamps(a, b []fileStamp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].modTime.Equal(b[i].modTime) || a[i].size != b[i].size {
			return false
		}
	}
	return true
}
