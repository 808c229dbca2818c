package traefike2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Response is an answer from Traefik, with what the echo backend saw
// when one answered.
type Response struct {
	Status  int
	Header  http.Header
	Body    []byte
	Cookies []*http.Cookie
	// Backend is the echo backend that answered, "" when Traefik did
	// (its 404, a redirect, an error page).
	Backend string
	// Echo is the backend's account of the request, nil without one.
	Echo *Echo
	// Certificate is the leaf certificate served over https.
	Certificate *x509.Certificate
}

// newClient sends every request to Traefik's entry points, whatever the
// URL's host: port 80 (http://) to web, 443 (https://) to websecure. TLS
// uses the URL's host as SNI and accepts any certificate, which the
// request then checks; with cert, it presents that client certificate
// whatever CAs Traefik asks for. Redirects are answers, not followed;
// connections are not reused, so each request is a client of its own.
func newClient(ports traefikPorts, cert *tls.Certificate, from string) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	if from != "" {
		dialer.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	tlsConf := &tls.Config{InsecureSkipVerify: true} // the request checks what is served
	if cert != nil {
		tlsConf.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return cert, nil }
	}
	return &http.Client{
		Timeout: 15 * time.Second,
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				_, port, err := net.SplitHostPort(addr)
				if err != nil {
					return nil, err
				}
				target := map[string]int{"80": ports.web, "443": ports.websecure}[port]
				if target == 0 {
					return nil, fmt.Errorf("%s: only ports 80 (web) and 443 (websecure) lead to Traefik", addr)
				}
				return dialer.DialContext(ctx, "tcp", fmt.Sprintf("127.0.0.1:%d", target))
			},
			TLSClientConfig:   tlsConf,
			DisableKeepAlives: true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// url is the request's URL: a bare path goes to the case's host over
// plain HTTP.
func (r *Request) url(c *Case) string {
	if strings.HasPrefix(r.URL, "/") {
		return "http://" + c.host() + r.URL
	}
	return r.URL
}

func (r *Request) method() string {
	if r.Method == "" {
		return http.MethodGet
	}
	return r.Method
}

// send sends r once.
func send(client *http.Client, c *Case, r *Request) (*Response, error) {
	req, err := http.NewRequest(r.method(), r.url(c), strings.NewReader(r.Body))
	if err != nil {
		return nil, err
	}
	if r.Body == "" {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	for k, v := range r.Header {
		req.Header.Set(k, v)
	}
	if r.Host != "" {
		req.Host = r.Host
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = res.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	out := &Response{Status: res.StatusCode, Header: res.Header, Body: body, Cookies: res.Cookies(),
		Backend: res.Header.Get(echoBackendHeader)}
	if out.Backend != "" {
		var e Echo
		if json.Unmarshal(body, &e) == nil && e.Backend == out.Backend {
			out.Echo = &e
		}
	}
	if res.TLS != nil && len(res.TLS.PeerCertificates) > 0 {
		out.Certificate = res.TLS.PeerCertificates[0]
	}
	return out, nil
}

// report is what a failed request prints: the request, the answer, what
// is wrong, and the routers Traefik has for the host with their services.
func report(c *Case, r *Request, res *Response, wrong []string, raw config, rawErr error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.method(), r.url(c))
	if r.Host != "" {
		fmt.Fprintf(&b, " (Host: %s)", r.Host)
	}
	b.WriteString("\n")
	for _, k := range sortedKeys(r.Header) {
		fmt.Fprintf(&b, "  %s: %s\n", k, r.Header[k])
	}
	b.WriteString("wrong:\n")
	for _, w := range wrong {
		fmt.Fprintf(&b, "  - %s\n", w)
	}
	if res != nil {
		fmt.Fprintf(&b, "response: %d %s\n", res.Status, http.StatusText(res.Status))
		for _, k := range sortedKeys(res.Header) {
			fmt.Fprintf(&b, "  %s: %s\n", k, strings.Join(res.Header[k], ", "))
		}
		body := string(res.Body)
		if len(body) > 2000 {
			body = body[:2000] + "..."
		}
		fmt.Fprintf(&b, "  body: %s\n", strings.TrimSpace(body))
	}
	if rawErr != nil {
		fmt.Fprintf(&b, "Traefik's routers: %v\n", rawErr)
		return b.String()
	}
	host := requestHost(c, r)
	fmt.Fprintf(&b, "Traefik's routers for %s (rule naming the host, or no host at all):\n", host)
	services := map[string]bool{}
	for _, name := range sortedKeys(raw.Routers) {
		rt := raw.Routers[name]
		if strings.HasSuffix(name, "@internal") || !ruleConcerns(rt.Rule, host) {
			continue
		}
		j, _ := json.Marshal(rt)
		fmt.Fprintf(&b, "  %s: %s\n", name, j)
		services[qualified(rt.Service, name)] = true
	}
	for _, name := range sortedKeys(services) {
		j, _ := json.Marshal(raw.Services[name])
		fmt.Fprintf(&b, "  service %s: %s\n", name, j)
	}
	return b.String()
}

func requestHost(c *Case, r *Request) string {
	if r.Host != "" {
		return r.Host
	}
	if u := r.url(c); strings.Contains(u, "://") {
		h, _, _ := strings.Cut(strings.SplitN(u, "://", 2)[1], "/")
		return h
	}
	return c.host()
}

// ruleConcerns says whether a router's rule may match host: it names it
// (literally or as a regexp-escaped name), or it names no host at all.
func ruleConcerns(rule, host string) bool {
	if !strings.Contains(rule, "Host") {
		return true
	}
	return strings.Contains(rule, host) || strings.Contains(rule, regexp.QuoteMeta(host)) ||
		strings.Contains(rule, strings.ReplaceAll(regexp.QuoteMeta(host), `\`, `\\`))
}

// qualified is a router's service as Traefik names it: with the
// router's provider unless it names one.
func qualified(svc, routerName string) string {
	if strings.Contains(svc, "@") {
		return svc
	}
	_, provider, _ := strings.Cut(routerName, "@")
	return svc + "@" + provider
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
