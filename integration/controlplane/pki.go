package controlplane

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sliceway/sliceway/internal/pki"
)

// pkiFiles are what the control plane is started with: a CA and the API
// server's serving certificate signed by it, the service-account signing
// key pair and the static admin token.
type pkiFiles struct {
	caFile, certFile, keyFile string // PEM files
	saKeyFile, saPubFile      string
	tokenFile                 string
	adminToken                string
}

// writePKI generates fresh keys and tokens into dir.
func writePKI(dir string) (*pkiFiles, error) {
	p := &pkiFiles{
		caFile:    filepath.Join(dir, "ca.crt"),
		certFile:  filepath.Join(dir, "apiserver.crt"),
		keyFile:   filepath.Join(dir, "apiserver.key"),
		saKeyFile: filepath.Join(dir, "sa.key"),
		saPubFile: filepath.Join(dir, "sa.pub"),
		tokenFile: filepath.Join(dir, "tokens.csv"),
	}

	// A week: longer than any test run, short enough that no file left
	// behind is of use for long.
	notAfter := time.Now().Add(7 * 24 * time.Hour)
	ca, err := pki.NewCA(pki.Request{CommonName: "sliceway-integration-ca", NotAfter: notAfter})
	if err != nil {
		return nil, err
	}
	// The names clients use for the API server: the URL's 127.0.0.1, and
	// the in-cluster names of Service kubernetes.
	srv, err := ca.Issue(pki.Request{
		CommonName: "kube-apiserver",
		Hosts:      []string{"127.0.0.1", "localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		Usage:      pki.ServerAuth,
		NotAfter:   notAfter,
	})
	if err != nil {
		return nil, err
	}

	// Service-account tokens are signed with RSA (RS256), what every
	// token reader accepts.
	saKey, err := pki.GenerateKey(pki.RSA2048)
	if err != nil {
		return nil, err
	}
	saKeyPEM, err := pki.PrivateKeyPEM(saKey)
	if err != nil {
		return nil, err
	}
	saPubPEM, err := pki.PublicKeyPEM(saKey.Public())
	if err != nil {
		return nil, err
	}

	tok := make([]byte, 24)
	if _, err := rand.Read(tok); err != nil {
		return nil, err
	}
	p.adminToken = hex.EncodeToString(tok)

	files := []struct {
		path string
		data []byte
	}{
		{p.caFile, ca.CertPEM()},
		{p.certFile, srv.CertPEM()},
		{p.keyFile, srv.KeyPEM()},
		{p.saKeyFile, saKeyPEM},
		{p.saPubFile, saPubPEM},
		// token,user,uid,"group1,group2"
		{p.tokenFile, fmt.Appendf(nil, "%s,admin,admin-uid,\"system:masters\"\n", p.adminToken)},
	}
	for _, f := range files {
		if err := os.WriteFile(f.path, f.data, 0o600); err != nil {
			return nil, err
		}
	}
	return p, nil
}
