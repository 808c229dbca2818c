package integration_test

import (
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/config/static"
)

// serviceAccountDir is where a pod's containers find their ServiceAccount
// token, and where client-go's in-cluster configuration reads it.
const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// docs/manifests/sidecar.yaml applies, and keeps /api/config inside the
// pod, as the API server has it: sliceway serves on loopback (its default,
// or a loopback --serve.address; never insecure), Traefik reads it there,
// and no entry point of Traefik takes sliceway's port. sliceway's readiness
// probe goes to a Traefik entry point whose file-provider router sends
// /healthz and /metrics, and nothing else, to sliceway. Only sliceway's
// container holds the ServiceAccount token.
func TestDeploymentSidecarManifest(t *testing.T) {
	cp := startControlPlane(t)
	applyFile(t, cp, rbacManifest)
	applyFile(t, cp, sidecarManifest)

	dep := getDeployment(t, cp, "sliceway", "traefik")
	pod := &dep.Spec.Template.Spec
	assert.Equal(t, "sliceway", pod.ServiceAccountName)
	require.Len(t, pod.Containers, 2)
	sw, tr := container(t, pod, "sliceway"), container(t, pod, "traefik")
	assert.True(t, strings.HasPrefix(tr.Image, "traefik:v3."), "Traefik's image %s", tr.Image)

	// sliceway on loopback, never told to serve beyond it.
	require.NotEmpty(t, sw.Args)
	assert.Equal(t, "serve", sw.Args[0])
	address := static.DefaultServeAddress
	if v, ok := flagValue(t, sw.Args, "serve.address"); ok {
		address = v
	}
	loopback, err := static.IsLoopbackAddress(address)
	require.NoError(t, err)
	require.True(t, loopback, "sliceway serves /api/config on %s, beyond the pod", address)
	if v, ok := flagValue(t, sw.Args, "serve.insecure"); ok {
		assert.Equal(t, "false", v, "--serve.insecure in the sidecar")
	}
	_, slicewayPort, err := net.SplitHostPort(address)
	require.NoError(t, err)

	// Traefik reads it there, and listens elsewhere.
	endpoint, ok := flagValue(t, tr.Args, "providers.http.endpoint")
	require.True(t, ok, "Traefik has no --providers.http.endpoint")
	assert.Equal(t, "http://"+address+"/api/config", endpoint)
	entryPoints := map[string]string{} // name -> port
	for _, a := range tr.Args {
		n, v, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		parts := strings.Split(n, ".")
		if len(parts) == 3 && strings.EqualFold(parts[0], "entryPoints") && strings.EqualFold(parts[2], "address") {
			_, port, err := net.SplitHostPort(v)
			require.NoError(t, err, a)
			entryPoints[parts[1]] = port
		}
	}
	if v, ping := flagValue(t, tr.Args, "ping"); ping && v != "false" {
		// Else Traefik makes its entry point traefik on :8080.
		require.Contains(t, entryPoints, "traefik", "--ping without --entryPoints.traefik.address: Traefik takes :8080")
	}
	for name, port := range entryPoints {
		assert.NotEqual(t, slicewayPort, port, "Traefik's entry point %s takes sliceway's port", name)
	}

	// sliceway's probe: through a Traefik entry point, to sliceway.
	require.NotNil(t, sw.ReadinessProbe)
	probe := sw.ReadinessProbe.HTTPGet
	require.NotNil(t, probe, "sliceway's readiness probe is not an HTTP GET")
	assert.Equal(t, "/healthz", probe.Path)
	assert.NotEqual(t, corev1.URISchemeHTTPS, probe.Scheme)
	probeEntryPoint := ""
	for name, port := range entryPoints {
		if port == strconv.Itoa(probe.Port.IntValue()) {
			probeEntryPoint = name
		}
	}
	require.NotEmpty(t, probeEntryPoint, "sliceway's probe goes to port %s, no entry point of Traefik (%v)", probe.Port.String(), entryPoints)
	var declared bool
	for _, p := range tr.Ports {
		declared = declared || strconv.Itoa(int(p.ContainerPort)) == entryPoints[probeEntryPoint]
	}
	assert.True(t, declared, "Traefik's container does not declare the probe's port")

	// The file provider's router on that entry point: exactly /healthz and
	// /metrics, to sliceway's address.
	filename, ok := flagValue(t, tr.Args, "providers.file.filename")
	require.True(t, ok, "Traefik has no --providers.file.filename: nothing routes the probe to sliceway")
	var fileConf *dynamic.Configuration
	for _, m := range tr.VolumeMounts {
		rel, err := filepath.Rel(m.MountPath, filename)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		for _, v := range pod.Volumes {
			if v.Name != m.Name || v.ConfigMap == nil {
				continue
			}
			cm, err := cp.Client().CoreV1().ConfigMaps(dep.Namespace).Get(ctx, v.ConfigMap.Name, metav1.GetOptions{})
			require.NoError(t, err)
			text, ok := cm.Data[rel]
			require.True(t, ok, "ConfigMap %s has no key %s", cm.Name, rel)
			fileConf = &dynamic.Configuration{}
			require.NoError(t, yaml.UnmarshalStrict([]byte(text), fileConf), "Traefik's file provider configuration")
		}
	}
	require.NotNil(t, fileConf, "%s is in no ConfigMap volume of Traefik's container", filename)
	require.NotNil(t, fileConf.HTTP)
	require.Len(t, fileConf.HTTP.Routers, 1, "the file provider routes only the probe")
	require.Len(t, fileConf.HTTP.Services, 1)
	for name, r := range fileConf.HTTP.Routers {
		assert.Equal(t, []string{probeEntryPoint}, r.EntryPoints, "router %s", name)
		assert.Equal(t, "Path(`/healthz`) || Path(`/metrics`)", r.Rule, "router %s: exactly the paths that need no credential", name)
		assert.Empty(t, r.Middlewares, "router %s", name)
		svc := fileConf.HTTP.Services[r.Service]
		require.NotNil(t, svc, "router %s: no service %s", name, r.Service)
		require.NotNil(t, svc.LoadBalancer)
		require.Len(t, svc.LoadBalancer.Servers, 1)
		assert.Equal(t, "http://"+address, svc.LoadBalancer.Servers[0].URL)
	}

	// The token: in sliceway's container, where client-go looks, and not
	// in Traefik's.
	require.NotNil(t, pod.AutomountServiceAccountToken)
	assert.False(t, *pod.AutomountServiceAccountToken, "every container gets sliceway's token, Traefik's too")
	tokenVolumes := map[string]bool{}
	for _, v := range pod.Volumes {
		if v.Secret != nil {
			tokenVolumes[v.Name] = true
		}
		if v.Projected != nil {
			for _, s := range v.Projected.Sources {
				if s.ServiceAccountToken != nil || s.Secret != nil {
					tokenVolumes[v.Name] = true
				}
			}
		}
	}
	for _, m := range tr.VolumeMounts {
		assert.False(t, tokenVolumes[m.Name], "Traefik's container mounts volume %s", m.Name)
	}
	var swToken bool
	for _, m := range sw.VolumeMounts {
		swToken = swToken || (tokenVolumes[m.Name] && m.MountPath == serviceAccountDir)
	}
	assert.True(t, swToken, "sliceway's container has no ServiceAccount token at %s", serviceAccountDir)

	svc, err := cp.Client().CoreV1().Services(dep.Namespace).Get(ctx, "traefik", metav1.GetOptions{})
	require.NoError(t, err)
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	assert.True(t, !sel.Empty() && sel.Matches(labels.Set(dep.Spec.Template.Labels)), "Service traefik does not select the pods")
}
