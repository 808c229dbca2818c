package integration_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

const deploymentManifest = "../docs/manifests/deployment.yaml"

// docs/manifests/deployment.yaml applies, and its container's command line,
// run as the kubelet would run it (the sliceway binary, as ServiceAccount
// sliceway, POD_NAMESPACE set), serves the whole configuration and reports
// healthy on the readiness probe's path.
func TestDeploymentManifest(t *testing.T) {
	cp := startControlPlane(t)
	applyFile(t, cp, rbacManifest)
	createNodes(t, cp)
	createIngressClass(t, cp)
	app := createWebApp(t, cp, "apps")
	applyFile(t, cp, deploymentManifest)

	dep, err := cp.Client().AppsV1().Deployments("sliceway").Get(ctx, "sliceway", metav1.GetOptions{})
	require.NoError(t, err)
	pod := dep.Spec.Template.Spec
	assert.Equal(t, "sliceway", pod.ServiceAccountName)
	require.Len(t, pod.Containers, 1)
	c := pod.Containers[0]
	require.NotEmpty(t, c.Args)
	assert.Equal(t, "serve", c.Args[0])
	var podNamespace bool
	for _, e := range c.Env {
		if e.Name == "POD_NAMESPACE" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace" {
			podNamespace = true
		}
	}
	assert.True(t, podNamespace, "POD_NAMESPACE is not set from metadata.namespace")
	require.NotNil(t, c.ReadinessProbe)
	require.NotNil(t, c.ReadinessProbe.HTTPGet)
	probePath := c.ReadinessProbe.HTTPGet.Path
	assert.Equal(t, "/healthz", probePath)

	// The binary, built from this checkout's main module.
	bin := filepath.Join(t.TempDir(), "sliceway")
	build := exec.Command("go", "build", "-o", bin, "./cmd/sliceway")
	build.Dir = ".."
	build.Stderr = os.Stderr
	require.NoError(t, build.Run(), "building sliceway")

	// The container's arguments, with the address moved to a free local
	// port and the credentials a pod would find in its service-account
	// volume given explicitly.
	addr := freeAddr(t)
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte(saToken(t, cp, "sliceway", "sliceway")), 0o600))
	var args []string
	for _, a := range c.Args {
		if strings.HasPrefix(a, "--serve.address=") {
			a = "--serve.address=" + addr
		}
		args = append(args, a)
	}
	args = append(args,
		"--providers.kubernetesingress.endpoint="+cp.URL,
		"--providers.kubernetesingress.tokenfile="+tokenFile,
		"--providers.kubernetesingress.certauthfilepath="+cp.CAFile,
	)
	logs := &syncBuffer{}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "POD_NAMESPACE=sliceway")
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case err := <-exited:
			assert.NoError(t, err, "sliceway serve did not exit cleanly on SIGTERM")
		case <-time.After(15 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Error("sliceway serve did not exit within 15s of SIGTERM")
		}
		if t.Failed() {
			t.Logf("sliceway serve logs:\n%s", logs.String())
		}
	})

	client := &http.Client{Timeout: 5 * time.Second}
	var cfg dynamic.Configuration
	eventually(t, "the configuration served with the apps servers", time.Minute, func() bool {
		select {
		case err := <-exited:
			t.Fatalf("sliceway serve exited: %v\n%s", err, logs.String())
		default:
		}
		if code, _ := get(client, "http://"+addr+probePath); code != http.StatusOK {
			return false
		}
		code, body := get(client, "http://"+addr+"/api/config")
		if code != http.StatusOK {
			return false
		}
		cfg = dynamic.Configuration{}
		return json.Unmarshal(body, &cfg) == nil && webServers("apps")(&cfg)
	})
	app.requireFullConfig(t, &cfg)
	assert.NotContains(t, logs.String(), "forbidden")
}

func get(client *http.Client, url string) (int, []byte) {
	resp, err := client.Get(url)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return fmt.Sprintf("127.0.0.1:%d", l.Addr().(*net.TCPAddr).Port)
}
