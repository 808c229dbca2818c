package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rs/zerolog"
	"k8s.io/client-go/kubernetes"
	gatewayclient "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/config/static"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
)

// enabledProvider is a provider the configuration runs: the Traefik-style
// one (always) and the ingress-nginx one (when enabled).
type enabledProvider struct {
	option string // its section, for errors: providers.kubernetesIngress
	run    interface {
		Init() error
		Provide(ctx context.Context, out chan<- dynamic.Message) error
		SetClientset(cs kubernetes.Interface)
		SetLogger(l zerolog.Logger)
		SetObserver(o ingress.Observer)
	}
	opts *ingress.Provider // its options, as a one-shot render reads them
	// gateway is the Gateway API provider, which also reads the Gateway
	// API objects through a clientset of their own; nil for the others.
	gateway *ingress.GatewayProvider
}

// enabledProviders lists the providers of cfg, the Traefik-style one first.
func enabledProviders(cfg *static.Configuration) []enabledProvider {
	if cfg.Providers == nil {
		cfg.Providers = &static.Providers{}
	}
	cfg.Providers.EnableDefault()
	var list []enabledProvider
	if p := cfg.Providers.KubernetesIngress; p != nil {
		list = append(list, enabledProvider{option: "providers.kubernetesIngress", run: p, opts: p})
	}
	if p := cfg.Providers.KubernetesIngressNGINX; p != nil {
		list = append(list, enabledProvider{option: "providers.kubernetesIngressNGINX", run: p, opts: &p.Provider})
	}
	if p := cfg.Providers.KubernetesGateway; p != nil {
		list = append(list, enabledProvider{option: "providers.kubernetesGateway", run: p, opts: &p.Provider, gateway: p})
	}
	return list
}

// gatewayOn says whether the Gateway API provider runs: the manifests are
// then read for Gateway API objects too.
func gatewayOn(cfg *static.Configuration) bool {
	return cfg.Providers != nil && cfg.Providers.KubernetesGateway != nil
}

// gatewayClientset is the Gateway API clientset of an enabled Gateway API
// provider: shared, the in-memory cluster's, or one of its own
// connection.
func gatewayClientset(cfg *static.Configuration, ep enabledProvider, shared gatewayclient.Interface) (gatewayclient.Interface, error) {
	if inMemoryCluster(cfg) {
		return shared, nil
	}
	gw, err := ep.gateway.NewGatewayClientset()
	if err != nil {
		return nil, fmt.Errorf("%s: connecting to the cluster: %w", ep.option, err)
	}
	return gw, nil
}

// initProviders gives each enabled provider the logger (and observer) and
// validates its options. It says which providers run: a switch's value
// decides whether a provider runs, and a user who meant to turn one on
// must see it did not. None runs only when the Traefik-style one is
// switched off and no other is on: that is warned about, and the
// configuration stays empty.
func initProviders(cfg *static.Configuration, logger zerolog.Logger, observer ingress.Observer) ([]enabledProvider, error) {
	list := enabledProviders(cfg)
	if len(list) == 0 {
		logger.Warn().Msg("no provider runs: providers.kubernetesIngress is false and providers.kubernetesIngressNGINX is not true; " +
			"the configuration stays empty (--providers.kubernetesingressnginx=true runs the ingress-nginx provider)")
		return nil, nil
	}
	names := make([]string, len(list))
	for i, ep := range list {
		names[i] = strings.ToLower(strings.TrimPrefix(ep.option, "providers."))
	}
	logger.Info().Strs("providers", names).Msg("providers that run")
	for _, ep := range list {
		ep.run.SetLogger(logger)
		if observer != nil {
			ep.run.SetObserver(observer)
		}
		if err := ep.run.Init(); err != nil {
			return nil, fmt.Errorf("%s.%w", ep.option, err)
		}
	}
	if err := separateLeases(list); err != nil {
		return nil, err
	}
	return list, nil
}

