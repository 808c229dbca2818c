// Package controlplane runs a real Kubernetes control plane for the
// integration tests: embedded etcd, kube-apiserver and kube-controller-manager
// (EndpointSlice, EndpointSlice mirroring and ServiceAccount controllers),
// each its own child process of the launcher built from ./cmd/controlplane,
// listening on 127.0.0.1 only. There is no kubelet and no scheduler: the
// tests play the kubelet with the helpers in kubelet.go.
package controlplane

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Controllers are the kube-controller-manager controllers that run.
var Controllers = []string{
	"endpointslice-controller",
	"endpointslice-mirroring-controller",
	"serviceaccount-controller",
}

// PodControllers are the controllers that turn Deployments into pods
// (ExtraControllers), which a PodRunner then runs.
var PodControllers = []string{"deployment-controller", "replicaset-controller"}

// ServiceCIDR is the Services' cluster IP range.
const ServiceCIDR = "10.96.0.0/16"

// Options configure a control plane.
type Options struct {
	// Binary is the launcher built from ./cmd/controlplane (required).
	Binary string
	// Dir holds keys, etcd data, kubeconfig and the component logs
	// (etcd.log, kube-apiserver.log, kube-controller-manager.log). Required.
	Dir string
	// PIDDir, when set, records the pid of every component while it runs,
	// so that KillStale can end what a killed run left behind.
	PIDDir string
	// StartTimeout bounds the start of each component (default 2 minutes).
	StartTimeout time.Duration
	// Logf, when set, is told of progress.
	Logf func(format string, args ...any)
	// ExtraControllers are controllers of kube-controller-manager to run
	// besides Controllers: PodControllers for pods made from Deployments.
	ExtraControllers []string
}

// ControlPlane is a running control plane.
type ControlPlane struct {
	opts Options
	pki  *pkiFiles

	// URL is the API server's address, https://127.0.0.1:<port>.
	URL string
	// CAFile is the CA certificate (PEM) the API server's certificate is
	// signed with.
	CAFile string
	// AdminToken is a static token of user admin in group system:masters.
	AdminToken string
	// Kubeconfig is the path of a kubeconfig file for the admin.
	Kubeconfig string
	// SAKeyFile is the service-account signing key (RSA, PEM).
	SAKeyFile string

	etcdClientURL, etcdPeerURL string
	apiPort                    int

	etcd, apiserver, kcm *proc
	replicas             []*proc
	client               kubernetes.Interface
}

// Start generates keys and tokens in opts.Dir and starts etcd, the API
// server and the controller manager, returning once the API server is ready
// and the controller manager works. On error, whatever started is stopped.
func Start(ctx context.Context, opts Options) (_ *ControlPlane, err error) {
	if opts.Binary == "" || opts.Dir == "" {
		return nil, errors.New("controlplane: Binary and Dir are required")
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 2 * time.Minute
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, err
	}
	c := &ControlPlane{opts: opts}
	defer func() {
		if err != nil {
			_ = c.Stop()
		}
	}()
	if c.pki, err = writePKI(opts.Dir); err != nil {
		return nil, fmt.Errorf("generating keys: %w", err)
	}
	c.CAFile, c.AdminToken, c.SAKeyFile = c.pki.caFile, c.pki.adminToken, c.pki.saKeyFile

	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	c.etcdClientURL = fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	c.etcdPeerURL = fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	c.apiPort = ports[2]
	c.URL = fmt.Sprintf("https://127.0.0.1:%d", c.apiPort)

	start := time.Now()
	if err := c.startEtcd(ctx); err != nil {
		return nil, err
	}
	opts.Logf("etcd ready at %s after %s", c.etcdClientURL, time.Since(start).Round(time.Millisecond))

	if err := c.StartAPIServer(ctx); err != nil {
		return nil, err
	}
	opts.Logf("kube-apiserver ready at %s after %s", c.URL, time.Since(start).Round(time.Millisecond))

	if c.Kubeconfig, err = c.writeKubeconfig(); err != nil {
		return nil, err
	}
	if c.client, err = kubernetes.NewForConfig(c.AdminConfig()); err != nil {
		return nil, err
	}
	if err := c.startControllerManager(ctx); err != nil {
		return nil, err
	}
	opts.Logf("kube-controller-manager working after %s", time.Since(start).Round(time.Millisecond))
	return c, nil
}

