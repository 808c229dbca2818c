package ingress

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	to "github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// What an Ingress's annotations multiply counts against maxIngressOutput:
// a canary over the bound is not used by its main Ingress, and an
// Ingress whose paths each derive a service with every server of a large
// Service is skipped, with an error, instead of growing the
// configuration by tens of megabytes.
func TestNGINXOutputBoundCountsWhatAnnotationsMultiply(t *testing.T) {
	nginxClass := to.NewClass("nginx", "k8s.io/ingress-nginx", false)
	errorsOf := func(res *Result) string {
		var lines []string
		for _, e := range res.Errors {
			lines = append(lines, e.Error())
		}
		return strings.Join(lines, "\n")
	}
	size := func(res *Result) int {
		out, err := dynamic.MarshalYAML(res.Configuration)
		require.NoError(t, err)
		return len(out)
	}

	t.Run("a canary over the bound", func(t *testing.T) {
		main := to.ManyPaths("shop", "main", "shop.example", "web", 200, nil)
		canary := to.ManyPaths("shop", "canary", "shop.example", "web-next", 200, map[string]string{
			"nginx.ingress.kubernetes.io/canary":                   "true",
			"nginx.ingress.kubernetes.io/canary-by-header":         "X-Canary",
			"nginx.ingress.kubernetes.io/canary-by-header-pattern": "^(" + strings.Repeat("a|", 50_000) + "b)$",
		})
		for i, ing := range []*netv1.Ingress{main, canary} {
			to.WithClassName("nginx")(ing)
			to.WithCreated(int64(i + 1))(ing)
		}
		objs := append([]any{nginxClass, main, canary}, to.Backend("shop", "web", "10.0.0.1")...)
		objs = append(objs, to.Backend("shop", "web-next", "10.0.0.2")...)
		res := renderNGINXObjects(t, nil, objs...)
		require.Contains(t, errorsOf(res), "over maxIngressOutput")
		for name := range res.Configuration.HTTP.Routers {
			require.NotContains(t, name, "canary", "the canary is not used")
		}
		require.Less(t, size(res), 1<<20)
	})

	t.Run("derived services of a large Service", func(t *testing.T) {
		eps := make([]discoveryv1.Endpoint, 1000)
		for i := range eps {
			eps[i] = to.Endpoint(fmt.Sprintf("10.1.%d.%d", i/250, i%250+1), to.Ready)
		}
		ing := to.ManyPaths("shop", "sticky", "shop.example", "big", 1000, map[string]string{"nginx.ingress.kubernetes.io/affinity": "cookie"})
		to.WithClassName("nginx")(ing)
		objs := []any{nginxClass, ing, to.NewService("shop", "big", to.ServicePort("", 80)), to.NewSlice("shop", "big-1", "big", "", 8080, eps...)}
		res := renderNGINXObjects(t, nil, objs...)
		require.Contains(t, errorsOf(res), "over maxIngressOutput (8388608 bytes), counting their canary routers, the services derived from load balancers with all their servers")
		require.Empty(t, res.Configuration.HTTP.Routers, "the Ingress is skipped")
		require.Less(t, size(res), 1<<20)

		// The same paths with one cookie path share one derived service.
		ing.Annotations["nginx.ingress.kubernetes.io/session-cookie-path"] = "/"
		res = renderNGINXObjects(t, nil, objs...)
		require.NotContains(t, errorsOf(res), "maxIngressOutput")
		require.Len(t, res.Configuration.HTTP.Routers, 1000)
		require.Len(t, res.Configuration.HTTP.Services, 1, "one service derived from the load balancer, shared by the paths")
	})
}
