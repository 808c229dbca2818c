package nginx

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// clientCertConfig is what the client certificate annotations say.
type clientCertConfig struct {
	secret string // namespace/name (or name) of a Secret with ca.crt
	verify string // on (default) or off
	pass   bool
}

func (c *clientCertConfig) setDefaults() { c.verify = "on" }

// certSource is the Ingress whose client certificate annotations are its
// host's.
type certSource struct {
	ing *netv1.Ingress
	cfg clientCertConfig
}

// Client certificates are a TLS option in Traefik (clientAuth), chosen
// by the SNI host, as ingress-nginx's are its server's: the oldest
// Ingress of a host with auth-tls-secret decides for every path of the
// host, and every TLS router of the host names the host's option (two
// options for one host would make Traefik fall back to its default one,
// which asks for no certificate). Differences:
//   - plain http requests to the host are redirected to https (301 for
//     GET, 308 for other methods), whatever ssl-redirect says: nginx
//     serves them without a certificate;
//   - a host without spec.tls, a Secret without ca.crt (nginx then turns
//     the check off), or one with ca.crl (Traefik has no revocation list)
//     closes the paths (they answer 403);
//   - a failed check ends the TLS handshake where nginx answers 400;
//   - auth-tls-verify-depth is not honoured: Go verifies chains of any
//     length up to a CA of ca.crt (nginx's default depth 1 accepts only
//     certificates the CA signed itself);
//   - optional and optional_no_ca are refused: Traefik cannot tell the
//     backend the outcome (ssl-client-verify), so it could not tell a
//     verified client from another;
//   - the backend gets ssl-client-verify: SUCCESS (every request on the
//     TLS router was verified) and not ssl-client-subject-dn or
//     ssl-client-issuer-dn (removed, so a client cannot send its own);
//     auth-tls-pass-certificate-to-upstream sends the certificate in
//     X-Forwarded-Tls-Client-Cert (Traefik's passTLSClientCert), not in
//     ssl-client-cert.
var clientCertAnnotations = []annotation{
	{name: "auth-tls-secret", access: true, parse: func(v string, c *Config) error {
		if err := checkSecretRef(v); err != nil {
			return err
		}
		c.Access.ClientCert.secret = strings.TrimSpace(v)
		return nil
	}},
	{name: "auth-tls-verify-client", access: true, parse: func(v string, c *Config) error {
		switch v = strings.TrimSpace(v); v {
		case "on", "off":
			c.Access.ClientCert.verify = v
			return nil
		case "optional", "optional_no_ca":
			return errors.New("not supported: Traefik cannot tell the backend whether the certificate was verified")
		}
		return errors.New("must be on, off, optional or optional_no_ca")
	}},
	{name: "auth-tls-verify-depth", access: true, parse: func(v string, c *Config) error {
		_, err := parseInt(v, 1, 100)
		return err
	}},
	{name: "auth-tls-pass-certificate-to-upstream", parse: func(v string, c *Config) (err error) {
		c.Access.ClientCert.pass, err = parseBool(v)
		return
	}},
}

// clientCert is the client certificate check of the host on the path:
// the TLS option of its TLS router, the plain router's redirect, and the
// middlewares that tell the backend. false: it cannot be built and the
// path is closed (the problem is filed).
func (pc *pathContext) clientCert(names []string) ([]string, bool) {
	pc.clientCertTried = true
	names, ok := pc.hostClientCert(names)
	if ok && pc.cfg.Access.ClientCert.secret != "" && pc.facts.ownedElsewhere(pc.ing) {
		// Traefik has one TLS option per host: the owner's (hostfacts.go).
		// The path's routers still name it (set above), closed or not.
		o := pc.facts.owner
		pc.annotationProblem("auth-tls-secret", translate.SeverityError, fmt.Errorf(
			"host %q belongs to namespace %s (its oldest Ingress is %s/%s), whose Ingresses decide its client certificates (this Ingress's paths on the host answer 403)",
			pc.host, o.Namespace, o.Namespace, o.Name))
		return nil, false
	}
	return names, ok
}

