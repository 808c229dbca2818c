package http

// This file is copied into Traefik's pkg/provider/http by
// tools/traefik-check/run, beside sliceway_check_test.go; it is not part of
// sliceway's build. Traefik's HTTP provider, as Traefik runs it, polls a
// running `sliceway serve` (SLICEWAY_BIN): over plain HTTP on loopback, and
// over HTTPS with the credentials sliceway asks for.

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/traefik/traefik/v3/pkg/config/dynamic"
	"github.com/traefik/traefik/v3/pkg/types"
)

// slicewayServeCase is the case named SLICEWAY_SERVE_CASE: what serve
// --demo must send.
func slicewayServeCase(t *testing.T) (string, slicewayCase) {
	t.Helper()
	bin := os.Getenv("SLICEWAY_BIN")
	if bin == "" {
		t.Skip("SLICEWAY_BIN is not set")
	}
	file := readSlicewayCases(t)
	i := slices.IndexFunc(file.Cases, func(c slicewayCase) bool { return c.Name == os.Getenv("SLICEWAY_SERVE_CASE") })
	if i < 0 {
		t.Fatalf("no case named %q (SLICEWAY_SERVE_CASE)", os.Getenv("SLICEWAY_SERVE_CASE"))
	}
	return bin, file.Cases[i]
}

// slicewayPoll is one poll of Traefik's HTTP provider configured as p:
// the configuration it hands on, or its error.
func slicewayPoll(t *testing.T, p *Provider) (*dynamic.Configuration, error) {
	t.Helper()
	p.SetDefaults()
	if err := p.Init(); err != nil {
		t.Fatal(err)
	}
	messages := make(chan dynamic.Message, 1)
	if err := p.updateConfiguration(messages); err != nil {
		if len(messages) != 0 {
			t.Error("a failed poll handed on a configuration")
		}
		return nil, err
	}
	if len(messages) != 1 {
		t.Fatal("a poll without error handed on no configuration")
	}
	return (<-messages).Configuration, nil
}

// TestSlicewayServe starts `sliceway serve --demo` on loopback and polls it
// with Traefik's HTTP provider, as Traefik does at each poll interval: the
// configuration it sends on must be the case's, and a second poll must
// send nothing.
func TestSlicewayServe(t *testing.T) {
	bin, c := slicewayServeCase(t)
	base := slicewayStartServe(t, bin, http.DefaultClient, "http")
	p := &Provider{Endpoint: base + "/api/config"}
	p.SetDefaults()
	if err := p.Init(); err != nil {
		t.Fatal(err)
	}
	messages := make(chan dynamic.Message, 1)
	if err := p.updateConfiguration(messages); err != nil {
		t.Fatalf("Traefik's HTTP provider: %v", err)
	}
	msg := <-messages
	checkRead(t, "served", &c, msg.Configuration)
	if err := p.updateConfiguration(messages); err != nil {
		t.Fatalf("Traefik's HTTP provider, second poll: %v", err)
	}
	if len(messages) != 0 {
		t.Error("the second poll of an unchanged configuration sent it again")
	}
}

