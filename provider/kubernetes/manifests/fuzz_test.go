package manifests

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/kubernetes/scheme"
)

// decodeTimeout bounds one Decode call in FuzzDecodeManifest: fuzz
// inputs are small, so anything near this is a hang (or an explosion, such
// as a YAML alias bomb).
const decodeTimeout = 10 * time.Second

// FuzzDecodeManifest feeds arbitrary bytes to Decode, seeded with
// every fixture's manifests.yaml and a few hostile documents. It never
// panics or hangs; every problem names the file; every object has a name,
// a wanted kind, the file and a document number; and NewFakeCluster takes
// the objects without panicking.
func FuzzDecodeManifest(f *testing.F) {
	files, err := filepath.Glob("../../../fixtures/*/manifests.yaml")
	require.NoError(f, err)
	require.NotEmpty(f, files)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(data)
	}
	for _, seed := range []string{
		"",
		"---\n---\n# only comments\n",
		"\x00\x01\x02\xff binary",
		"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: a}\n- {apiVersion: v1, kind: Service}\n- 42\n",
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"json"}}`,
		"apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {ports: [{port: -1}, {port: 70000}, {port: \"http\"}]}\n",
		"a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c]\n",
		strings.Repeat("[", 200) + strings.Repeat("]", 200),
		"--- apiVersion: v1\nkind: Service\nmetadata: {name: inline}\n",
		"apiVersion: v1\nkind: Service\nmetadata: {name: dup}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: dup}\n",
		"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: x\n  annotations: {traefik.ingress.kubernetes.io/router.priority: \"\\0\\\"`\\n\"}\n",
		"apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: s}\naddressType: IPv4\nendpoints: [{addresses: [1.2.3.999]}]\nports: [{port: null}]\n",
		"apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {tls.crt: '!!!notbase64'}\n",
		"apiVersion: v1\nkind: Service\nmetadata:\n  name: x\n\tbad: tab\n",
	} {
		f.Add([]byte(seed))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		const file = "fuzz/manifest.yaml"
		var objs []Object
		var problems []*Error
		done := make(chan struct{})
		go func() {
			defer close(done)
			objs, problems = Decode(file, data, IsUsedKind)
		}()
		select {
		case <-done:
		case <-time.After(decodeTimeout):
			t.Fatalf("Decode did not return within %s on %d bytes", decodeTimeout, len(data))
		}

		if len(bytes.TrimSpace(data)) == 0 {
			require.Empty(t, objs)
			require.Len(t, problems, 1)
		}
		for _, p := range problems {
			require.NotNil(t, p)
			require.NotNil(t, p.Err)
			require.Equal(t, file, p.File)
			require.GreaterOrEqual(t, p.Document, 0)
			require.True(t, strings.HasPrefix(p.Error(), file+": "), "the problem names the file: %s", p.Error())
		}
		lastDoc := 0
		for _, o := range objs {
			require.NotNil(t, o.Object)
			require.Equal(t, file, o.File)
			require.GreaterOrEqual(t, o.Document, 1)
			require.GreaterOrEqual(t, o.Document, lastDoc, "objects come in document order")
			lastDoc = o.Document
			acc, err := meta.Accessor(o.Object)
			require.NoError(t, err)
			require.NotEmpty(t, acc.GetName(), "objects have names")
			// The kind by the object's Go type: a document whose apiVersion
			// or kind key is miscased decodes without TypeMeta (see
			// TestDecodeManifestMiscasedTypeKeys).
			kinds, _, err := scheme.Scheme.ObjectKinds(o.Object)
			require.NoError(t, err)
			require.True(t, slices.ContainsFunc(kinds, IsUsedKind), "only wanted kinds: got %v", kinds)
		}

		// The in-memory cluster takes whatever was decoded: duplicates and
		// oddities are problems naming the file, never panics.
		_, more := NewFakeCluster(objs)
		for _, p := range more {
			require.NotNil(t, p)
			require.Equal(t, file, p.File)
			require.True(t, strings.HasPrefix(p.Error(), file+": "), p.Error())
		}
	})
}

// TestDecodeManifestMiscasedTypeKeys: Kubernetes reads apiVersion and kind
// case-sensitively (kubectl refuses "ApiVersion: v1" as "apiVersion not
// set"), and so does Decode for every other key ("Metadata:" gives
// "metadata.name is required"). Found by FuzzDecodeManifest.
func TestDecodeManifestMiscasedTypeKeys(t *testing.T) {
	for _, doc := range []string{
		"ApiVersion: v1\nkind: Service\nmetadata: {name: a}\n",
		"apiVersion: v1\nKind: Service\nmetadata: {name: a}\n",
		"APIVERSION: v1\nKIND: Service\nmetadata: {name: a}\n",
	} {
		objs, problems := Decode("f.yaml", []byte(doc), IsUsedKind)
		require.Empty(t, objs, doc)
		require.Len(t, problems, 1, doc)
		require.Contains(t, problems[0].Error(), "f.yaml: document 1: not a Kubernetes object: apiVersion and kind are required")
	}
}

// TestDuplicateClusterScopedObject: a cluster-scoped object defined twice is
// named without a namespace, as errors name objects elsewhere
// ("IngressClass traefik", not "IngressClass /traefik"); see
// fixtures/hostile-duplicates/errors.txt.
func TestDuplicateClusterScopedObject(t *testing.T) {
	doc := "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: traefik}\nspec: {controller: x}\n"
	objs, problems := Decode("f.yaml", []byte(doc+"---\n"+doc), IsUsedKind)
	require.Empty(t, problems)
	_, problems = NewFakeCluster(objs)
	require.Len(t, problems, 1)
	require.Equal(t, "f.yaml: document 2: IngressClass traefik is defined again (first in f.yaml: document 1); this copy is skipped", problems[0].Error())
}
