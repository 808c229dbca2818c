package ingress

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// TestEachDialectFiltersWhatItReads: the change filter of each front end
// counts an update of an annotation that front end reads and drops one
// that only the other reads, and what its transform keeps is what its
// filter compares: an update the filter counts on objects as the API
// server sends them still counts after the transform.
func TestEachDialectFiltersWhatItReads(t *testing.T) {
	traefik := &Provider{}
	traefik.SetDefaults()
	nginx := &NGINXProvider{}
	nginx.SetDefaults()
	require.NoError(t, nginx.Init())

	ingress := func(annotations map[string]string) runtime.Object {
		return &netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", ResourceVersion: "1", Annotations: annotations}}
	}
	service := func(annotations map[string]string) runtime.Object {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", ResourceVersion: "1", Annotations: annotations}}
	}
	for _, tc := range []struct {
		name           string
		object         func(map[string]string) runtime.Object
		key            string
		traefik, nginx bool // whether each counts the update
	}{
		{"Traefik-style router annotation", ingress, "traefik.ingress.kubernetes.io/router.priority", true, false},
		{"ingress-nginx annotation", ingress, "nginx.ingress.kubernetes.io/rewrite-target", false, true},
		{"legacy class annotation", ingress, "kubernetes.io/ingress.class", true, true},
		{"another tool's Ingress annotation", ingress, "cert-manager.io/cluster-issuer", false, false},
		// Both dialects build load balancers with the same builder.
		{"Service load balancer annotation", service, "traefik.ingress.kubernetes.io/service.sticky.cookie", true, true},
		{"ingress-nginx annotation on a Service", service, "nginx.ingress.kubernetes.io/affinity", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, d := range []struct {
				name string
				keep k8s.Keep
				want bool
			}{{"Traefik-style", traefik.Reads(), tc.traefik}, {"ingress-nginx", nginx.Reads(), tc.nginx}} {
				old := tc.object(map[string]string{tc.key: "1"})
				updated := tc.object(map[string]string{tc.key: "2"})
				assert.Equal(t, d.want, d.keep.Changed(old, updated), "%s filter", d.name)
				trimmedOld, err := d.keep.Transform(old)
				require.NoError(t, err)
				trimmedNew, err := d.keep.Transform(updated)
				require.NoError(t, err)
				assert.Equal(t, d.want, d.keep.Changed(trimmedOld, trimmedNew), "%s filter after the transform", d.name)
			}
		})
	}
}
