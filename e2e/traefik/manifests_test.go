package traefike2e

import (
	"bytes"
	"crypto/sha1"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"text/template"

	"golang.org/x/crypto/bcrypt"

	"github.com/sliceway/sliceway/internal/pki"
)

// A case's manifests are a text/template. The data is the case's
// identity, and the functions write the objects every case needs, so
// that a case holds only the Ingresses (and whatever else it is about):
//
//	{{ .Host }}, {{ .Namespace }}, {{ .Name }}
//	{{ service "web" "app-a" "app-b" }}  Service web (port 80, named http) and one FQDN
//	                                     EndpointSlice of 127.0.0.1 per echo backend named
//	{{ serviceIn "ns" "web" "app-a" }}  the same in another namespace than the case's
//	{{ httpsService "secure" "tls-a" }}  the same on port 443, named https, to HTTPS echo backends
//	{{ tlsSecret "cert" }}               a kubernetes.io/tls Secret for the case's host
//	{{ tlsSecret "cert" "a.x" "b.x" }}   ... for those names
//	{{ caSecret "ca" "tls-a" }}          a Secret whose ca.crt is HTTPS echo backend tls-a's
//	                                     certificate (httptest's, its own CA)
//	{{ caSecret "ca" }}                  ... a CA that signs no backend's certificate
//	{{ backendPort "app-a" }}            the port of plain echo backend app-a, for a
//	                                     manifest that writes its own Service or slices
//	{{ clientCASecret "client-ca" }}     a Secret whose ca.crt is a CA's, for client certificates
//	                                     (Request.ClientCert presents one it signed)
//	{{ backendURL "auth" }}              http://127.0.0.1:<port> of that backend (an annotation's URL)
//	{{ bcrypt "pw" }}, {{ sha1Hash "pw" }}  htpasswd hashes of a password
//	{{ base64 "text" }}                  a Secret's data value
//
// Each function writes whole YAML documents, each starting with "---", so
// it stands on a line of its own between documents.
type caseData struct {
	Name      string
	Namespace string
	Host      string
}

// manifests renders the cases' templates and writes them, one file per
// case, into dir, which `sliceway serve` follows.
type manifests struct {
	dir      string
	backends *backends
	certs    *certificates
	cas      *clientCAs
}

// file is where the case's manifests are written.
func (m *manifests) file(name string) string { return filepath.Join(m.dir, name+".yaml") }

// write renders text for the case and replaces its file at once (a
// rename), so serve never reads half a file.
func (m *manifests) write(c *Case, text string) error {
	out, err := m.render(c, text)
	if err != nil {
		return err
	}
	tmp := filepath.Join(m.dir, "."+c.Name+".tmp") // not .yaml: serve does not read it
	if err := os.WriteFile(tmp, out, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, m.file(c.Name))
}

func (m *manifests) render(c *Case, text string) ([]byte, error) {
	data := caseData{Name: c.Name, Namespace: c.Name, Host: c.host()}
	tmpl, err := template.New(c.Name).Option("missingkey=error").Funcs(template.FuncMap{
		"service": func(name string, backends ...string) (string, error) {
			return m.service(data.Namespace, name, false, backends)
		},
		"serviceIn": func(ns, name string, backends ...string) (string, error) {
			return m.service(ns, name, false, backends)
		},
		"httpsService": func(name string, backends ...string) (string, error) {
			return m.service(data.Namespace, name, true, backends)
		},
		"tlsSecret": func(name string, hosts ...string) (string, error) {
			if len(hosts) == 0 {
				hosts = []string{data.Host}
			}
			return m.certs.secret(data.Namespace, name, hosts)
		},
		"caSecret": func(name string, backend ...string) (string, error) {
			return m.caSecret(data.Namespace, name, backend)
		},
		"backendPort":    func(name string) (int, error) { return m.backends.port(name, false) },
		"clientCASecret": func(name string) (string, error) { return m.cas.secret(data.Namespace, name) },
		"backendURL": func(name string) (string, error) {
			port, err := m.backends.port(name, false)
			return fmt.Sprintf("http://127.0.0.1:%d", port), err
		},
		"bcrypt":   bcryptHash,
		"sha1Hash": sha1Hash,
		"base64":   func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) },
	}).Parse(text)
	if err != nil {
		return nil, fmt.Errorf("case %s: manifests: %w", c.Name, err)
	}
	var out bytes.Buffer
	if err := tmpl.Execute(&out, data); err != nil {
		return nil, fmt.Errorf("case %s: manifests: %w", c.Name, err)
	}
	return out.Bytes(), nil
}

