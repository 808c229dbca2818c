package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/rs/zerolog"

	"github.com/sliceway/sliceway/config/static"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// newLogger builds the structured logger; logs never go to stdout, which
// carries the configuration.
func newLogger(cfg *static.Log, w io.Writer) (zerolog.Logger, error) {
	level, err := zerolog.ParseLevel(strings.ToLower(cfg.Level))
	if err != nil || cfg.Level == "" {
		return zerolog.Logger{}, fmt.Errorf("log.level %q: must be debug, info, warn or error", cfg.Level)
	}
	switch strings.ToLower(cfg.Format) {
	case "json":
	case "text", "":
		w = zerolog.ConsoleWriter{Out: w, NoColor: true, TimeFormat: "15:04:05"}
	default:
		return zerolog.Logger{}, fmt.Errorf("log.format %q: must be text or json", cfg.Format)
	}
	return zerolog.New(w).Level(level).With().Timestamp().Logger(), nil
}

// logObjectErrors logs the problems translation found, one line each, with
// the object in structured fields.
func logObjectErrors(logger zerolog.Logger, errs []*ingress.ObjectError) {
	for _, e := range errs {
		ev := logger.Error()
		if e.Severity == ingress.SeverityWarning {
			ev = logger.Warn()
		}
		ev.Str(strings.ToLower(e.Kind), e.Name).Str("namespace", e.Namespace)
		if e.Field != "" {
			ev.Str("field", e.Field)
		}
		ev.Msg(e.Error())
	}
}

// logManifestProblems logs the manifest problems and returns how many are
// errors (not warnings).
func logManifestProblems(logger zerolog.Logger, problems []*k8s.ManifestError) int {
	errs := 0
	for _, p := range problems {
		ev := logger.Warn()
		if !p.Warning {
			errs++
			ev = logger.Error()
		}
		ev.Str("file", p.File)
		if p.Document > 0 {
			ev.Int("document", p.Document)
		}
		ev.Msg(p.Error())
	}
	return errs
}
