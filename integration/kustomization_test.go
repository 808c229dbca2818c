package integration_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	kusttypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/sliceway/sliceway/integration/controlplane"
)

// Tests of docs/manifests/kustomization.yaml, built by kustomize's own
// code, which `kubectl apply -k` runs.

const manifestsDir = "../docs/manifests"

// kustomize builds the kustomization in dir as `kubectl kustomize` does.
func kustomize(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	require.NoError(t, err, "kustomize build %s", dir)
	out, err := m.AsYaml()
	require.NoError(t, err)
	objs, err := controlplane.DecodeManifests(out)
	require.NoError(t, err)
	return objs
}

// objectID names an object as the API server does.
func objectID(o *unstructured.Unstructured) string {
	return o.GetAPIVersion() + " " + o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
}

// containerImage is the image of the container of that name in a
// Deployment among objs, or fails t.
func containerImage(t *testing.T, objs []*unstructured.Unstructured, namespace, deployment, container string) string {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() != "Deployment" || o.GetNamespace() != namespace || o.GetName() != deployment {
			continue
		}
		containers, _, err := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
		require.NoError(t, err)
		for _, c := range containers {
			c, ok := c.(map[string]any)
			if ok && c["name"] == container {
				image, _ := c["image"].(string)
				return image
			}
		}
	}
	require.Failf(t, "no such container", "no container %s in Deployment %s/%s", container, namespace, deployment)
	return ""
}

// imageName is an image reference without its tag or digest, as
// kustomize's images: name matches it.
func imageName(ref string) string {
	if i := strings.Index(ref, "@"); i >= 0 {
		ref = ref[:i]
	}
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		ref = ref[:i]
	}
	return ref
}

// The kustomization lists files that exist, and nothing but their objects
// comes out of it; its images: entry names deployment.yaml's image, so an
// override reaches the container.
func TestKustomizationOfTheSeparateDeployment(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(manifestsDir, "kustomization.yaml"))
	require.NoError(t, err)
	var k kusttypes.Kustomization
	require.NoError(t, yaml.UnmarshalStrict(raw, &k), "kustomization.yaml")
	require.Contains(t, k.Resources, filepath.Base(deploymentManifest))
	assert.NotContains(t, k.Resources, filepath.Base(rbacNamespacedManifest), "an alternative to rbac.yaml: one or the other")
	assert.NotContains(t, k.Resources, filepath.Base(sidecarManifest), "an alternative to deployment.yaml")

	var want []string
	for _, r := range k.Resources {
		data, err := os.ReadFile(filepath.Join(manifestsDir, r))
		require.NoError(t, err, "kustomization.yaml's resources: %s", r)
		objs, err := controlplane.DecodeManifests(data)
		require.NoError(t, err, r)
		for _, o := range objs {
			want = append(want, objectID(o))
		}
	}
	built := kustomize(t, manifestsDir)
	var got []string
	for _, o := range built {
		got = append(got, objectID(o))
	}
	assert.ElementsMatch(t, want, got)

	data, err := os.ReadFile(deploymentManifest)
	require.NoError(t, err)
	objs, err := controlplane.DecodeManifests(data)
	require.NoError(t, err)
	fileImage := containerImage(t, objs, "sliceway", "sliceway", "sliceway")
	require.Len(t, k.Images, 1, "kustomization.yaml: one images: entry, for sliceway")
	assert.Equal(t, imageName(fileImage), k.Images[0].Name, "kustomization.yaml's images: name is not the image of deployment.yaml")
	assert.Equal(t, fileImage, containerImage(t, built, "sliceway", "sliceway", "sliceway"), "without an override, the image is deployment.yaml's")
}

// overlay writes a kustomization over docs/manifests that sets the image,
// as a user's own would, and returns its directory.
func overlay(t *testing.T, image string) string {
	t.Helper()
	dir := t.TempDir()
	abs, err := filepath.Abs(manifestsDir)
	require.NoError(t, err)
	// kustomize takes no absolute path to a directory of resources.
	base, err := filepath.Rel(dir, abs)
	require.NoError(t, err)
	name, tag, _ := strings.Cut(image, ":")
	k := "resources:\n  - " + base + "\nimages:\n  - name: sliceway\n    newName: " + name + "\n    newTag: " + tag + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(k), 0o644))
	return dir
}

func TestKustomizationImageOverride(t *testing.T) {
	const image = "registry.example.com/team/sliceway:v1.2.3"
	built := kustomize(t, overlay(t, image))
	assert.Equal(t, image, containerImage(t, built, "sliceway", "sliceway", "sliceway"))
}

// What `kubectl apply -k` of an overlay sends, in kustomize's order, the
// API server takes: the Namespace comes before what lives in it, and the
// Deployment runs the overridden image as the ServiceAccount rbac.yaml
// creates.
func TestKustomizationApplies(t *testing.T) {
	const image = "registry.example.com/sliceway:v1.2.3"
	built := kustomize(t, overlay(t, image))

	cp := startControlPlane(t)
	a, err := controlplane.NewApplier(cp.AdminConfig())
	require.NoError(t, err)
	require.NoError(t, a.Apply(ctx, built...))

	dep := getDeployment(t, cp, "sliceway", "sliceway")
	c := container(t, &dep.Spec.Template.Spec, "sliceway")
	assert.Equal(t, image, c.Image)
	sa := dep.Spec.Template.Spec.ServiceAccountName
	_, err = cp.Client().CoreV1().ServiceAccounts("sliceway").Get(ctx, sa, metav1.GetOptions{})
	require.NoError(t, err, "the Deployment's ServiceAccount %q", sa)
}
