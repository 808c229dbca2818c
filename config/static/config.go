// Package static is the configuration of the sliceway binary, loaded by
// paerser from flags, SLICEWAY_* environment variables or a file.
package static

import (
	"fmt"
	"os"
	"slices"
	"strconv"

	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
)

// Configuration is the root of the binary's configuration.
type Configuration struct {
	ConfigFile      string     `description:"Configuration file (TOML or YAML) to read instead of flags and environment variables." json:"-" toml:"-" yaml:"-"`
	Log             *Log       `description:"Logging." json:"log,omitempty" toml:"log,omitempty" yaml:"log,omitempty" export:"true"`
	Providers       *Providers `description:"Providers." json:"providers,omitempty" toml:"providers,omitempty" yaml:"providers,omitempty" export:"true"`
	Manifests       []string   `description:"Manifest files or directories to serve as an in-memory cluster instead of connecting to one." json:"manifests,omitempty" toml:"manifests,omitempty" yaml:"manifests,omitempty"`
	FollowManifests bool       `description:"Read the manifests again when a file or directory under them changes, and render the change (watch and serve; render reads them once)." json:"followManifests,omitempty" toml:"followManifests,omitempty" yaml:"followManifests,omitempty"`
	Demo            bool       `description:"Use the bundled demo cluster. render falls back to it when neither manifests nor a cluster are configured; watch and serve then stop with an error, so they never hand a proxy the demo unasked." json:"demo,omitempty" toml:"demo,omitempty" yaml:"demo,omitempty"`
	Format          string     `description:"Output format of render: json or yaml." json:"format,omitempty" toml:"format,omitempty" yaml:"format,omitempty"`
	Output          string     `description:"File that watch writes each new configuration to, as YAML, atomically, for Traefik's file provider (which reads it as a Go template: each {{ is written as an action that gives it back), instead of JSON lines on stdout." json:"output,omitempty" toml:"output,omitempty" yaml:"output,omitempty"`
	OutputMode      string     `description:"Permission bits of the file watch writes, in octal: 0600 (the file holds the private keys of the Ingresses' TLS Secrets); 0640 lets the file's group read it." json:"outputMode,omitempty" toml:"outputMode,omitempty" yaml:"outputMode,omitempty"`
	Serve           *Serve     `description:"The HTTP server of serve." json:"serve,omitempty" toml:"serve,omitempty" yaml:"serve,omitempty" export:"true"`
}

// Log configures logging; logs go to stderr.
type Log struct {
	Level  string `description:"Log level: debug, info, warn or error." json:"level,omitempty" toml:"level,omitempty" yaml:"level,omitempty"`
	Format string `description:"Log format: text or json." json:"format,omitempty" toml:"format,omitempty" yaml:"format,omitempty"`
}

// Providers holds the providers' options.
type Providers struct {
	KubernetesIngress *ingress.Provider `description:"Kubernetes Ingress provider (Traefik-style); on by default when no provider is configured." json:"kubernetesIngress,omitempty" toml:"kubernetesIngress,omitempty" yaml:"kubernetesIngress,omitempty" label:"allowEmpty" export:"true"`
	// Off unless set: --providers.kubernetesingressnginx=true.
	KubernetesIngressNGINX *ingress.NGINXProvider `description:"Kubernetes Ingress provider for the Ingresses of ingress-nginx (class nginx, nginx.ingress.kubernetes.io annotations); its names start with nginx_, so it can run beside kubernetesIngress." json:"kubernetesIngressNGINX,omitempty" toml:"kubernetesIngressNGINX,omitempty" yaml:"kubernetesIngressNGINX,omitempty" label:"allowEmpty" export:"true"`

	// Off unless set: --providers.kubernetesgateway=true.
	KubernetesGateway *ingress.GatewayProvider `description:"Gateway API provider: the HTTPRoutes and GRPCRoutes attached to the Gateways of the GatewayClasses whose controllerName is its controllerName, their listeners served on the entry points of their ports; its routers' names start with httproute- and grpcroute-, so it can run beside the Ingress providers." json:"kubernetesGateway,omitempty" toml:"kubernetesGateway,omitempty" yaml:"kubernetesGateway,omitempty" label:"allowEmpty" export:"true"`

	// switchedOff are the providers a source turned off by name
	// (--providers.kubernetesingress=false): paerser leaves a section
	// given false as one not given, which EnableDefault would turn on.
	switchedOff []string
}

