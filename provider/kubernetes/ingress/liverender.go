package ingress

import (
	"context"
	"time"

	"github.com/rs/zerolog"
)

// liveRender is the render step of Provide's loop: it renders from the
// listers, again only what the recorded changes touch, starts watching
// Nodes when a feature first needs them, and logs the object errors that
// are new since the previous render, so that a broken object is reported
// once and not at every render.
type liveRender struct {
	p        *Provider
	client   *Client
	log      zerolog.Logger
	engine   *Renderer
	changes  *Changes
	reported map[string]bool
	// the list the reported texts come from
	lastErrors []*ObjectError
}

// render says whether the configuration differs from the previous render's.
func (r *liveRender) render(ctx context.Context) (*Result, bool) {
	start := time.Now()
	before := r.engine.Stats()
	defer r.tellKinds(before)
	res, changed := r.engine.Render(r.client.Snapshot(), r.changes)
	if st := r.engine.Stats(); st.Recovered > before.Recovered {
		r.log.Error().Str("panic", st.LastRecovered).
			Msg("an incremental render failed (a bug: please report it with this message); rendered everything instead")
	}
	if res.NeedsNodes && !r.client.WatchesNodes() {
		r.log.Info().Msg("a feature needs Nodes (service.nodeportlb, or topology.node without topology.zone): watching Nodes")
		if err := r.client.EnsureNodes(ctx, time.Duration(r.p.SyncTimeout)); err != nil {
			if ctx.Err() != nil {
				return nil, false
			}
			r.log.Error().Err(err).Msg("cannot watch Nodes: node-port services have no servers and zone hints are not used until they sync")
		}
		r.changes.All()
		var again bool
		res, again = r.engine.Render(r.client.Snapshot(), r.changes)
		changed = changed || again
	}
	took := time.Since(start)
	r.p.observer.Rendered(time.Now(), took, len(res.Errors))
	// The renderer hands out the same list while the problems are the same.
	if r.reported == nil || !sameList(res.Errors, r.lastErrors) {
		now := make(map[string]bool, len(res.Errors))
		for _, e := range res.Errors {
			msg := e.Error()
			now[msg] = true
			if !r.reported[msg] {
				LogObjectError(r.log, e)
			}
		}
		r.reported, r.lastErrors = now, res.Errors
	}
	r.log.Debug().Dur("took", took).Int("routers", len(res.Configuration.HTTP.Routers)).
		Int("services", len(res.Configuration.HTTP.Services)).Bool("changed", changed).Msg("rendered")
	return res, changed
}

// tellKinds tells a RenderKindObserver the renders done since before, and
// a RenderWorkObserver what they did.
func (r *liveRender) tellKinds(before RenderStats) {
	now := r.engine.Stats()
	if o, ok := r.p.observer.(RenderWorkObserver); ok {
		o.RenderedWork(now.Translated-before.Translated, now.Refreshed-before.Refreshed)
	}
	o, ok := r.p.observer.(RenderKindObserver)
	if !ok {
		return
	}
	for _, k := range []struct {
		kind string
		n    int
	}{
		{"full", now.Full - before.Full - (now.Recovered - before.Recovered)},
		{"incremental", now.Incremental - before.Incremental - (now.Reassembled - before.Reassembled) - (now.Recovered - before.Recovered)},
		{"reassembled", now.Reassembled - before.Reassembled},
		{"recovered", now.Recovered - before.Recovered},
	} {
		for range k.n {
			o.RenderedKind(k.kind)
		}
	}
}