// AdminConfig is a client configuration for the admin (system:masters).
func (c *ControlPlane) AdminConfig() *rest.Config {
	return &rest.Config{
		Host:            c.URL,
		BearerToken:     c.AdminToken,
		TLSClientConfig: rest.TLSClientConfig{CAFile: c.CAFile},
		QPS:             100,
		Burst:           200,
		// Tests write deprecated kinds (Endpoints) on purpose.
		WarningHandler: rest.NoWarnings{},
	}
}

// Client is a clientset of the admin.
func (c *ControlPlane) Client() kubernetes.Interface { return c.client }

// Dir is where keys, data and logs are.
func (c *ControlPlane) Dir() string { return c.opts.Dir }

// LogPath is the log file of a component: etcd, kube-apiserver or
// kube-controller-manager.
func (c *ControlPlane) LogPath(component string) string {
	return filepath.Join(c.opts.Dir, component+".log")
}

func (c *ControlPlane) startEtcd(ctx context.Context) error {
	p, err := startProc("etcd", c.opts.Binary, []string{
		"--data-dir=" + filepath.Join(c.opts.Dir, "etcd"),
		"--client-url=" + c.etcdClientURL,
		"--peer-url=" + c.etcdPeerURL,
	}, c.LogPath("etcd"), c.opts.PIDDir)
	if err != nil {
		return err
	}
	c.etcd = p
	return c.waitHTTP(ctx, p, c.etcdClientURL+"/health", nil)
}

// StartAPIServer starts the API server, on the same port and etcd as before
// when it was stopped, and waits until /readyz answers ok.
func (c *ControlPlane) StartAPIServer(ctx context.Context) error {
	if c.apiserver != nil && !c.apiserver.exited() {
		return errors.New("kube-apiserver is running")
	}
	p, err := c.startAPIServer(ctx, c.apiPort, "kube-apiserver")
	if err != nil {
		return err
	}
	c.apiserver = p
	return nil
}

// APIServer is a second API server on the same etcd.
type APIServer struct {
	// URL is its address, https://127.0.0.1:<port>; the certificate and
	// tokens are the control plane's.
	URL string
	p   *proc
}

// Stop stops it (SIGTERM, again after 3s, SIGKILL after 20s).
func (a *APIServer) Stop() error { return a.p.stop(20 * time.Second) }

// StartAPIServerReplica starts another API server on the same etcd, on a port
// of its own, logging to kube-apiserver-<port>.log: a way to change objects
// while the main API server is down. The control plane's Stop stops it too.
func (c *ControlPlane) StartAPIServerReplica(ctx context.Context) (*APIServer, error) {
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	p, err := c.startAPIServer(ctx, ports[0], fmt.Sprintf("kube-apiserver-%d", ports[0]))
	if err != nil {
		return nil, err
	}
	c.replicas = append(c.replicas, p)
	return &APIServer{URL: fmt.Sprintf("https://127.0.0.1:%d", ports[0]), p: p}, nil
}

func (c *ControlPlane) startAPIServer(ctx context.Context, port int, logName string) (*proc, error) {
	p, err := startProc("kube-apiserver", c.opts.Binary, []string{
		"--etcd-servers=" + c.etcdClientURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + filepath.Join(c.opts.Dir, "apiserver-certs"),
		"--tls-cert-file=" + c.pki.certFile,
		"--tls-private-key-file=" + c.pki.keyFile,
		"--authorization-mode=Node,RBAC",
		// Pod logs are asked of the Node's kubelet at its InternalIP (the
		// pod runner serves them there); a Node's hostname resolves nowhere.
		"--kubelet-preferred-address-types=InternalIP",
		"--token-auth-file=" + c.pki.tokenFile,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + c.pki.saPubFile,
		"--service-account-signing-key-file=" + c.pki.saKeyFile,
		"--service-cluster-ip-range=" + ServiceCIDR,
		// 127.0.0.1 is not a valid endpoint address: no reconciler for the
		// kubernetes Service's endpoints.
		"--endpoint-reconciler-type=none",
		"--enable-priority-and-fairness=false",
		"--profiling=false",
		"--v=0",
	}, c.LogPath(logName), c.opts.PIDDir)
	if err != nil {
		return nil, err
	}
	url := fmt.Sprintf("https://127.0.0.1:%d/readyz", port)
	if err := c.waitHTTP(ctx, p, url, c.adminHeader()); err != nil {
		_ = p.stop(5 * time.Second)
		return nil, err
	}
	return p, nil
}