// NGINXSection is the ingress-nginx provider's section, as the docs name it.
const NGINXSection = "providers.kubernetesIngressNGINX"

// GatewaySection is the Gateway API provider's section, as the docs name it.
const GatewaySection = "providers.kubernetesGateway"

// GatewayUnreadOptions are options of the Traefik-style provider that the
// Gateway API provider takes (it embeds them all) but never reads: those
// of Ingresses (their class, labels, rule priorities and size, their
// Secrets' namespaces, the rule syntax of their routers) and of empty
// services (a backend without servers answers 503 there).
var GatewayUnreadOptions = []string{"allowEmptyServices", "crossProviderNamespaces", "defaultRuleSyntax", "disableIngressClassLookup",
	"ingressClass", "labelSelector", "maxIngressOutput", "routerPriority", "strictPrefixMatching"}

// NGINXUnreadOptions are options of the Traefik-style provider that the
// ingress-nginx provider takes (it embeds them all) but never reads:
// its paths match as ingress-nginx's locations do, in its order
// (routerPriority, strictPrefixMatching), and its annotations name no
// other provider's objects (crossProviderNamespaces). The help leaves
// them out of its section and setting one is warned about.
var NGINXUnreadOptions = []string{"crossProviderNamespaces", "routerPriority", "strictPrefixMatching"}

// UnreadOptions are the options, in full (section.option), that a
// provider takes from the Traefik-style one but never reads: the help
// leaves them out and setting one is warned about.
func UnreadOptions() []string {
	var names []string
	for _, s := range []struct {
		section string
		options []string
	}{{NGINXSection, NGINXUnreadOptions}, {GatewaySection, GatewayUnreadOptions}} {
		for _, o := range s.options {
			names = append(names, s.section+"."+o)
		}
	}
	return names
}

// New returns a configuration with the default values. No provider is
// set: as in Traefik, a provider runs when its section is configured
// (--providers.kubernetesingressnginx=true, any providers.kubernetesIngress
// option), and with none configured the Traefik-style one runs
// (Providers.EnableDefault).
func New() *Configuration {
	return &Configuration{
		Log:             &Log{Level: "info", Format: "text"},
		Providers:       &Providers{},
		FollowManifests: true,
		Format:          "json",
		OutputMode:      "0600",
		Serve:           newServe(),
	}
}

// SwitchOff records that a source gave the switch of the provider named
// name (kubernetesIngress, kubernetesIngressNGINX, kubernetesGateway)
// false.
func (p *Providers) SwitchOff(name string) {
	p.switchedOff = append(p.switchedOff, name)
}

// EnableDefault turns the Traefik-style provider on, with its defaults,
// when no provider is configured and it was not switched off.
func (p *Providers) EnableDefault() {
	if p.KubernetesIngress == nil && p.KubernetesIngressNGINX == nil && p.KubernetesGateway == nil && !slices.Contains(p.switchedOff, "kubernetesIngress") {
		p.KubernetesIngress = &ingress.Provider{}
		p.KubernetesIngress.SetDefaults()
	}
}

// FileMode is the mode of the file watch writes, from OutputMode: octal
// permission bits that at least let the owner read and write it.
func (c *Configuration) FileMode() (os.FileMode, error) {
	if c.OutputMode == "" {
		return 0o600, nil
	}
	bits, err := strconv.ParseUint(c.OutputMode, 8, 32)
	if err != nil || bits > 0o777 {
		return 0, fmt.Errorf("outputMode %q: must be octal permission bits such as 0600 or 0640", c.OutputMode)
	}
	if bits&0o600 != 0o600 {
		return 0, fmt.Errorf("outputMode %q: the owner must be able to read and write the file (0600 at least)", c.OutputMode)
	}
	return os.FileMode(bits), nil
}
