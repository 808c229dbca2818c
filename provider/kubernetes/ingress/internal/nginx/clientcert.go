package nginx

import (
	"errors"
	"strings"
)

// clientCertConfig is what the client certificate annotations say.
type clientCertConfig struct {
	secret string // namespace/name (or name) of a Secret with ca.crt
	verify string // on (default), off, optional, optional_no_ca
	depth  int    // 1 unless given
	pass   bool
}

func (c *clientCertConfig) setDefaults() { c.verify, c.depth = "on", 1 }

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
		case "on", "off", "optional", "optional_no_ca":
			c.Access.ClientCert.verify = v
			return nil
		}
		return errors.New("must be on, off, optional or optional_no_ca")
	}},
	{name: "auth-tls-verify-depth", access: true, parse: func(v string, c *Config) (err error) {
		c.Access.ClientCert.depth, err = parseInt(v, 1, 100)
		return
	}},
	{name: "auth-tls-pass-certificate-to-upstream", parse: func(v string, c *Config) (err error) {
		c.Access.ClientCert.pass, err = parseBool(v)
		return
	}},
}

// clientCert is the client certificate check of the path.
func (pc *pathContext) clientCert() ([]string, bool) {
	if pc.cfg.Access.ClientCert.secret == "" {
		return nil, true
	}
	pc.annotationProblem("auth-tls-secret", 0, errors.New("not supported yet (its paths are not served)"))
	return nil, false
}
