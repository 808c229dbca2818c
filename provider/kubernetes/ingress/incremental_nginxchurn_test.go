package ingress

// nginxChurnAnnotations are the ingress-nginx annotations the churn sets
// and removes: each changes what the Ingress, or its host's other
// Ingresses, become (a regex host, a rewrite, a redirect), and some
// values are wrong or refused.
var nginxChurnAnnotations = []struct{ key, values []string }{
	{[]string{"nginx.ingress.kubernetes.io/use-regex"}, []string{"true", "false", "maybe"}},
	{[]string{"nginx.ingress.kubernetes.io/rewrite-target"}, []string{"/$1", "/"}},
	{[]string{"nginx.ingress.kubernetes.io/ssl-redirect"}, []string{"false", "true"}},
	{[]string{"nginx.ingress.kubernetes.io/force-ssl-redirect"}, []string{"true"}},
	{[]string{"nginx.ingress.kubernetes.io/configuration-snippet"}, []string{"more_set_headers x;"}},
	{[]string{"nginx.ingress.kubernetes.io/auth-unknown-thing"}, []string{"on"}},
	// Every family: an access annotation that cannot be honoured keeps
	// the Ingress closed, a canary joins its host's Ingress, a derived
	// load balancer follows its Service's slices.
	{[]string{"nginx.ingress.kubernetes.io/canary"}, []string{"true", "false"}},
	{[]string{"nginx.ingress.kubernetes.io/canary-weight"}, []string{"30", "100", "x"}},
	{[]string{"nginx.ingress.kubernetes.io/canary-by-header"}, []string{"X-Canary"}},
	{[]string{"nginx.ingress.kubernetes.io/auth-type"}, []string{"basic"}},
	{[]string{"nginx.ingress.kubernetes.io/auth-secret"}, []string{"tls-0", "tls-1", "missing"}},
	{[]string{"nginx.ingress.kubernetes.io/whitelist-source-range"}, []string{"10.0.0.0/8", "bad"}},
	{[]string{"nginx.ingress.kubernetes.io/denylist-source-range"}, []string{"192.168.0.0/16"}},
	{[]string{"nginx.ingress.kubernetes.io/affinity"}, []string{"cookie"}},
	{[]string{"nginx.ingress.kubernetes.io/backend-protocol"}, []string{"HTTPS", "GRPC", "FCGI"}},
	{[]string{"nginx.ingress.kubernetes.io/proxy-read-timeout"}, []string{"5", "-1"}},
	{[]string{"nginx.ingress.kubernetes.io/server-alias"}, []string{"h1.example", "alias.example"}},
	{[]string{"nginx.ingress.kubernetes.io/from-to-www-redirect"}, []string{"true"}},
	{[]string{"nginx.ingress.kubernetes.io/app-root"}, []string{"/app"}},
	{[]string{"nginx.ingress.kubernetes.io/enable-cors"}, []string{"true"}},
	{[]string{"nginx.ingress.kubernetes.io/limit-rps"}, []string{"10"}},
	{[]string{"nginx.ingress.kubernetes.io/default-backend"}, []string{"svc-00001", "missing"}},
	{[]string{"nginx.ingress.kubernetes.io/custom-http-errors"}, []string{"503,404"}},
	{[]string{"nginx.ingress.kubernetes.io/service-upstream"}, []string{"true"}},
	// A TCP router that copies its servers: translated again when they move.
	{[]string{"nginx.ingress.kubernetes.io/ssl-passthrough"}, []string{"true", "false"}},
}

// mutateNGINXAnnotations sets or removes one ingress-nginx annotation.
func (c *churn) mutateNGINXAnnotations(annotations map[string]string) {
	a := nginxChurnAnnotations[c.rnd.IntN(len(nginxChurnAnnotations))]
	key := a.key[0]
	if _, set := annotations[key]; set && c.rnd.IntN(2) == 0 {
		delete(annotations, key)
		return
	}
	annotations[key] = a.values[c.rnd.IntN(len(a.values))]
}
