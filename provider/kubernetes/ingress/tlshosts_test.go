package ingress

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"

	to "github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// Two Traefik-style Ingresses of one host that name different TLS
// options: the older one's routers decide, the younger one's TLS router
// is left out with an error that names both.
func TestOneTLSOptionPerHost(t *testing.T) {
	ing := func(name string, created int64, options string) *netv1.Ingress {
		i := to.NewIngress("default", name, to.WithCreated(created), to.WithPath("shop.example", "/"+name, "web", 80, ""),
			to.WithAnnotation(to.Annotation("router.tls"), "true"))
		if options != "" {
			i.Annotations[to.Annotation("router.tls.options")] = options
		}
		return i
	}
	objs := append(to.Backend("default", "web", "10.0.0.1"), ing("old", 100, "default-mtls@kubernetescrd"), ing("young", 200, ""), ing("alike", 300, "default-mtls@kubernetescrd"))
	res := Translate(to.NewSnapshot(objs...), benchOptions())
	var tls []string
	for name, rt := range res.Configuration.HTTP.Routers {
		if rt.TLS != nil {
			tls = append(tls, name+" "+rt.TLS.Options)
		}
	}
	require.ElementsMatch(t, []string{"default-old-shop-example-old default-mtls@kubernetescrd", "default-alike-shop-example-alike default-mtls@kubernetescrd"}, tls)
	var errs []string
	for _, e := range res.Errors {
		errs = append(errs, e.Error())
	}
	require.Contains(t, strings.Join(errs, "\n"), "Ingress default/old, which is older, gives the host's TLS routers TLS option default-mtls@kubernetescrd; this path's router default-young-shop-example-young names default")
}
