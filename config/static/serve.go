package static

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	ptypes "github.com/traefik/paerser/types"
)

// DefaultServeAddress is where serve listens unless told otherwise: loopback
// only, since without credentials what it serves (private keys included) must
// not reach anyone but a proxy in the same pod or on the same host.
const DefaultServeAddress = "127.0.0.1:8080"

// Serve configures the HTTP server of the serve command.
type Serve struct {
	Address        string          `description:"Address to listen on: /api/config (the configuration for Traefik's HTTP provider), /healthz and /metrics. Loopback unless credentials are set (tls.clientCA or tokenFile) or insecure is." json:"address,omitempty" toml:"address,omitempty" yaml:"address,omitempty"`
	TLS            *ServeTLS       `description:"Serve HTTPS, and optionally ask /api/config's clients for a certificate." json:"tls,omitempty" toml:"tls,omitempty" yaml:"tls,omitempty" export:"true"`
	TokenFile      string          `description:"File holding the bearer token /api/config's clients must send (Authorization: Bearer <token>), read again when it changes." json:"tokenFile,omitempty" toml:"tokenFile,omitempty" yaml:"tokenFile,omitempty"`
	Insecure       bool            `description:"Allow a non-loopback address without credentials or without TLS: anyone who reaches it reads every private key the Ingresses name." json:"insecure,omitempty" toml:"insecure,omitempty" yaml:"insecure,omitempty"`
	MaxConnections int             `description:"Connections open at once, streams aside; past it the longest-idle ones are closed, so idle clients cannot starve the others." json:"maxConnections,omitempty" toml:"maxConnections,omitempty" yaml:"maxConnections,omitempty"`
	MaxStreams     int             `description:"Clients of /api/config/stream at once, counted apart from maxConnections: past it a new stream is refused with 503, so streams, which never end, cannot take the connections probes and polls need." json:"maxStreams,omitempty" toml:"maxStreams,omitempty" yaml:"maxStreams,omitempty"`
	ReadTimeout    ptypes.Duration `description:"Time to read a whole request, headers included." json:"readTimeout,omitempty" toml:"readTimeout,omitempty" yaml:"readTimeout,omitempty"`
	WriteTimeout   ptypes.Duration `description:"Time to write a whole response, from the end of the request's headers: room for the largest configuration to the slowest client." json:"writeTimeout,omitempty" toml:"writeTimeout,omitempty" yaml:"writeTimeout,omitempty"`
	IdleTimeout    ptypes.Duration `description:"Time a keep-alive connection may wait for its next request." json:"idleTimeout,omitempty" toml:"idleTimeout,omitempty" yaml:"idleTimeout,omitempty"`
}

// ServeTLS is serve's certificate and, for mutual TLS, its clients' CA.
type ServeTLS struct {
	Cert     string `description:"PEM certificate (chain) file of the server, read again when it changes." json:"cert,omitempty" toml:"cert,omitempty" yaml:"cert,omitempty"`
	Key      string `description:"PEM private key file of the server, read again when it changes." json:"key,omitempty" toml:"key,omitempty" yaml:"key,omitempty"`
	ClientCA string `description:"PEM file of the CAs whose client certificates /api/config accepts (mutual TLS), read again when it changes." json:"clientCA,omitempty" toml:"clientCA,omitempty" yaml:"clientCA,omitempty"`
}

func newServe() *Serve {
	return &Serve{
		Address:        DefaultServeAddress,
		MaxConnections: 256,
		MaxStreams:     64,
		ReadTimeout:    ptypes.Duration(30 * time.Second),
		WriteTimeout:   ptypes.Duration(2 * time.Minute),
		IdleTimeout:    ptypes.Duration(90 * time.Second),
	}
}

// HasTLS tells whether serve speaks HTTPS.
func (s *Serve) HasTLS() bool { return s.TLS != nil && (s.TLS.Cert != "" || s.TLS.Key != "") }

// HasCredentials tells whether /api/config asks its clients for a
// certificate or a token.
func (s *Serve) HasCredentials() bool {
	return s.TokenFile != "" || (s.TLS != nil && s.TLS.ClientCA != "")
}

// Validate checks the options against each other and the address against
// the credentials: what serve hands out holds private keys, so a listener
// other processes or hosts can reach needs TLS and credentials, unless
// insecure says otherwise. Insecure reports whether serve runs against that
// advice (to be said at every start).
func (s *Serve) Validate() (insecure bool, err error) {
	if s.TLS != nil {
		switch {
		case s.TLS.Cert != "" && s.TLS.Key == "":
			return false, errors.New("serve.tls.cert is set without serve.tls.key")
		case s.TLS.Key != "" && s.TLS.Cert == "":
			return false, errors.New("serve.tls.key is set without serve.tls.cert")
		case s.TLS.ClientCA != "" && s.TLS.Cert == "":
			return false, errors.New("serve.tls.clientCA needs serve.tls.cert and serve.tls.key: mutual TLS is TLS")
		}
	}
	if s.MaxConnections < 1 {
		return false, fmt.Errorf("serve.maxConnections %d: must be at least 1", s.MaxConnections)
	}
	if s.MaxStreams < 1 {
		return false, fmt.Errorf("serve.maxStreams %d: must be at least 1", s.MaxStreams)
	}
	for name, d := range map[string]ptypes.Duration{"readTimeout": s.ReadTimeout, "writeTimeout": s.WriteTimeout, "idleTimeout": s.IdleTimeout} {
		if d <= 0 {
			return false, fmt.Errorf("serve.%s %s: must be positive", name, time.Duration(d))
		}
	}
	loopback, err := IsLoopbackAddress(s.Address)
	if err != nil {
		return false, err
	}
	if loopback || (s.HasTLS() && s.HasCredentials()) {
		return false, nil
	}
	if s.Insecure {
		return true, nil
	}
	if !s.HasCredentials() {
		return false, fmt.Errorf("serve.address %q is not a loopback address, and /api/config (which holds the private keys of the Ingresses' TLS Secrets) would answer anyone: "+
			"set serve.tls.cert, serve.tls.key and serve.tls.clientCA or serve.tokenFile, listen on loopback (%s), or set serve.insecure=true", s.Address, DefaultServeAddress)
	}
	return false, fmt.Errorf("serve.address %q is not a loopback address, and without serve.tls.cert and serve.tls.key the credentials and the private keys would cross the network in clear text: "+
		"set them, listen on loopback (%s), or set serve.insecure=true", s.Address, DefaultServeAddress)
}

// IsLoopbackAddress tells whether a listen address (host:port) reaches only
// this host: a loopback IP or "localhost". An empty host (":8080") listens
// on every interface.
func IsLoopbackAddress(address string) (bool, error) {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return false, fmt.Errorf("serve.address %q: %w", address, err)
	}
	if strings.EqualFold(host, "localhost") {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}
