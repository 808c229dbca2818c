package ingress

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Version is sliceway's version, set at build time with
// -ldflags "-X github.com/sliceway/sliceway/provider/kubernetes/ingress.Version=...".
var Version = "dev"

// ClusterConfigured says whether a real cluster can be reached without
// manifests: in-cluster credentials, an explicit endpoint, or a kubeconfig.
func (p *Provider) ClusterConfigured() bool {
	if os.Getenv("KUBERNETES_SERVICE_HOST") != "" || p.Endpoint != "" || os.Getenv("KUBECONFIG") != "" {
		return true
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(home, ".kube", "config"))
	return err == nil
}

// RESTConfig builds the client configuration: in-cluster service-account
// credentials when KUBERNETES_SERVICE_HOST is set; else endpoint, token and
// certAuthFilePath when endpoint is set; else the kubeconfig from KUBECONFIG
// or ~/.kube/config. Built-in types are exchanged as protobuf; responses
// are compressed as clientCompression says.
func (p *Provider) RESTConfig() (*rest.Config, error) {
	var cfg *rest.Config
	var err error
	inCluster := os.Getenv("KUBERNETES_SERVICE_HOST") != ""
	switch {
	case inCluster:
		cfg, err = rest.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("in-cluster configuration: %w", err)
		}
		if p.Endpoint != "" {
			cfg.Host = p.Endpoint
		}
	case p.Endpoint != "":
		cfg = &rest.Config{Host: p.Endpoint, BearerToken: p.Token, BearerTokenFile: p.TokenFile}
		if p.CertAuthFilePath != "" {
			if _, err := os.Stat(p.CertAuthFilePath); err != nil {
				return nil, fmt.Errorf("certAuthFilePath: %w", err)
			}
			cfg.CAFile = p.CertAuthFilePath
		}
	default:
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		cfg, err = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
		if err != nil {
			if clientcmd.IsEmptyConfig(err) {
				tried := "~/.kube/config"
				if files := rules.GetLoadingPrecedence(); len(files) > 0 {
					tried = strings.Join(files, ", ")
				}
				return nil, fmt.Errorf("no cluster configured: no kubeconfig at %s (KUBECONFIG, else ~/.kube/config); set endpoint, run in a cluster, or provide one", tried)
			}
			return nil, fmt.Errorf("kubeconfig: %w", err)
		}
	}
	cfg.UserAgent = "sliceway/" + Version
	cfg.QPS, cfg.Burst = float32(p.ClientQPS), p.ClientBurst
	if cfg.QPS > 0 && cfg.Burst == 0 {
		// client-go wants a burst with a rate; one second's worth.
		cfg.Burst = max(1, int(math.Ceil(p.ClientQPS)))
	}
	cfg.DisableCompression = disableCompression(p.ClientCompression, inCluster, cfg.DisableCompression)
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	return cfg, nil
}

// NewClientset connects to the configured cluster.
func (p *Provider) NewClientset() (kubernetes.Interface, error) {
	cfg, err := p.RESTConfig()
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}

// disableCompression says whether to ask the API server for uncompressed
// responses, by clientCompression: on and off say so; auto turns it off in
// a cluster, where the API server is a fast network away and gzip costs it
// (and the provider) more CPU than the bytes it saves take to send, most
// at start, when every object is listed (the control-plane components turn
// it off for the same reason); elsewhere it keeps what the client
// configuration says (a kubeconfig's disable-compression).
func disableCompression(mode string, inCluster, configured bool) bool {
	switch strings.ToLower(mode) {
	case CompressionOn:
		return false
	case CompressionOff:
		return true
	}
	return inCluster || configured
}
