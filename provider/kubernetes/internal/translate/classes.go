package translate

import (
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// Ingress class names and annotations.
const (
	// ControllerName is the controller an IngressClass must name to be ours.
	ControllerName = "traefik.io/ingress-controller"
	// AnnotationIngressClass is the legacy class annotation.
	AnnotationIngressClass = k8s.IngressClassAnnotation
	// AnnotationDefaultClass marks the cluster's default IngressClass.
	AnnotationDefaultClass = k8s.DefaultClassAnnotation
	// defaultClassAnnotationValue is the legacy annotation value served when no class option is set.
	defaultClassAnnotationValue = "traefik"
)

// ClassSet is what the IngressClasses of the cluster say about which
// Ingresses are ours, with the ingressClass option.
type ClassSet struct {
	option        string
	ours          map[string]bool
	defaultExists bool
	defaultIsOurs bool
}

// ReadClasses reads the IngressClasses of snap for the ingressClass option.
func ReadClasses(snap Snapshot, option string) ClassSet {
	cs := ClassSet{option: option, ours: map[string]bool{}}
	for _, ic := range snap.IngressClasses() {
		if ic == nil {
			continue
		}
		isDefault := ic.Annotations[AnnotationDefaultClass] == "true"
		ours := ic.Spec.Controller == ControllerName && (option == "" || ic.Name == option)
		if ours {
			cs.ours[ic.Name] = true
		}
		if isDefault {
			cs.defaultExists = true
			cs.defaultIsOurs = cs.defaultIsOurs || ours
		}
	}
	return cs
}

// Serves says whether an Ingress is for this provider: its ingressClassName
// names one of our IngressClasses; or its legacy class annotation matches the
// ingressClass option ("traefik" when the option is empty); or it names no
// class at all and either the cluster's default IngressClass is ours or, when
// the cluster has no default class, the ingressClass option is empty.
func (cs ClassSet) Serves(ing *netv1.Ingress) bool {
	if ing.Spec.IngressClassName != nil {
		return cs.ours[*ing.Spec.IngressClassName]
	}
	if annotation := ing.Annotations[AnnotationIngressClass]; annotation != "" {
		return annotation == cs.option || (cs.option == "" && annotation == defaultClassAnnotationValue)
	}
	if cs.defaultExists {
		return cs.defaultIsOurs
	}
	return cs.option == ""
}