// service writes a Service and, for each backend, an EndpointSlice of
// address type FQDN holding "127.0.0.1" at that backend's port: a real
// API server refuses loopback addresses in IPv4 slices, and sliceway takes
// this one with allowFQDNEndpoints and allowLoopbackEndpoints, as `make
// demo` does. Slice and Service ports share their name, which is how a
// slice's port is matched to the Service's.
func (m *manifests) service(ns, name string, tls bool, backendNames []string) (string, error) {
	if len(backendNames) == 0 {
		return "", fmt.Errorf("service %q: name at least one backend", name)
	}
	port, portName := 80, "http"
	if tls {
		port, portName = 443, "https"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `---
apiVersion: v1
kind: Service
metadata:
  name: %s
  namespace: %s
spec:
  ports:
  - name: %s
    port: %d
    protocol: TCP
    targetPort: %s
`, name, ns, portName, port, portName)
	for _, be := range backendNames {
		p, err := m.backends.port(be, tls)
		if err != nil {
			return "", fmt.Errorf("service %q: %w", name, err)
		}
		fmt.Fprintf(&b, `---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: %s-%s
  namespace: %s
  labels:
    kubernetes.io/service-name: %s
addressType: FQDN
ports:
- name: %s
  port: %d
  protocol: TCP
endpoints:
- addresses: ["127.0.0.1"]
  conditions: {ready: true, serving: true, terminating: false}
`, name, be, ns, name, portName, p)
	}
	return b.String(), nil
}

// caSecret writes a Secret whose ca.crt is the certificate of the HTTPS
// echo backend named (httptest's, which is its own CA and names
// 127.0.0.1), or, with no backend, one that signs no backend's
// certificate.
func (m *manifests) caSecret(ns, name string, backend []string) (string, error) {
	var ca []byte
	switch len(backend) {
	case 0:
		var err error
		if _, ca, _, err = selfSigned([]string{"unrelated-ca.e2e.test"}); err != nil {
			return "", fmt.Errorf("caSecret %q: %w", name, err)
		}
	case 1:
		s, err := m.backends.server(backend[0], true)
		if err != nil {
			return "", fmt.Errorf("caSecret %q: %w", name, err)
		}
		ca = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
	default:
		return "", fmt.Errorf("caSecret %q: name one backend at most", name)
	}
	return fmt.Sprintf(`---
apiVersion: v1
kind: Secret
metadata:
  name: %s
  namespace: %s
type: Opaque
data:
  ca.crt: %s
`, name, ns, base64.StdEncoding.EncodeToString(ca)), nil
}

// bcryptHash is an htpasswd bcrypt hash of password, at the lowest cost:
// it is verified for every request.
func bcryptHash(password string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	return string(h), err
}

// sha1Hash is an htpasswd {SHA} hash of password.
func sha1Hash(password string) string {
	sum := sha1.Sum([]byte(password))
	return "{SHA}" + base64.StdEncoding.EncodeToString(sum[:])
}

// certificates are the self-signed certificates of the cases' TLS
// Secrets, kept by namespace/name so that a rewrite of a case's manifests
// keeps its certificate, and a request can ask for the one it must be
// served (Request.CertSecret).
type certificates struct {
	mu sync.Mutex
	by map[string]*x509.Certificate
	// pem is the Secret's tls.crt and tls.key, by namespace/name.
	pem map[string][2][]byte
}

func newCertificates() *certificates {
	return &certificates{by: map[string]*x509.Certificate{}, pem: map[string][2][]byte{}}
}

// get returns the certificate of Secret namespace/name, nil if no case
// wrote it.
func (c *certificates) get(key string) *x509.Certificate {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.by[key]
}

func (c *certificates) secret(ns, name string, hosts []string) (string, error) {
	key := ns + "/" + name
	c.mu.Lock()
	defer c.mu.Unlock()
	pair, ok := c.pem[key]
	if !ok {
		cert, crt, k, err := selfSigned(hosts)
		if err != nil {
			return "", fmt.Errorf("tlsSecret %q: %w", name, err)
		}
		pair = [2][]byte{crt, k}
		c.pem[key], c.by[key] = pair, cert
	}
	return fmt.Sprintf(`---
apiVersion: v1
kind: Secret
metadata:
  name: %s
  namespace: %s
type: kubernetes.io/tls
data:
  tls.crt: %s
  tls.key: %s
`, name, ns, base64.StdEncoding.EncodeToString(pair[0]), base64.StdEncoding.EncodeToString(pair[1])), nil
}

// selfSigned makes an ECDSA P-256 certificate for the DNS names, valid
// from an hour ago for a day, and returns it with its PEM and its key's
// PKCS#8 PEM.
func selfSigned(hosts []string) (*x509.Certificate, []byte, []byte, error) {
	cert, err := pki.SelfSigned(pki.Request{CommonName: hosts[0], Hosts: hosts, Usage: pki.ServerAuth})
	if err != nil {
		return nil, nil, nil, err
	}
	return cert.Cert, cert.CertPEM(), cert.KeyPEM(), nil
}
