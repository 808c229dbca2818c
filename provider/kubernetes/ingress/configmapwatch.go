package ingress

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
)

// configMapWatch is the informer of the one ConfigMap a dialect reads
// (the ingress-nginx controller's): listed and watched by name, with a
// metadata.name field selector, so that RBAC can grant that ConfigMap
// and no other (a Role with resourceNames).
type configMapWatch struct {
	factory         informers.SharedInformerFactory
	namespace, name string
	lister          corelisters.ConfigMapLister
}

// watchConfigMap sets up the informer of the ConfigMap namespace/name.
func (c *Client) watchConfigMap(cs kubernetes.Interface, namespace, name string) error {
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector(metav1.ObjectNameField, name).String()
		}))
	inf := factory.Core().V1().ConfigMaps()
	if err := c.track("ConfigMap", "configmaps", namespace, inf.Informer(), nil, nil); err != nil {
		return err
	}
	c.configMaps = &configMapWatch{factory: factory, namespace: namespace, name: name, lister: inf.Lister()}
	return nil
}

// ConfigMap is the watched ConfigMap namespace/name, nil when it does
// not exist or is not the one watched.
func (s listerSnapshot) ConfigMap(namespace, name string) *corev1.ConfigMap {
	w := s.c.configMaps
	if w == nil || w.namespace != namespace || w.name != name {
		return nil
	}
	cm, err := w.lister.ConfigMaps(namespace).Get(name)
	if err != nil {
		return nil
	}
	return cm
}
