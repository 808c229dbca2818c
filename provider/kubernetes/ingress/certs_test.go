package ingress

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// A full render of a Renderer that rendered before parses no certificate
// again (a change of this proxy's zone).
func TestFullRenderParsesNoCertificateAgain(t *testing.T) {
	crt, key := testobjects.SelfSignedPEM(t)
	objs := testobjects.Backend("ns", "web", "10.0.0.1")
	for i := range 20 {
		name := fmt.Sprintf("web-%d", i)
		objs = append(objs,
			testobjects.NewIngress("ns", name, testobjects.WithPath(name+".example.com", "/", "web", 80, ""), testobjects.WithTLS(name+"-tls")),
			testobjects.TLSSecret("ns", name+"-tls", slices.Clone(crt), slices.Clone(key)))
	}
	snap := testobjects.NewSnapshot(objs...)
	r := NewRenderer(benchOptions())
	first, _ := r.Render(snap, nil)
	require.Empty(t, first.Errors)
	require.Len(t, first.Configuration.TLS.Certificates, 20)
	assert.Equal(t, 1, r.Stats().CertificatesParsed, "twenty copies of one pair")
	second, _ := r.Render(snap, nil)
	assert.Equal(t, 1, r.Stats().CertificatesParsed)
	for i, c := range second.Configuration.TLS.Certificates {
		assert.Same(t, first.Configuration.TLS.Certificates[i], c)
	}
}
