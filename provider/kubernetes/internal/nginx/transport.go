package nginx

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"time"

	ptypes "github.com/traefik/paerser/types"
	corev1 "k8s.io/api/core/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/excerpt"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// The servers transport of an Ingress: how its paths' servers are
// reached, as nginx's proxy_connect_timeout, proxy_read_timeout and
// proxy_ssl_* directives say.
//
// Timeouts, as Traefik's forwardingTimeouts can say them:
//   - proxy-connect-timeout (5s) is dialTimeout: the TCP connection;
//   - proxy-read-timeout (60s) is responseHeaderTimeout: nginx bounds the
//     wait between two reads of the response, Traefik only the wait for
//     its headers; a response whose body stalls is not cut;
//   - proxy-send-timeout (60s) has no counterpart (Traefik bounds no
//     write to a server) and no effect;
//   - idleConnTimeout is ingress-nginx's upstream-keepalive-timeout, 60s.
//
// A transport is written only when an annotation asks for one (a
// timeout, the backend TLS annotations, an HTTPS or GRPCS protocol); the
// other paths keep Traefik's transport (a 30s dial timeout, no read
// timeout).
//
// Backend TLS, as ingress-nginx has it:
//   - the servers' certificates are not verified unless proxy-ssl-verify
//     is "on" (nginx's default), so an HTTPS or GRPCS path gets
//     insecureSkipVerify; "on" verifies with the ca.crt of
//     proxy-ssl-secret, which must be there; a server that fails the
//     verification is answered 500 by Traefik, 502 by nginx;
//   - proxy-ssl-secret's tls.crt and tls.key, when there, are the client
//     certificate;
//   - proxy-ssl-name is serverName: Traefik sends it as SNI and verifies
//     the certificate against it whatever proxy-ssl-server-name says
//     (nginx sends SNI only when proxy-ssl-server-name is "on"); without
//     it no SNI is sent to a server's IP, and a verified certificate must
//     name the IP (nginx would verify the name "upstream_balancer");
//   - ingress-nginx ignores proxy-ssl-name without proxy-ssl-secret;
//     here it applies alone too.

// ingressBuild is what the backend annotations make for the whole
// Ingress, built on first use by a path.
type ingressBuild struct {
	// transport is the servers transport's name, "" when none is asked
	// for; closed: one was asked for and cannot be built (the Secret is
	// missing or refused), so no path of the Ingress is served.
	transport string
	closed    bool

	// The default-backend annotation's Service port, when it can be used:
	// its load balancer and its name in the configuration.
	fallback     *translate.LoadBalancer
	fallbackName string
	// errorPages is the custom-http-errors middleware's name, "" when
	// none.
	errorPages string
}

// build is what the backend annotations make for the Ingress, once.
func (t *translation) build() *ingressBuild {
	if t.built == nil {
		t.built = &ingressBuild{}
		t.buildTransport(t.built)
		t.buildDefaultBackend(t.built)
	}
	return t.built
}

// tlsProtocol says whether the servers are reached with TLS.
func (c *BackendConfig) tlsProtocol() bool { return c.Protocol == "HTTPS" || c.Protocol == "GRPCS" }

// wantsTransport says whether the annotations ask for a servers
// transport of the Ingress's own.
func (c *BackendConfig) wantsTransport() bool {
	return c.ConnectTimeout > 0 || c.ReadTimeout > 0 || c.SendTimeout > 0 || c.tlsProtocol() ||
		c.SSLSecret != "" || c.SSLVerify || c.SSLName != ""
}

// buildTransport defines the Ingress's servers transport, if any.
func (t *translation) buildTransport(b *ingressBuild) {
	c := &t.cfg.Backend
	if !c.wantsTransport() {
		return
	}
	tr := &dynamic.ServersTransport{ServerName: c.SSLName, ForwardingTimeouts: &dynamic.ForwardingTimeouts{
		DialTimeout:           seconds(orDefault(c.ConnectTimeout, defaultConnectTimeout)),
		ResponseHeaderTimeout: seconds(orDefault(c.ReadTimeout, defaultReadTimeout)),
		IdleConnTimeout:       seconds(upstreamKeepaliveTimeout),
	}}
	tr.InsecureSkipVerify = c.tlsProtocol() && !c.SSLVerify
	switch {
	case c.SSLSecret != "":
		if err := t.readBackendSecret(tr); err != nil {
			t.closeWith("proxy-ssl-secret", err)
			b.closed = true
			return
		}
	case c.SSLVerify:
		t.closeWith("proxy-ssl-verify", errors.New(`"on" needs proxy-ssl-secret, whose ca.crt the servers' certificates are verified with`))
		b.closed = true
		return
	}
	b.transport = t.ingressName("transport")
	t.p.Transports = append(t.p.Transports, translate.NamedTransport{Name: b.transport, Transport: tr})
}