// TestSlicewayServeCredentials: Traefik's HTTP provider with
// providers.http.tls.{ca,cert,key} gets the configuration of a serve with
// mutual TLS; without a client certificate, with one of another CA, or
// with a wrong bearer token it gets nothing; a server certificate rotated
// in place is used without a restart.
func TestSlicewayServeCredentials(t *testing.T) {
	bin, c := slicewayServeCase(t)
	dir := t.TempDir()
	serverCA, clientCA, otherCA := slicewayNewCA(t, "server CA"), slicewayNewCA(t, "client CA"), slicewayNewCA(t, "other CA")
	serverCert, serverKey := serverCA.issue(t, dir, "server", x509.ExtKeyUsageServerAuth)
	clientCert, clientKey := clientCA.issue(t, dir, "traefik", x509.ExtKeyUsageClientAuth)
	otherCert, otherKey := otherCA.issue(t, dir, "other", x509.ExtKeyUsageClientAuth)
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("s3cret-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	probe := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, // only to wait for /healthz
		DisableKeepAlives: true,
	}}
	base := slicewayStartServe(t, bin, probe, "https",
		"--serve.tls.cert="+serverCert, "--serve.tls.key="+serverKey,
		"--serve.tls.clientca="+clientCA.file, "--serve.tokenfile="+token)
	endpoint := base + "/api/config"
	bearer := map[string]string{"Authorization": "Bearer s3cret-token"}

	conf, err := slicewayPoll(t, &Provider{Endpoint: endpoint, Headers: bearer,
		TLS: &types.ClientTLS{CA: serverCA.file, Cert: clientCert, Key: clientKey}})
	if err != nil {
		t.Fatalf("Traefik's HTTP provider with the client certificate and the token: %v", err)
	}
	checkRead(t, "served over mutual TLS", &c, conf)

	for name, p := range map[string]*Provider{
		"no client certificate": {Endpoint: endpoint, Headers: bearer, TLS: &types.ClientTLS{CA: serverCA.file}},
		"another CA's certificate": {Endpoint: endpoint, Headers: bearer,
			TLS: &types.ClientTLS{CA: serverCA.file, Cert: otherCert, Key: otherKey}},
		"a wrong token": {Endpoint: endpoint, Headers: map[string]string{"Authorization": "Bearer guess"},
			TLS: &types.ClientTLS{CA: serverCA.file, Cert: clientCert, Key: clientKey}},
		"no token":   {Endpoint: endpoint, TLS: &types.ClientTLS{CA: serverCA.file, Cert: clientCert, Key: clientKey}},
		"plain HTTP": {Endpoint: strings.Replace(endpoint, "https://", "http://", 1), Headers: bearer},
	} {
		if conf, err := slicewayPoll(t, p); err == nil {
			t.Errorf("%s: Traefik got a configuration of %d routers", name, len(conf.HTTP.Routers))
		}
	}

	// Rotation in place: a certificate of another CA, at the same paths.
	// Traefik trusting only that CA fails before and succeeds after.
	rotatedCA := slicewayNewCA(t, "rotated CA")
	rotatedCert, rotatedKey := rotatedCA.issue(t, t.TempDir(), "server", x509.ExtKeyUsageServerAuth)
	trustsRotated := &Provider{Endpoint: endpoint, Headers: bearer,
		TLS: &types.ClientTLS{CA: rotatedCA.file, Cert: clientCert, Key: clientKey}}
	if _, err := slicewayPoll(t, trustsRotated); err == nil {
		t.Fatal("a client trusting only the rotated CA got in before the rotation")
	}
	slicewayReplace(t, rotatedKey, serverKey)
	slicewayReplace(t, rotatedCert, serverCert)
	deadline := time.Now().Add(30 * time.Second)
	for {
		conf, err := slicewayPoll(t, trustsRotated)
		if err == nil {
			checkRead(t, "served after the rotation", &c, conf)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the rotated certificate was not served within 30s: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// slicewayStartServe starts `sliceway serve --demo` on a free loopback
// port with the extra arguments, and returns its base URL once it has a
// configuration (/healthz answers through probe).
func slicewayStartServe(t *testing.T, bin string, probe *http.Client, scheme string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--demo", "--serve.address", "127.0.0.1:0", "--log.format", "json"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	// The log names the address it listens on.
	addresses := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			var line struct {
				Address string `json:"address"`
			}
			if json.Unmarshal(lines.Bytes(), &line) == nil && line.Address != "" {
				addresses <- line.Address
				break
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	var base string
	select {
	case address := <-addresses:
		base = scheme + "://" + address
	case <-time.After(30 * time.Second):
		t.Fatal("sliceway serve did not say where it listens within 30s")
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		res, err := probe.Get(base + "/healthz")
		if err == nil {
			_ = res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("sliceway serve at %s has no configuration after 30s", base)
		}
	}
}

// slicewayCA is a certificate authority made for one test, its
// certificate written to file.
type slicewayCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	dir  string
	file string
}

var slicewaySerial int64

func slicewayNewCA(t *testing.T, name string) *slicewayCA {
	t.Helper()
	ca := &slicewayCA{dir: t.TempDir()}
	ca.cert, ca.key = slicewaySign(t, &x509.Certificate{
		Subject: pkix.Name{CommonName: name}, IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}, nil)
	ca.file = filepath.Join(ca.dir, name+".crt")
	slicewayWritePEM(t, ca.file, "CERTIFICATE", ca.cert.Raw)
	return ca
}

// issue writes a leaf certificate for 127.0.0.1 (server) or a client, and
// its key, into dir; it returns their paths.
func (ca *slicewayCA) issue(t *testing.T, dir, name string, usage x509.ExtKeyUsage) (string, string) {
	t.Helper()
	tmpl := &x509.Certificate{Subject: pkix.Name{CommonName: name}, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage}}
	if usage == x509.ExtKeyUsageServerAuth {
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
	}
	cert, key := slicewaySign(t, tmpl, ca)
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	slicewayWritePEM(t, certFile, "CERTIFICATE", cert.Raw)
	slicewayWritePEM(t, keyFile, "EC PRIVATE KEY", keyDER)
	return certFile, keyFile
}

// slicewaySign makes a key and a certificate from tmpl, signed by parent
// (itself when nil), valid for an hour either side of now.
func slicewaySign(t *testing.T, tmpl *x509.Certificate, parent *slicewayCA) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	slicewaySerial++
	tmpl.SerialNumber = big.NewInt(slicewaySerial)
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	issuer, signer := tmpl, key
	if parent != nil {
		issuer, signer = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, issuer, &key.PublicKey, signer)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func slicewayWritePEM(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// slicewayReplace puts the content of from at to, by a rename, as a
// rotation of mounted files does.
func slicewayReplace(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to+".new", data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(to+".new", to); err != nil {
		t.Fatal(err)
	}
}
