package manifests

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
)

// objRef names a decoded object: "Kind namespace/name @document".
func objRef(t *testing.T, o Object) string {
	t.Helper()
	acc, err := meta.Accessor(o.Object)
	require.NoError(t, err)
	kind := o.Object.GetObjectKind().GroupVersionKind().Kind
	return fmt.Sprintf("%s %s/%s @%d", kind, acc.GetNamespace(), acc.GetName(), o.Document)
}

func objRefs(t *testing.T, objs []Object) []string {
	t.Helper()
	var out []string
	for _, o := range objs {
		out = append(out, objRef(t, o))
	}
	return out
}

// problemLines renders problems as "warning: ..." or "error: ...".
func problemLines(problems []*Error) []string {
	var out []string
	for _, p := range problems {
		sev := "error"
		if p.Warning {
			sev = "warning"
		}
		out = append(out, sev+": "+p.Error())
	}
	return out
}

func svcDoc(name string) string {
	return "apiVersion: v1\nkind: Service\nmetadata:\n  name: " + name + "\nspec:\n  ports:\n  - port: 80\n"
}

const badYAMLDoc = "apiVersion: v1\nkind: Service\nmetadata: [\n"

func TestDecodeManifest(t *testing.T) {
	file := strings.Join([]string{
		// document 1
		"apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: apps # trailing comment\nspec:\n  ports:\n  - port: 80\n",
		// document 2: only comments
		"# nothing here\n\n# still nothing\n",
		// document 3
		"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n",
		// document 4: no apiVersion
		"kind: Service\nmetadata:\n  name: x\n",
		// document 5: not YAML
		badYAMLDoc,
		// document 6: a kind the provider does not use
		"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n",
		// document 7: no name
		"apiVersion: v1\nkind: Secret\nmetadata:\n  namespace: apps\n",
		// document 8: no kind
		"apiVersion: v1\nmetadata:\n  name: y\n",
		// document 9: a custom resource
		"apiVersion: traefik.io/v1alpha1\nkind: Middleware\nmetadata:\n  name: m\n",
		// document 10: JSON is YAML
		`{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}` + "\n",
		// document 11: a scalar
		"just a string\n",
		// document 12: a sequence
		"- a\n- b\n",
		// document 13: good again after the bad ones
		"apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata:\n  name: web-abc\n  namespace: apps\naddressType: IPv4\nendpoints: []\n",
	}, "---\n")

	t.Run("wanted kinds", func(t *testing.T) {
		objs, problems := Decode("m.yaml", []byte(file), IsUsedKind)
		assert.Equal(t, []string{
			"Service apps/web @1",
			"Ingress /web @3",
			"Node /n1 @10",
			"EndpointSlice apps/web-abc @13",
		}, objRefs(t, objs))
		for _, o := range objs {
			assert.Equal(t, "m.yaml", o.File)
			assert.Equal(t, fmt.Sprintf("m.yaml: document %d", o.Document), o.Source())
		}
		svc, ok := objs[0].Object.(*corev1.Service)
		require.True(t, ok, "%T", objs[0].Object)
		assert.Equal(t, int32(80), svc.Spec.Ports[0].Port)
		_, ok = objs[1].Object.(*netv1.Ingress)
		assert.True(t, ok, "%T", objs[1].Object)

		lines := problemLines(problems)
		require.Len(t, lines, 8, "%q", lines)
		assert.Equal(t, "error: m.yaml: document 4: not a Kubernetes object: apiVersion and kind are required", lines[0])
		assert.True(t, strings.HasPrefix(lines[1], "error: m.yaml: document 5: not valid YAML: "), lines[1])
		assert.Equal(t, "warning: m.yaml: document 6: apps/v1 Deployment is not used, skipped", lines[2])
		assert.Equal(t, "error: m.yaml: document 7: Secret: metadata.name is required", lines[3])
		assert.Equal(t, "error: m.yaml: document 8: not a Kubernetes object: apiVersion and kind are required", lines[4])
		assert.Equal(t, "warning: m.yaml: document 9: traefik.io/v1alpha1 Middleware is not used, skipped", lines[5])
		assert.True(t, strings.HasPrefix(lines[6], "error: m.yaml: document 11: "), lines[6])
		assert.True(t, strings.HasPrefix(lines[7], "error: m.yaml: document 12: "), lines[7])
		for _, p := range problems {
			assert.Equal(t, "m.yaml", p.File)
			require.Error(t, p.Err)
			assert.ErrorIs(t, p, p.Err)
		}
	})

	t.Run("all kinds", func(t *testing.T) {
		objs, problems := Decode("m.yaml", []byte(file), nil)
		assert.Equal(t, []string{
			"Service apps/web @1",
			"Ingress /web @3",
			"Deployment /d @6",
			"Node /n1 @10",
			"EndpointSlice apps/web-abc @13",
		}, objRefs(t, objs))
		var docs []int
		for _, p := range problems {
			assert.False(t, p.Warning, "without wanted, nothing is a warning: %v", p)
			docs = append(docs, p.Document)
		}
		// The custom resource is not in the scheme: it cannot be decoded.
		assert.Equal(t, []int{4, 5, 7, 8, 9, 11, 12}, docs, "%q", problemLines(problems))
	})
}

