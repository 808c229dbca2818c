package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rs/zerolog"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/sliceway/sliceway/provider/kubernetes/manifests"
)

// How long the files must stay quiet after a change before they are read
// again, and how long a stream of changes can put the read off: an editor's
// save (write a temporary file, rename it over the old one) is one read,
// and a change is rendered well within a second.
const (
	followQuiet    = 150 * time.Millisecond
	followMaxDelay = 500 * time.Millisecond
)

// followStuckAfter is how long a read of the manifests may take before
// the follower is taken for stuck: reading and decoding the largest
// manifests takes seconds; a read that has not returned for this long
// waits on something that may never come (a file system that hangs), and
// no change would be followed any more. /healthz then says so.
const followStuckAfter = 30 * time.Second

// maxRereads bounds the reads of one change: a read that finds a new
// directory watches it and reads again, for what was written into it
// before the watch began.
const maxRereads = 5

// manifestFollower keeps a manifests.Cluster equal to the manifests on disk:
// it watches the directories that hold them and, when something changes
// there, reads the files again and applies the objects, which the provider
// then sees as changes in a cluster.
type manifestFollower struct {
	set     *manifests.Set
	cluster *manifests.Cluster
	watcher *fsnotify.Watcher
	logger  zerolog.Logger
	// said are the problems of the cluster itself (an object defined
	// twice) at the last apply: they are logged when they first appear.
	said map[string]bool

	// What the read in progress waits on, for health: since when (Unix
	// nanoseconds, 0 between reads) and the path or file it reached.
	stuckAfter  time.Duration
	readSet     func() (bool, []*manifests.Error) // set.Read; a test's stands in
	readingFrom atomic.Int64
	readingName atomic.Pointer[string]
}

// followManifests reads the manifests of paths, serves them as an
// in-memory cluster and starts watching them. It logs the problems found
// and counts the errors among them; no usable object at all is an error.
// Run must follow, or Close.
func followManifests(paths []string, wanted func(schema.GroupVersionKind) bool, logger zerolog.Logger) (*manifestFollower, int, error) {
	watcher, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, 0, fmt.Errorf("following the manifests: %w (--followmanifests=false reads them once)", err)
	}
	f := &manifestFollower{
		set:     manifests.NewSet(paths, wanted),
		cluster: manifests.NewCluster(),
		watcher: watcher,
		logger:  logger,
		said:    map[string]bool{},

		stuckAfter: followStuckAfter,
	}
	f.readSet = f.set.Read
	f.set.OnRead(func(name string) { f.readingName.Store(&name) })
	_, problems := f.read()
	errs := manifests.LogProblems(logger, problems)
	objs := f.set.Objects()
	_, more := f.cluster.Apply(objs)
	errs += f.logClusterProblems(more)
	if len(objs) == 0 && errs > 0 {
		_ = watcher.Close()
		return nil, errs, errors.New("no usable object in the manifests")
	}
	return f, errs, nil
}

// Close stops watching the files.
func (f *manifestFollower) Close() error { return f.watcher.Close() }

// Run follows the files until ctx is done, then closes the watcher.
func (f *manifestFollower) Run(ctx context.Context) {
	defer func() { _ = f.watcher.Close() }()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	pending := false
	var since time.Time // the first change not read yet
	wake := func() {
		now := time.Now()
		if !pending {
			pending, since = true, now
		}
		// Quiet for followQuiet, but no later than followMaxDelay after
		// the first change.
		timer.Reset(min(followQuiet, max(0, followMaxDelay-now.Sub(since))))
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-f.watcher.Events:
			if !ok {
				return
			}
			f.logger.Debug().Str("file", ev.Name).Str("op", ev.Op.String()).Msg("manifests changed on disk")
			wake()
		case err, ok := <-f.watcher.Errors:
			if !ok {
				return
			}
			// Events may have been lost (an overflow): read everything again.
			f.logger.Warn().Err(err).Msg("following the manifests: reading them again")
			wake()
		case <-timer.C:
			pending = false
			f.update()
		}
	}
}