// closeWith files the problem of an annotation that keeps the Ingress's
// paths closed (they answer 403).
func (t *translation) closeWith(annotation string, err error) {
	t.p.Problem("metadata.annotations["+AnnotationPrefix+annotation+"]", translate.SeverityError,
		fmt.Errorf("%w (it controls access: the Ingress's paths answer 403)", err))
}

// readBackendSecret gives tr the CA and the client certificate of
// proxy-ssl-secret. The Secret is a dependency of the part whether or not
// it is found, so that its arrival translates the Ingress again. No
// content of the Secret is ever written in an error.
func (t *translation) readBackendSecret(tr *dynamic.ServersTransport) error {
	c := &t.cfg.Backend
	ns, name, err := secretRef(c.SSLSecret, t.ing.Namespace)
	if err != nil {
		return err
	}
	if ns != t.ing.Namespace && !t.opts.AllowCrossNamespace {
		return fmt.Errorf("secret %s/%s is in another namespace than the Ingress, which allowCrossNamespaceSecrets does not allow", excerpt.Text(ns), excerpt.Text(name))
	}
	key := translate.Key{Namespace: ns, Name: name}
	if !containsKey(t.p.Secrets, key) {
		t.p.Secrets = append(t.p.Secrets, key)
	}
	s := t.env.Snapshot.Secret(ns, name)
	if s == nil {
		return fmt.Errorf("secret %s/%s not found", excerpt.Text(ns), excerpt.Text(name))
	}
	if err := translate.CheckSecretData(s); err != nil {
		return err
	}
	ca, crt, keyPEM := s.Data["ca.crt"], s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey]
	if c.SSLVerify {
		if len(ca) == 0 {
			return fmt.Errorf("secret %s/%s has no ca.crt to verify the servers with (proxy-ssl-verify is on)", ns, name)
		}
		if err := checkCAs(ca); err != nil {
			return fmt.Errorf("secret %s/%s: ca.crt %w", ns, name, err)
		}
		tr.RootCAs = []string{string(ca)}
	}
	switch {
	case len(crt) > 0 && len(keyPEM) > 0:
		if _, err := tls.X509KeyPair(crt, keyPEM); err != nil {
			return fmt.Errorf("secret %s/%s: tls.crt and tls.key are not a certificate and its key", ns, name)
		}
		tr.Certificates = []dynamic.Certificate{{CertFile: string(crt), KeyFile: string(keyPEM)}}
	case len(crt) > 0 || len(keyPEM) > 0:
		return fmt.Errorf("secret %s/%s has only one of tls.crt and tls.key", ns, name)
	}
	return nil
}

// secretRef reads a namespace/name reference, a bare name being in ns.
func secretRef(ref, ns string) (string, string, error) {
	before, after, found := strings.Cut(ref, "/")
	if !found {
		before, after = ns, ref
	}
	if !serviceNameRE.MatchString(before) || !secretNameRE.MatchString(after) {
		return "", "", fmt.Errorf("%s is not a Secret reference (namespace/name)", excerpt.Quote(ref))
	}
	return before, after, nil
}

// secretNameRE is a Secret's name: a DNS subdomain.
var secretNameRE = serverNameRE

// checkCAs says whether pemData holds certificates, and nothing else.
func checkCAs(pemData []byte) error {
	n := 0
	for rest := pemData; ; n++ {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			if strings.TrimSpace(string(rest)) != "" {
				return errors.New("has text that is not PEM")
			}
			break
		}
		if block.Type != "CERTIFICATE" {
			return errors.New("holds a PEM block that is not a certificate")
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return errors.New("holds a certificate that cannot be parsed")
		}
	}
	if n == 0 {
		return errors.New("holds no PEM certificate")
	}
	return nil
}

func containsKey(keys []translate.Key, k translate.Key) bool {
	for _, x := range keys {
		if x == k {
			return true
		}
	}
	return false
}

func seconds(n int) ptypes.Duration { return ptypes.Duration(time.Duration(n) * time.Second) }

func orDefault(n, d int) int {
	if n > 0 {
		return n
	}
	return d
}