func TestDecodeManifestDocumentNumbers(t *testing.T) {
	a := svcDoc("a")
	tests := []struct {
		desc    string
		data    string
		wantDoc int // the YAML document number of the bad document
		wantObj int
	}{
		{desc: "second document", data: a + "---\n" + badYAMLDoc, wantDoc: 2, wantObj: 1},
		{desc: "leading separator", data: "---\n" + a + "---\n" + badYAMLDoc, wantDoc: 2, wantObj: 1},
		{desc: "separator with a comment", data: a + "--- # next\n" + badYAMLDoc, wantDoc: 2, wantObj: 1},
		{desc: "leading blank lines", data: "\n\n" + a + "---\n" + badYAMLDoc, wantDoc: 2, wantObj: 1},
		{desc: "comment-only document between separators", data: a + "---\n# c\n---\n" + badYAMLDoc, wantDoc: 3, wantObj: 1},
		{desc: "document end marker", data: a + "...\n---\n" + badYAMLDoc, wantDoc: 2, wantObj: 1},
		{desc: "empty first document", data: "---\n---\n" + badYAMLDoc, wantDoc: 2},
		{desc: "third of three", data: a + "---\n" + svcDoc("b") + "---\n" + badYAMLDoc, wantDoc: 3, wantObj: 2},
		{desc: "CRLF line endings", data: strings.ReplaceAll(a+"---\n"+svcDoc("b")+"---\n"+badYAMLDoc, "\n", "\r\n"), wantDoc: 3, wantObj: 2},
		{
			desc: "empty document between separators", data: a + "---\n---\n" + badYAMLDoc, wantDoc: 3, wantObj: 1,
		},
		{
			desc: "header comment before the first separator", data: "# demo cluster\n---\n" + badYAMLDoc, wantDoc: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			objs, problems := Decode("f.yaml", []byte(tc.data), nil)
			assert.Len(t, objs, tc.wantObj)
			require.Len(t, problems, 1, "%q", problemLines(problems))
			assert.Equal(t, tc.wantDoc, problems[0].Document)
			assert.Contains(t, problems[0].Error(), fmt.Sprintf("f.yaml: document %d: not valid YAML", tc.wantDoc))
		})
	}
}

func TestDecodeManifestList(t *testing.T) {
	list := `# as kubectl get -o yaml prints it
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Service
  metadata:
    name: a
    namespace: apps
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: d
- apiVersion: v1
  kind: Service
  metadata:
    namespace: apps
- kind: Service
  metadata:
    name: c
- apiVersion: v1
  kind: Secret
  metadata:
    name: s
`
	serviceList := `apiVersion: v1
kind: ServiceList
items:
- apiVersion: v1
  kind: Service
  metadata:
    name: e
`
	objs, problems := Decode("l.yaml", []byte(svcDoc("first")+"---\n"+list+"---\n"+serviceList), IsUsedKind)
	assert.Equal(t, []string{"Service /first @1", "Service apps/a @2", "Secret /s @2", "Service /e @3"}, objRefs(t, objs))
	assert.Equal(t, []string{
		"warning: l.yaml: document 2: items[1]: apps/v1 Deployment is not used, skipped",
		"error: l.yaml: document 2: items[2]: Service: metadata.name is required",
		"error: l.yaml: document 2: items[3]: not a Kubernetes object: apiVersion and kind are required",
	}, problemLines(problems))

	t.Run("empty list", func(t *testing.T) {
		objs, problems := Decode("l.yaml", []byte("apiVersion: v1\nkind: List\nitems: []\n"), IsUsedKind)
		assert.Empty(t, objs)
		assert.Empty(t, problems)
	})
	t.Run("items is not a list", func(t *testing.T) {
		objs, problems := Decode("l.yaml", []byte("apiVersion: v1\nkind: List\nitems: 3\n"), IsUsedKind)
		assert.Empty(t, objs)
		require.Len(t, problems, 1)
		assert.Equal(t, 1, problems[0].Document)
		assert.False(t, problems[0].Warning)
	})
}

