package main

import (
	"io"

	"github.com/rs/zerolog"

	"github.com/sliceway/sliceway/config/static"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// newLogger builds the structured logger; logs never go to stdout, which
// carries the configuration.
func newLogger(cfg *static.Log, w io.Writer) (zerolog.Logger, error) { return cfg.NewLogger(w) }

// logObjectErrors logs the problems translation found, one line each, with
// the object in structured fields.
func logObjectErrors(logger zerolog.Logger, errs []*ingress.ObjectError) {
	for _, e := range errs {
		ingress.LogObjectError(logger, e)
	}
}

// logManifestProblems logs the manifest problems and returns how many are
// errors (not warnings).
func logManifestProblems(logger zerolog.Logger, problems []*k8s.ManifestError) int {
	return k8s.LogManifestProblems(logger, problems)
}