// update reads the files again and applies what changed.
func (f *manifestFollower) update() {
	changed, problems := f.read()
	manifests.LogProblems(f.logger, problems)
	if !changed {
		f.logger.Debug().Msg("manifests read again: no change")
		return
	}
	res, more := f.cluster.Apply(f.set.Objects())
	f.logClusterProblems(more)
	if !res.Changed() {
		f.logger.Debug().Msg("manifests read again: no object changed")
		return
	}
	f.logger.Info().Int("added", res.Added).Int("updated", res.Updated).Int("deleted", res.Deleted).Msg("manifests read again")
}

// read reads the set and watches the directories it found, reading again
// when a directory is new, for the files written into it before its watch.
func (f *manifestFollower) read() (bool, []*manifests.Error) {
	f.readingFrom.Store(time.Now().UnixNano())
	defer f.readingFrom.Store(0)
	var changed bool
	var problems []*manifests.Error
	for range maxRereads {
		c, p := f.readSet()
		changed = changed || c
		problems = append(problems, p...)
		for _, name := range f.set.Fixed() {
			// Its errors were said; so is their end.
			f.logger.Info().Str("file", name).Msg("reads without errors again")
		}
		if !f.watchDirs() {
			break
		}
	}
	return changed, problems
}

// watchDirs watches the directories of the set and no others, and says
// whether one is new. What is watched is asked of the watcher, which drops
// a directory deleted or moved away: one made again under the same name is
// a new directory to watch.
func (f *manifestFollower) watchDirs() bool {
	watched := map[string]bool{}
	for _, d := range f.watcher.WatchList() {
		watched[d] = true
	}
	wanted := map[string]bool{}
	added := false
	for _, d := range f.set.Dirs() {
		wanted[d] = true
		if watched[d] {
			continue
		}
		if err := f.watcher.Add(d); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				f.logger.Warn().Err(err).Str("directory", d).Msg("cannot follow the changes of this directory")
			}
			continue
		}
		added = true
	}
	for d := range watched {
		if !wanted[d] {
			_ = f.watcher.Remove(d) // no manifest is read from it any more
		}
	}
	return added
}

// logClusterProblems logs the problems the cluster found that the last
// apply did not, and counts the errors among all of them.
func (f *manifestFollower) logClusterProblems(problems []*manifests.Error) int {
	said := make(map[string]bool, len(problems))
	var fresh []*manifests.Error
	errs := 0
	for _, p := range problems {
		said[p.Error()] = true
		if !p.Warning {
			errs++
		}
		if !f.said[p.Error()] {
			fresh = append(fresh, p)
		}
	}
	f.said = said
	manifests.LogProblems(f.logger, fresh)
	return errs
}

// health says whether the follower can make progress: an error naming
// what a read has waited on for longer than stuckAfter, else nil. It is
// safe beside Run.
func (f *manifestFollower) health() error {
	from := f.readingFrom.Load()
	if from == 0 {
		return nil
	}
	waited := time.Since(time.Unix(0, from))
	if waited < f.stuckAfter {
		return nil
	}
	name := "the manifests"
	if n := f.readingName.Load(); n != nil {
		name = *n
	}
	return fmt.Errorf("following the manifests is stuck: the read of %s has not returned for %s, and no change is followed until it does", name, waited.Round(time.Second))
}

// monitor logs when the follower gets stuck and when it is no longer,
// for watch, which has no /healthz, and for serve's log.
func (f *manifestFollower) monitor(ctx context.Context) {
	ticker := time.NewTicker(max(f.stuckAfter/4, 10*time.Millisecond))
	defer ticker.Stop()
	stuck := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			err := f.health()
			switch {
			case err != nil && !stuck:
				f.logger.Error().Err(err).Msg("the manifests are no longer followed")
			case err == nil && stuck:
				f.logger.Info().Msg("following the manifests again: the read that was stuck returned")
			}
			stuck = err != nil
		}
	}
}
