package ingress

import (
	"github.com/sliceway/sliceway/provider/kubernetes/internal/engine"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// The render engine (package engine), which every front end shares, as
// this package's API.
type (
	// Renderer translates snapshots of one cluster again and again,
	// recomputing only what depends on the objects that changed.
	Renderer = engine.Renderer
	// RenderStats count a Renderer's renders by kind.
	RenderStats = engine.RenderStats
	// Result is the outcome of one translation.
	Result = engine.Result
	// Changes collects which objects changed since the last render, from
	// the informers' events (Record is a k8s.OnChange).
	Changes = engine.Changes
)

// NewRenderer returns a renderer with the options; they must not change
// while it is used.
func NewRenderer(opts *Provider) *Renderer {
	return engine.NewRenderer(engine.Options{
		Dialect:            dialectOf(opts),
		PlanOptions:        newPlanOptions(opts),
		LBOptions:          newLBOptions(opts),
		AllowEmptyServices: opts.AllowEmptyServices,
		ReadsClasses:       opts.readsClasses(),
		Locate:             func(snap Snapshot) translate.Location { return locate(opts, snap) },
	})
}

// Translate builds the dynamic configuration of a cluster snapshot. It is
// pure: it reads the snapshot, never writes to it, never logs, and reports
// what is wrong with an object as an ObjectError while building the rest.
// A provider that renders again and again keeps a Renderer instead, which
// recomputes only what depends on the objects that changed.
func Translate(snap Snapshot, opts *Provider) *Result {
	res, _ := NewRenderer(opts).Render(snap, nil)
	return res
}
