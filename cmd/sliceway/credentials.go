package main

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/sliceway/sliceway/config/static"
)

// Why a request for /api/config was refused: the label of
// sliceway_serve_requests_denied_total.
const (
	deniedNoCertificate  = "no_certificate"
	deniedBadCertificate = "bad_certificate"
	deniedNoToken        = "no_token"
	deniedBadToken       = "bad_token"
	// serve.tokenFile is missing, unreadable or empty: no token is
	// accepted, the old one least of all.
	deniedTokenUnusable = "token_file_unusable"
)

// credentials guard what holds secrets: a client certificate signed by
// serve.tls.clientCA, a bearer token equal to serve.tokenFile's content,
// or both when both are set. Either may be absent. The token fails
// closed: while its file is missing, unreadable or empty no request that
// needs it passes.
type credentials struct {
	clientCAs *reloaded[*x509.CertPool]
	token     *reloaded[[sha256.Size]byte]
	denied    *prometheus.CounterVec
	log       zerolog.Logger // sampled: a scanner must not flood the log
}

func newCredentials(opts *static.Serve, denied *prometheus.CounterVec, log zerolog.Logger) (*credentials, error) {
	c := &credentials{denied: denied, log: log.Sample(&zerolog.BurstSampler{Burst: 5, Period: time.Minute})}
	var err error
	if opts.TLS != nil && opts.TLS.ClientCA != "" {
		if c.clientCAs, err = newReloaded("serve.tls.clientCA", log, parseCertPool, opts.TLS.ClientCA); err != nil {
			return nil, err
		}
	}
	if opts.TokenFile != "" {
		if c.token, err = newFailClosed("serve.tokenFile", log, parseToken, opts.TokenFile); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// parseCertPool reads a PEM bundle of CA certificates.
func parseCertPool(contents [][]byte) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(contents[0]) {
		return nil, errors.New("no PEM certificate in the file")
	}
	return pool, nil
}

// parseToken keeps the token's hash: comparing hashes in constant time
// says nothing of the token's length either.
func parseToken(contents [][]byte) ([sha256.Size]byte, error) {
	token := bytes.TrimSpace(contents[0])
	if len(token) == 0 {
		return [sha256.Size]byte{}, errors.New("the file is empty")
	}
	return sha256.Sum256(token), nil
}

// guard wraps a handler of secrets: the request passes only with every
// credential that is configured. A missing credential is 401, a wrong
// certificate 403, a wrong token 401 (as RFC 6750 has it); each refusal is
// counted by reason.
func (c *credentials) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if reason, status := c.check(r); reason != "" {
			c.denied.WithLabelValues(reason).Inc()
			c.log.Warn().Str("remote", r.RemoteAddr).Str("reason", reason).Msg("GET /api/config refused")
			if c.token != nil {
				w.Header().Set("WWW-Authenticate", `Bearer realm="sliceway"`)
			}
			http.Error(w, http.StatusText(status)+": "+strings.ReplaceAll(reason, "_", " "), status)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// check returns why the request is refused and with which status, or "".
func (c *credentials) check(r *http.Request) (string, int) {
	if c.clientCAs != nil {
		if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
			return deniedNoCertificate, http.StatusUnauthorized
		}
		if !verifyClient(r.TLS, c.clientCAs.get()) {
			return deniedBadCertificate, http.StatusForbidden
		}
	}
	if c.token != nil {
		want, err := c.token.current()
		if err != nil {
			return deniedTokenUnusable, http.StatusUnauthorized
		}
		got, ok := bearerToken(r)
		if !ok {
			return deniedNoToken, http.StatusUnauthorized
		}
		sum := sha256.Sum256([]byte(got))
		if subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			return deniedBadToken, http.StatusUnauthorized
		}
	}
	return "", 0
}

// verifyClient checks the client's chain against the current CAs, for
// client authentication. The handshake only asked for the certificate
// (and proved the client holds its key), so that /healthz and /metrics
// answer clients without one and the CAs can change without a restart.
func verifyClient(state *tls.ConnectionState, roots *x509.CertPool) bool {
	intermediates := x509.NewCertPool()
	for _, cert := range state.PeerCertificates[1:] {
		intermediates.AddCert(cert)
	}
	_, err := state.PeerCertificates[0].Verify(x509.VerifyOptions{
		Roots:         roots,
		Intermediates: intermediates,
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	return err == nil
}

func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// serverTLS is the TLS configuration of serve: its certificate, read again
// when the files change, and, with a client CA, a request for the
// client's certificate, which guard verifies.
func serverTLS(opts *static.Serve, log zerolog.Logger) (*tls.Config, error) {
	pair, err := newReloaded("serve.tls.cert and serve.tls.key", log, func(c [][]byte) (*tls.Certificate, error) {
		cert, err := tls.X509KeyPair(c[0], c[1])
		return &cert, err
	}, opts.TLS.Cert, opts.TLS.Key)
	if err != nil {
		return nil, err
	}
	conf := &tls.Config{
		MinVersion:     tls.VersionTLS12,
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return pair.get(), nil },
	}
	if opts.TLS.ClientCA != "" {
		conf.ClientAuth = tls.RequestClientCert
	}
	return conf, nil
}
