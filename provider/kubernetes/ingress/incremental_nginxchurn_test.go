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