// hostClientCert is the host's client certificate check, as the owner's
// oldest Ingress that asks for one says, for the path (see clientCert).
func (pc *pathContext) hostClientCert(names []string) ([]string, bool) {
	src := pc.facts.clientCert
	if src == nil || src.cfg.verify == "off" {
		return names, true
	}
	own := src.ing == pc.ing
	fail := func(err error) ([]string, bool) {
		if own {
			pc.annotationProblem("auth-tls-secret", translate.SeverityError, fmt.Errorf("%w (its paths answer 403)", err))
		} else {
			pc.problem("", fmt.Errorf("the client certificates that Ingress %s/%s asks for on host %q: %w (the path answers 403)", src.ing.Namespace, src.ing.Name, pc.host, err))
		}
		return nil, false
	}
	if !pc.facts.tls {
		return fail(errors.New("the host has no spec.tls entry, and client certificates need TLS"))
	}
	// The owner's Secret, judged as the owner's Ingress names it: another
	// namespace's paths of the host are checked with the owner's CA.
	s, err := pc.secretRefOf(src.ing, src.cfg.secret)
	if err != nil {
		return fail(err)
	}
	where := fmt.Sprintf("secret %s/%s", s.Namespace, s.Name)
	ca, ok := s.Data["ca.crt"]
	switch {
	case !ok:
		return fail(fmt.Errorf("%s has no key ca.crt", where))
	case len(s.Data["ca.crl"]) > 0:
		return fail(fmt.Errorf("%s has a ca.crl, and Traefik checks no revocation list", where))
	}
	if err := checkCAs(ca); err != nil {
		return fail(fmt.Errorf("%s: key ca.crt: %w", where, err))
	}
	host := NamePrefix + translate.Normalize(pc.host)
	pc.tlsOptions = host + "_client-cert"
	pc.p.TLSOptions = appendTLSOption(pc.p.TLSOptions, pc.tlsOptions, &dynamic.TLSOptions{ClientAuth: &dynamic.ClientAuth{
		CAFiles: []string{string(ca)}, ClientAuthType: "RequireAndVerifyClientCert",
	}})
	pc.plainRedirect = host + "_client-cert-redirect"
	pc.addMiddleware(pc.plainRedirect, dynamic.Middleware{"redirectScheme": map[string]any{"scheme": "https", "permanent": true}})
	headers := host + "_client-cert-headers"
	pc.addMiddleware(headers, dynamic.Middleware{"headers": map[string]any{"customRequestHeaders": map[string]string{
		// An empty value removes the header in Traefik.
		"ssl-client-verify": "SUCCESS", "ssl-client-subject-dn": "", "ssl-client-issuer-dn": "", "ssl-client-cert": "",
	}}})
	names = append(names, headers)
	if src.cfg.pass {
		pass := host + "_client-cert-pass"
		pc.addMiddleware(pass, dynamic.Middleware{"passTLSClientCert": map[string]any{"pem": true}})
		names = append(names, pass)
	}
	return names, true
}

// plainRouting is the rule and priority of a plain router of the path
// on host (an alias, or the rule's own), given those of its TLS router.
// On a host that asks for client certificates the host is matched by
// HostRegexp, one below the TLS router's priority: Traefik chooses a
// connection's TLS options by the Host matchers of the routers, and on an
// entry point that terminates TLS for every router (http.tls) a plain
// router gets the default options; with a Host matcher the host would
// have two options, and Traefik would fall back to the default one, which
// asks for no certificate. On such an entry point the TLS router then
// wins over the plain router's copy, which would only redirect.
//
// On an ssl-passthrough host the host is matched by HostRegexp too: an
// HTTPS router with a Host matcher for the SNI host (such a copy of a
// plain router) would take the host's TLS connections before the
// passthrough TCP router (passthrough.go); a HostRegexp one does not.
func (pc *pathContext) plainRouting(host, rule string, priority int) (string, int) {
	if pc.plainRedirect == "" && !pc.facts.passthrough {
		return rule, priority
	}
	if rest, ok := strings.CutPrefix(rule, translate.HostRule(host)); ok && !strings.HasPrefix(host, "*.") {
		rule = translate.Matcher("HostRegexp", "(?i)^"+regexp.QuoteMeta(host)+"$") + rest
	}
	return rule, priority - 1
}

// appendTLSOption adds a TLS option to a part's, once.
func appendTLSOption(list []translate.NamedTLSOption, name string, o *dynamic.TLSOptions) []translate.NamedTLSOption {
	for _, x := range list {
		if x.Name == name {
			return list
		}
	}
	return append(list, translate.NamedTLSOption{Name: name, Options: o})
}