func TestDecodeManifestWholeFileErrors(t *testing.T) {
	png := []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'}
	tests := []struct {
		desc string
		data []byte
		want string
	}{
		{desc: "empty", data: nil, want: "f.yaml: the file is empty"},
		{desc: "blank", data: []byte(" \n\t\n\n"), want: "f.yaml: the file is empty"},
		{desc: "binary", data: png, want: "f.yaml: not a text file (invalid UTF-8 or NUL bytes)"},
		{desc: "NUL bytes in text", data: []byte(svcDoc("a") + "\x00"), want: "f.yaml: not a text file (invalid UTF-8 or NUL bytes)"},
		{desc: "invalid UTF-8", data: []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: \xff\xfe\n"), want: "f.yaml: not a text file (invalid UTF-8 or NUL bytes)"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			objs, problems := Decode("f.yaml", tc.data, IsUsedKind)
			assert.Empty(t, objs)
			require.Len(t, problems, 1)
			assert.Equal(t, tc.want, problems[0].Error())
			assert.Equal(t, 0, problems[0].Document)
			assert.False(t, problems[0].Warning)
		})
	}
}

func TestDecodeManifestByteOrderMark(t *testing.T) {
	objs, problems := Decode("f.yaml", []byte("\ufeff"+svcDoc("a")), IsUsedKind)
	assert.Empty(t, problemLines(problems))
	assert.Equal(t, []string{"Service /a @1"}, objRefs(t, objs))
}

func TestDecodeManifestSeparatorWithContent(t *testing.T) {
	// Content after "--- " belongs to the document it opens, as YAML says;
	// both documents are read and numbered as YAML counts them.
	objs, problems := Decode("f.yaml", []byte("# header\n---\n"+svcDoc("a")+"--- !!map\n"+svcDoc("b")+"--- # trailing comment\n"), IsUsedKind)
	assert.Empty(t, problems)
	assert.Equal(t, []string{"Service /a @1", "Service /b @2"}, objRefs(t, objs))
}

func TestDecodeManifestHugeDocument(t *testing.T) {
	t.Parallel()
	huge := "# " + strings.Repeat("x", maxDocumentSize) + "\n" + svcDoc("big")
	objs, problems := Decode("f.yaml", []byte(svcDoc("a")+"---\n"+huge+"---\n"+svcDoc("c")), IsUsedKind)
	assert.Equal(t, []string{"Service /a @1", "Service /c @3"}, objRefs(t, objs))
	assert.Equal(t, []string{"error: f.yaml: document 2: document larger than 16 MiB"}, problemLines(problems))
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func TestReadManifestsDirectory(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "b.yaml"), svcDoc("b1")+"---\n"+svcDoc("b2"))
	writeFile(t, filepath.Join(dir, "a.yml"), svcDoc("a"))
	writeFile(t, filepath.Join(dir, "sub", "c.json"), `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "c"}}`)
	writeFile(t, filepath.Join(dir, "sub", "deeper", "d.YAML"), svcDoc("d"))
	writeFile(t, filepath.Join(dir, "aa", "e.yaml"), svcDoc("e"))
	writeFile(t, filepath.Join(dir, "more.yaml", "f.yml"), svcDoc("f")) // a directory with a manifest's name
	writeFile(t, filepath.Join(dir, "z.txt"), "not a manifest \x00")
	writeFile(t, filepath.Join(dir, "README.md"), "# not a manifest")
	writeFile(t, filepath.Join(dir, "kustomization.yaml.bak"), "garbage: [")
	writeFile(t, filepath.Join(dir, "c-bad.yaml"), badYAMLDoc)

	objs, problems := Read([]string{dir}, IsUsedKind)
	var got []string
	for _, o := range objs {
		rel, err := filepath.Rel(dir, o.File)
		require.NoError(t, err)
		got = append(got, rel+": "+objRef(t, o))
	}
	assert.Equal(t, []string{
		"a.yml: Service /a @1",
		filepath.Join("aa", "e.yaml") + ": Service /e @1",
		"b.yaml: Service /b1 @1",
		"b.yaml: Service /b2 @2",
		filepath.Join("more.yaml", "f.yml") + ": Service /f @1",
		filepath.Join("sub", "c.json") + ": Service /c @1",
		filepath.Join("sub", "deeper", "d.YAML") + ": Service /d @1",
	}, got)
	require.Len(t, problems, 1, "%q", problemLines(problems))
	assert.Equal(t, filepath.Join(dir, "c-bad.yaml"), problems[0].File)
	assert.Equal(t, 1, problems[0].Document)
}