// StopAPIServer stops the API server (SIGTERM, again after 3s, SIGKILL after 20s); etcd and
// the controller manager keep running.
func (c *ControlPlane) StopAPIServer() error {
	return c.apiserver.stop(20 * time.Second)
}

// APIServerRunning says whether the API server process runs.
func (c *ControlPlane) APIServerRunning() bool {
	return c.apiserver != nil && !c.apiserver.exited()
}

// APIServerCPU is the CPU time the API server process has used so far
// (user and system, from /proc), for measuring what a client costs it.
func (c *ControlPlane) APIServerCPU() (time.Duration, error) {
	if c.apiserver == nil || c.apiserver.cmd.Process == nil {
		return 0, errors.New("the API server is not running")
	}
	return ProcessCPU(c.apiserver.cmd.Process.Pid)
}

func (c *ControlPlane) startControllerManager(ctx context.Context) error {
	p, err := startProc("kube-controller-manager", c.opts.Binary, []string{
		"--kubeconfig=" + c.Kubeconfig,
		"--controllers=" + strings.Join(append(slices.Clone(Controllers), c.opts.ExtraControllers...), ","),
		"--service-account-private-key-file=" + c.pki.saKeyFile,
		"--use-service-account-credentials=false",
		"--leader-elect=false",
		"--secure-port=0",
		"--concurrent-service-endpoint-syncs=2",
		"--v=0",
	}, c.LogPath("kube-controller-manager"), c.opts.PIDDir)
	if err != nil {
		return err
	}
	c.kcm = p
	// The serviceaccount controller creating default/default is the sign
	// that the controller manager has started its controllers.
	ctx, cancel := context.WithTimeout(ctx, c.opts.StartTimeout)
	defer cancel()
	for {
		_, err := c.client.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Get(ctx, "default", metav1.GetOptions{})
		if err == nil {
			return nil
		}
		if !apierrors.IsNotFound(err) && ctx.Err() == nil {
			c.opts.Logf("waiting for the controller manager: %v", err)
		}
		select {
		case <-p.done:
			return fmt.Errorf("kube-controller-manager exited: %v; see %s", p.err, c.LogPath(p.name))
		case <-ctx.Done():
			return fmt.Errorf("kube-controller-manager: no default ServiceAccount after %s; see %s", c.opts.StartTimeout, c.LogPath(p.name))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Stop stops every component: controller manager, API server, etcd.
func (c *ControlPlane) Stop() error {
	var errs []error
	procs := append([]*proc{c.kcm}, c.replicas...)
	for _, p := range append(procs, c.apiserver, c.etcd) {
		if err := p.stop(20 * time.Second); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (c *ControlPlane) adminHeader() http.Header {
	return http.Header{"Authorization": []string{"Bearer " + c.AdminToken}}
}

// waitHTTP polls url until it answers 200, the process exits, or the start
// timeout passes.
func (c *ControlPlane) waitHTTP(ctx context.Context, p *proc, url string, header http.Header) error {
	client := &http.Client{Timeout: 5 * time.Second}
	if strings.HasPrefix(url, "https:") {
		pool := x509.NewCertPool()
		ca, err := os.ReadFile(c.CAFile)
		if err != nil {
			return err
		}
		pool.AppendCertsFromPEM(ca)
		client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, c.opts.StartTimeout)
	defer cancel()
	var last string
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		for k, v := range header {
			req.Header[k] = v
		}
		resp, err := client.Do(req)
		if err == nil {
			buf := make([]byte, 512)
			n, _ := resp.Body.Read(buf)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%s: %s", resp.Status, buf[:n])
		} else {
			last = err.Error()
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited (%v) before %s answered; see %s", p.name, p.err, url, c.LogPath(p.name))
		case <-ctx.Done():
			return fmt.Errorf("%s not ready after %s (last: %s); see %s", p.name, c.opts.StartTimeout, last, c.LogPath(p.name))
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func (c *ControlPlane) writeKubeconfig() (string, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["integration"] = &clientcmdapi.Cluster{Server: c.URL, CertificateAuthority: c.CAFile}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: c.AdminToken}
	cfg.Contexts["integration"] = &clientcmdapi.Context{Cluster: "integration", AuthInfo: "admin"}
	cfg.CurrentContext = "integration"
	path := filepath.Join(c.opts.Dir, "kubeconfig")
	return path, clientcmd.WriteToFile(*cfg, path)
}

// freePorts picks n distinct free TCP ports on 127.0.0.1.
func freePorts(n int) ([]int, error) {
	var ports []int
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("picking a free port: %w", err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