// separateLeases refuses two providers that write status and elect their
// leader on the same Lease: in one process, the second elector would wait
// for the first, which never lets go, and its Ingresses would get no
// status. Their defaults differ (sliceway, sliceway-nginx).
func separateLeases(list []enabledProvider) error {
	seen := map[string]string{}
	for _, ep := range list {
		le := ep.opts.LeaderElection
		if ep.opts.IngressEndpoint == nil || le == nil || le.Disabled {
			continue
		}
		lease := le.LeaseNamespace + "/" + le.LeaseName
		if first, ok := seen[lease]; ok {
			return fmt.Errorf("%s.leaderElection: the Lease %q is %s's too: each provider elects its leader on a Lease of its own (leaseName)", ep.option, le.LeaseName, first)
		}
		seen[lease] = ep.option
	}
	return nil
}

// emptyConfiguration is what is delivered when no provider runs: what a
// provider renders for a cluster without Ingresses, written {}.
func emptyConfiguration() *dynamic.Configuration {
	return &dynamic.Configuration{HTTP: &dynamic.HTTPConfiguration{
		Routers: map[string]*dynamic.Router{}, Services: map[string]*dynamic.Service{}, Middlewares: map[string]*dynamic.Middleware{},
	}}
}

// clusterOptions are the provider options that say which cluster, and
// which part of it, is read: the first enabled provider's, for the
// manifests and the demo (which every provider reads alike). There is
// one: a caller with no provider reads no cluster.
func clusterOptions(cfg *static.Configuration) *ingress.Provider {
	return enabledProviders(cfg)[0].opts
}

// providerName is the name an enabled provider gives its messages.
func providerName(ep enabledProvider) string {
	if ep.opts.IsNGINX() {
		return ingress.NGINXProviderName
	}
	if ep.opts.IsGateway() {
		return ingress.GatewayProviderName
	}
	return ingress.ProviderName
}

// inMemoryCluster says whether the configuration reads manifests or the
// demo, which every provider reads from the one in-memory cluster.
func inMemoryCluster(cfg *static.Configuration) bool {
	return len(cfg.Manifests) > 0 || cfg.Demo || !clusterOptions(cfg).ClusterConfigured()
}

// providerClientset is the clientset of an enabled provider: shared, the
// one of the in-memory cluster or of the first provider's connection; a
// provider's own connection otherwise.
func providerClientset(cfg *static.Configuration, ep enabledProvider, shared kubernetes.Interface) (kubernetes.Interface, error) {
	if inMemoryCluster(cfg) || ep.opts == clusterOptions(cfg) {
		return shared, nil
	}
	cs, err := ep.opts.NewClientset()
	if err != nil {
		return nil, fmt.Errorf("%s: connecting to the cluster: %w", ep.option, err)
	}
	return cs, nil
}

// requireSource refuses to stay up with nothing to read: watch and serve
// hand their configuration to a proxy, and the bundled demo (a catch-all
// default router, its own certificate) must never reach one unasked, as
// it would when a pod's credentials are missing. render, run by a person,
// keeps its fallback to the demo.
func requireSource(cfg *static.Configuration, command string) error {
	if len(cfg.Manifests) > 0 || cfg.Demo || clusterOptions(cfg).ClusterConfigured() {
		return nil
	}
	kubeconfig := "~/.kube/config"
	if home, err := os.UserHomeDir(); err == nil {
		kubeconfig = filepath.Join(home, ".kube", "config")
	}
	return fmt.Errorf("no cluster configured: looked for the in-cluster configuration (KUBERNETES_SERVICE_HOST is not set), "+
		"KUBECONFIG (not set), %s (not found) and %s.endpoint (not set); "+
		"configure one of them, give --manifests, or --demo for the bundled demo (%s never falls back to it)",
		kubeconfig, enabledProviders(cfg)[0].option, command)
}
