package clustergen

import (
	"fmt"

	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// NGINXClass is the IngressClass of ingress-nginx's controller that
// WithNGINXAnnotations gives the Ingresses.
const NGINXClass = "nginx"

// WithNGINXAnnotations makes the generated cluster one of ingress-nginx
// users: an IngressClass nginx of controller k8s.io/ingress-nginx, every
// Ingress of that class with the annotations such clusters carry, in a
// few sets repeated as charts leave them: a body size and a source range
// on all, a rewrite on one in two, CORS on one in three, a sticky cookie
// on one in four, a rate limit on one in ten, an https backend on one in
// twenty. It changes objs in place and returns them with the class.
func WithNGINXAnnotations(objs []runtime.Object) []runtime.Object {
	const prefix = "nginx.ingress.kubernetes.io/"
	class := NGINXClass
	i := 0
	for _, o := range objs {
		ing, ok := o.(*netv1.Ingress)
		if !ok {
			continue
		}
		ing.Spec.IngressClassName = &class
		a := map[string]string{
			prefix + "proxy-body-size":        "8m",
			prefix + "whitelist-source-range": fmt.Sprintf("10.%d.0.0/16,192.168.0.0/24", i%Teams),
		}
		if i%2 == 0 {
			a[prefix+"rewrite-target"] = "/"
		}
		if i%3 == 0 {
			a[prefix+"enable-cors"] = "true"
			a[prefix+"cors-allow-origin"] = "https://app.example.com"
		}
		if i%4 == 0 {
			a[prefix+"affinity"] = "cookie"
			a[prefix+"session-cookie-name"] = "route"
		}
		if i%10 == 0 {
			a[prefix+"limit-rps"] = "50"
		}
		if i%20 == 0 {
			a[prefix+"backend-protocol"] = "HTTPS"
		}
		for k, v := range ing.Annotations {
			a[k] = v
		}
		ing.Annotations = a
		i++
	}
	return append(objs, &netv1.IngressClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "IngressClass"},
		ObjectMeta: metav1.ObjectMeta{Name: NGINXClass},
		Spec:       netv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"},
	})
}