func TestReadManifestsPaths(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "one.yaml")
	writeFile(t, one, svcDoc("one"))
	txt := filepath.Join(dir, "objects.txt")
	writeFile(t, txt, svcDoc("txt"))
	emptyDir := filepath.Join(dir, "empty")
	require.NoError(t, os.MkdirAll(filepath.Join(emptyDir, "sub"), 0o755))
	noManifests := filepath.Join(dir, "docs")
	writeFile(t, filepath.Join(noManifests, "README.md"), "hello")
	missing := filepath.Join(dir, "missing.yaml")
	emptyFile := filepath.Join(dir, "empty.yaml")
	writeFile(t, emptyFile, "")

	t.Run("a file named explicitly is read whatever its extension", func(t *testing.T) {
		objs, problems := Read([]string{txt}, IsUsedKind)
		assert.Empty(t, problems)
		assert.Equal(t, []string{"Service /txt @1"}, objRefs(t, objs))
	})
	t.Run("nonexistent path", func(t *testing.T) {
		objs, problems := Read([]string{missing}, IsUsedKind)
		assert.Empty(t, objs)
		require.Len(t, problems, 1)
		assert.Equal(t, missing, problems[0].File)
		assert.Equal(t, 0, problems[0].Document)
		assert.True(t, errors.Is(problems[0], fs.ErrNotExist), "%v", problems[0])
		assert.True(t, strings.HasPrefix(problems[0].Error(), missing+": "), problems[0].Error())
	})
	t.Run("empty directory", func(t *testing.T) {
		objs, problems := Read([]string{emptyDir}, IsUsedKind)
		assert.Empty(t, objs)
		assert.Equal(t, []string{"error: " + emptyDir + ": no .yaml, .yml, .json files in the directory"}, problemLines(problems))
	})
	t.Run("directory without manifests", func(t *testing.T) {
		_, problems := Read([]string{noManifests}, IsUsedKind)
		assert.Equal(t, []string{"error: " + noManifests + ": no .yaml, .yml, .json files in the directory"}, problemLines(problems))
	})
	t.Run("empty file", func(t *testing.T) {
		_, problems := Read([]string{emptyFile}, IsUsedKind)
		assert.Equal(t, []string{"error: " + emptyFile + ": the file is empty"}, problemLines(problems))
	})
	t.Run("a bad path does not stop the others, order is kept", func(t *testing.T) {
		objs, problems := Read([]string{txt, missing, emptyDir, one}, IsUsedKind)
		assert.Equal(t, []string{"Service /txt @1", "Service /one @1"}, objRefs(t, objs))
		require.Len(t, problems, 2)
		assert.Equal(t, missing, problems[0].File)
		assert.Equal(t, emptyDir, problems[1].File)
	})
	t.Run("no paths", func(t *testing.T) {
		objs, problems := Read(nil, IsUsedKind)
		assert.Empty(t, objs)
		assert.Empty(t, problems)
	})
}

func TestReadManifestsSizeLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Sparse files: nothing is written to disk but their size.
	sparse := func(name string, size int64) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		require.NoError(t, err)
		require.NoError(t, f.Truncate(size))
		require.NoError(t, f.Close())
		return path
	}
	over := sparse("over.yaml", MaxSize+1)
	atLimit := sparse("limit.yaml", MaxSize)

	objs, problems := Read([]string{over}, IsUsedKind)
	assert.Empty(t, objs)
	assert.Equal(t, []string{"error: " + over + ": larger than 64 MiB"}, problemLines(problems))

	// At the limit the file is read; it then fails as the zeros it holds.
	_, problems = Read([]string{atLimit}, IsUsedKind)
	assert.Equal(t, []string{"error: " + atLimit + ": not a text file (invalid UTF-8 or NUL bytes)"}, problemLines(problems))
}

// Objects decoded from manifests carry their type, which NewFakeCluster and
// the informers rely on.
func TestDecodeManifestKeepsTypeMeta(t *testing.T) {
	objs, problems := Decode("f.yaml", []byte(svcDoc("a")+"---\napiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata:\n  name: c\n"), IsUsedKind)
	require.Empty(t, problems)
	require.Len(t, objs, 2)
	for _, o := range objs {
		gvk := o.Object.GetObjectKind().GroupVersionKind()
		assert.True(t, IsUsedKind(gvk), "%v", gvk)
	}
	_ = runtime.Object(objs[0].Object)
}
