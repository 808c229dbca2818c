package ingress

import (
	"errors"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/engine"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/nginx"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// configMapReader is the optional method of a Snapshot that gives the
// ConfigMap the client watches for its dialect (nil when there is none,
// or when the client watches no such ConfigMap).
type configMapReader interface {
	ConfigMap(namespace, name string) *corev1.ConfigMap
}

func (d *nginxDialect) configMap() (string, string) {
	ns, name, _ := strings.Cut(d.configMapRef, "/")
	return ns, name
}

// Settings reads the controller's ConfigMap, when the options name one,
// into the dialect's options. A ConfigMap that is missing closes every
// Ingress: it may hold the cluster's allow lists or authentication, and
// serving without them would let in everybody they keep out.
func (d *nginxDialect) Settings(snap Snapshot, prev engine.Dialect) (engine.Dialect, []*ObjectError) {
	if d.configMapRef == "" {
		return d, nil
	}
	ns, name := d.configMap()
	var cm *corev1.ConfigMap
	if r, ok := snap.(configMapReader); ok {
		cm = r.ConfigMap(ns, name)
	}
	var ctl *nginx.Controller
	var errs []*ObjectError
	if cm == nil {
		ctl = nginx.MissingController(d.configMapRef)
		errs = append(errs, &ObjectError{Kind: "ConfigMap", Namespace: ns, Name: name, Severity: translate.SeverityError,
			Err: errors.New("not found: the configMap option names it, and every Ingress's paths answer 403 until it exists")})
	} else {
		var problems []nginx.KeyProblem
		ctl, problems = d.opts.ParseConfigMap(d.configMapRef, cm.Data)
		for _, p := range problems {
			severity := translate.SeverityError
			if p.Warning {
				severity = translate.SeverityWarning
			}
			errs = append(errs, &ObjectError{Kind: "ConfigMap", Namespace: ns, Name: name, Field: "data[" + p.Key + "]", Severity: severity, Err: p.Err})
		}
	}
	if p, ok := prev.(*nginxDialect); ok && p.configMapRef == d.configMapRef && p.opts.SameController(ctl) {
		return p, errs
	}
	configured := *d
	configured.opts = d.opts.WithController(ctl)
	return &configured, errs
}
