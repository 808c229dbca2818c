package integration_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/integration/controlplane"
	"github.com/sliceway/sliceway/internal/pki"
)

// Helpers for the tests of docs/manifests: what the kubelet would do with
// a pod's spec (its arguments, its Secret volumes), and certificates.

const (
	deploymentManifest    = "../docs/manifests/deployment.yaml"
	traefikManifest       = "../docs/manifests/traefik.yaml"
	networkPolicyManifest = "../docs/manifests/networkpolicy.yaml"
	sidecarManifest       = "../docs/manifests/sidecar.yaml"
)

// getDeployment reads a Deployment back from the API server: what it kept
// of the manifest, not what the file says.
func getDeployment(t *testing.T, cp *controlplane.ControlPlane, namespace, name string) *appsv1.Deployment {
	t.Helper()
	dep, err := cp.Client().AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	return dep
}

func container(t *testing.T, pod *corev1.PodSpec, name string) *corev1.Container {
	t.Helper()
	for i := range pod.Containers {
		if pod.Containers[i].Name == name {
			return &pod.Containers[i]
		}
	}
	require.Failf(t, "no such container", "no container %q in the pod", name)
	return nil
}

// flagValue is the value of --name=value in args (names compared as paerser
// and Traefik compare them, without case), and whether it is there. The
// manifests write every flag as --name=value: --name alone fails t.
func flagValue(t *testing.T, args []string, name string) (string, bool) {
	t.Helper()
	value, found := "", false
	for _, a := range args {
		n, v, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !strings.HasPrefix(a, "--") || !strings.EqualFold(n, name) {
			continue
		}
		require.True(t, hasValue, "%s without =value", a)
		require.False(t, found, "--%s given twice", name)
		value, found = v, true
	}
	return value, found
}

// mountSecrets does what the kubelet does for the Secret volumes of a
// container: it writes each key of each Secret, as the API server has it,
// into a directory, which stands for the volume's mount path. It returns
// the mount paths and their directories.
func mountSecrets(t *testing.T, cp *controlplane.ControlPlane, namespace string, pod *corev1.PodSpec, c *corev1.Container) map[string]string {
	t.Helper()
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		var secret string
		for _, v := range pod.Volumes {
			if v.Name == m.Name && v.Secret != nil {
				secret = v.Secret.SecretName
			}
		}
		if secret == "" {
			continue
		}
		require.Empty(t, m.SubPath, "a subPath mount of Secret %s is never updated on rotation", secret)
		s, err := cp.Client().CoreV1().Secrets(namespace).Get(ctx, secret, metav1.GetOptions{})
		require.NoError(t, err, "Secret %s/%s of volume %s", namespace, secret, m.Name)
		dir := t.TempDir()
		for k, v := range s.Data {
			require.NoError(t, os.WriteFile(filepath.Join(dir, k), v, 0o400))
		}
		mounts[m.MountPath] = dir
	}
	return mounts
}

// inMounts rewrites a path under one of the mount paths to the directory
// that stands for it, and fails t for a path under none.
func inMounts(t *testing.T, mounts map[string]string, path string) string {
	t.Helper()
	for mountPath, dir := range mounts {
		if rest, ok := strings.CutPrefix(path, strings.TrimSuffix(mountPath, "/")+"/"); ok {
			return filepath.Join(dir, rest)
		}
	}
	require.Failf(t, "not in a Secret volume", "%s is under no Secret volume of the container (%v)", path, mounts)
	return ""
}

// rewriteMounts rewrites every flag value under a mount path.
func rewriteMounts(t *testing.T, mounts map[string]string, args []string) []string {
	t.Helper()
	out := make([]string, 0, len(args))
	for _, a := range args {
		if n, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(v, "/") {
			for mountPath := range mounts {
				if strings.HasPrefix(v, strings.TrimSuffix(mountPath, "/")+"/") {
					a = n + "=" + inMounts(t, mounts, v)
				}
			}
		}
		out = append(out, a)
	}
	return out
}

// newTestCA makes a certificate authority for one test, valid from an hour
// ago for a day.
func newTestCA(t *testing.T, name string) *pki.CA {
	t.Helper()
	ca, err := pki.NewCA(pki.Request{CommonName: name})
	require.NoError(t, err)
	return ca
}

// issue has ca sign a certificate for the hosts (DNS names or IP
// addresses) and the usage, and returns it and its key in PEM.
func issue(t *testing.T, ca *pki.CA, usage pki.Usage, cn string, hosts ...string) (certPEM, keyPEM []byte) {
	t.Helper()
	cert, err := ca.Issue(pki.Request{CommonName: cn, Hosts: hosts, Usage: usage})
	require.NoError(t, err)
	return cert.CertPEM(), cert.KeyPEM()
}

// createTLSSecretWithCA creates a kubernetes.io/tls Secret with ca.crt, as
// cert-manager writes them.
func createTLSSecretWithCA(t *testing.T, cp *controlplane.ControlPlane, namespace, name string, certPEM, keyPEM, caPEM []byte) {
	t.Helper()
	_, err := cp.Client().CoreV1().Secrets(namespace).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: certPEM, corev1.TLSPrivateKeyKey: keyPEM, "ca.crt": caPEM},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
}
