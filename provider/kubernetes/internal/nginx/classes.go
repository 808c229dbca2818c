package nginx

import (
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// Defaults of the class options, ingress-nginx's own.
const (
	DefaultControllerClass = "k8s.io/ingress-nginx"
	DefaultIngressClass    = "nginx"
)

// ClassOptions say which Ingresses are served, as ingress-nginx's
// --controller-class, --ingress-class, --ingress-class-by-name and
// --watch-ingress-without-class flags do.
type ClassOptions struct {
	ControllerClass    string // an IngressClass of this controller is ours
	IngressClass       string // the legacy annotation's value that is ours
	IngressClassByName bool   // spec.ingressClassName equal to IngressClass is ours, whatever its IngressClass says
	WatchWithoutClass  bool   // an Ingress that names no class is ours
}

// ClassSet is what the IngressClasses of the cluster say about which
// Ingresses are ours.
type ClassSet struct {
	opts          ClassOptions
	ours          map[string]bool
	defaultIsOurs bool
}

// ReadClasses reads the IngressClasses of snap.
func ReadClasses(snap translate.Snapshot, opts ClassOptions) ClassSet {
	cs := ClassSet{opts: opts, ours: map[string]bool{}}
	for _, ic := range snap.IngressClasses() {
		if ic == nil || ic.Spec.Controller != opts.ControllerClass {
			continue
		}
		cs.ours[ic.Name] = true
		if ic.Annotations[translate.AnnotationDefaultClass] == "true" {
			cs.defaultIsOurs = true
		}
	}
	return cs
}

// Serves says whether ingress-nginx, with these options, would serve ing:
// its spec.ingressClassName names an IngressClass of our controller (or,
// by name, the ingressClass option); else its legacy class annotation is
// the ingressClass option; else, naming no class, it is served when
// watchIngressWithoutClass is on or the cluster's default IngressClass is
// ours.
func (cs ClassSet) Serves(ing *netv1.Ingress) bool {
	if name := ing.Spec.IngressClassName; name != nil {
		return cs.ours[*name] || cs.opts.IngressClassByName && *name == cs.opts.IngressClass
	}
	if annotation, ok := ing.Annotations[translate.AnnotationIngressClass]; ok && annotation != "" {
		return annotation == cs.opts.IngressClass
	}
	return cs.opts.WatchWithoutClass || cs.defaultIsOurs
}
