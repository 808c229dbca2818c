package k8s

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
)

// UsedKinds are the kinds the Ingress provider reads; manifests of other
// kinds are skipped with a warning.
var UsedKinds = []schema.GroupVersionKind{
	netv1.SchemeGroupVersion.WithKind("Ingress"),
	netv1.SchemeGroupVersion.WithKind("IngressClass"),
	corev1.SchemeGroupVersion.WithKind("Service"),
	corev1.SchemeGroupVersion.WithKind("Secret"),
	corev1.SchemeGroupVersion.WithKind("Node"),
	corev1.SchemeGroupVersion.WithKind("Namespace"),
	discoveryv1.SchemeGroupVersion.WithKind("EndpointSlice"),
}

// IsUsedKind says whether the provider reads objects of this kind.
func IsUsedKind(gvk schema.GroupVersionKind) bool {
	for _, k := range UsedKinds {
		if k == gvk {
			return true
		}
	}
	return false
}

// clusterScoped are the kinds that live outside namespaces.
var clusterScoped = map[string]bool{"IngressClass": true, "Node": true, "Namespace": true}

// NewFakeCluster serves objects as an in-memory cluster through client-go's
// fake clientset, so that the informer path of the live provider runs
// unchanged on manifests. Namespaced objects without a namespace go to
// "default", as kubectl does. An object that is already there (same kind,
// namespace and name) is an error naming both sources; the first one stays.
func NewFakeCluster(objs []Object) (kubernetes.Interface, []*ManifestError) {
	cs := fake.NewClientset()
	var problems []*ManifestError
	seen := map[string]string{}
	for _, o := range objs {
		accessor, err := meta.Accessor(o.Object)
		if err != nil {
			problems = append(problems, &ManifestError{File: o.File, Document: o.Document, Err: err})
			continue
		}
		gvk := o.Object.GetObjectKind().GroupVersionKind()
		if gvk.Kind == "" {
			// Built in Go rather than decoded: ask the scheme.
			if kinds, _, err := scheme.Scheme.ObjectKinds(o.Object); err == nil && len(kinds) > 0 {
				gvk = kinds[0]
			}
		}
		if !clusterScoped[gvk.Kind] && accessor.GetNamespace() == "" {
			accessor.SetNamespace(corev1.NamespaceDefault)
		}
		id := gvk.Kind + " " + accessor.GetName()
		if accessor.GetNamespace() != "" {
			id = gvk.Kind + " " + accessor.GetNamespace() + "/" + accessor.GetName()
		}
		if first, dup := seen[id]; dup {
			problems = append(problems, &ManifestError{File: o.File, Document: o.Document, Err: fmt.Errorf("%s is defined again (first in %s); this copy is skipped", id, first)})
			continue
		}
		if err := cs.Tracker().Add(o.Object); err != nil {
			problems = append(problems, &ManifestError{File: o.File, Document: o.Document, Err: fmt.Errorf("%s: %w", id, err)})
			continue
		}
		seen[id] = o.Source()
	}
	return cs, problems
}
