package pki

import "time"

// CA is a certificate authority: a self-signed CA certificate and its
// key, which signs leaf certificates.
type CA struct {
	Certificate
}

// NewCA makes a CA named r.CommonName. The request gives no hosts and no
// usage: those are its leaves'.
func NewCA(r Request) (*CA, error) {
	tmpl, err := r.caTemplate(time.Now())
	if err != nil {
		return nil, err
	}
	key, err := r.key()
	if err != nil {
		return nil, err
	}
	cert, err := sign(tmpl, tmpl, key, key)
	if err != nil {
		return nil, err
	}
	return &CA{Certificate: *cert}, nil
}

// Issue makes a leaf certificate for the request, signed by the CA. A
// verifier that has the CA's certificate as a root trusts it, for its
// hosts and its usage.
func (ca *CA) Issue(r Request) (*Certificate, error) {
	key, err := r.key()
	if err != nil {
		return nil, err
	}
	tmpl, err := r.leafTemplate(key, time.Now())
	if err != nil {
		return nil, err
	}
	return sign(tmpl, ca.Cert, key, ca.Key)
}
