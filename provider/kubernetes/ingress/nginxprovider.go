package ingress

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/engine"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/nginx"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// NGINXProviderName is the name the ingress-nginx provider gives its
// messages.
const NGINXProviderName = "kubernetesingressnginx"

// NGINXProvider serves the Ingresses ingress-nginx would serve, with their
// nginx.ingress.kubernetes.io annotations translated into Traefik's
// public middlewares, on the same engine as Provider: its options are
// Provider's (the endpoint, trust, family and topology ones, the
// cluster connection, status and leader election), spelled the same
// under its own prefix, and those of ingress-nginx's class selection.
// Its names start with nginx_, so that both providers can feed one
// Traefik.
type NGINXProvider struct {
	Provider
	ControllerClass            string `description:"Controller of the IngressClasses whose Ingresses are served (ingress-nginx's --controller-class)." json:"controllerClass,omitempty" toml:"controllerClass,omitempty" yaml:"controllerClass,omitempty" export:"true"`
	IngressClassByName         bool   `description:"Also serve the Ingresses whose spec.ingressClassName is ingressClass whatever its IngressClass names as controller (ingress-nginx's --ingress-class-by-name)." json:"ingressClassByName,omitempty" toml:"ingressClassByName,omitempty" yaml:"ingressClassByName,omitempty" export:"true"`
	WatchIngressWithoutClass   bool   `description:"Serve the Ingresses that name no class at all (ingress-nginx's --watch-ingress-without-class)." json:"watchIngressWithoutClass,omitempty" toml:"watchIngressWithoutClass,omitempty" yaml:"watchIngressWithoutClass,omitempty" export:"true"`
	ExclusiveHosts             bool   `description:"Serve a host's rules only from the namespace of its oldest Ingress (its owner); off, other namespaces may add paths of their own to the host, which never change the routers of the owner's paths." json:"exclusiveHosts,omitempty" toml:"exclusiveHosts,omitempty" yaml:"exclusiveHosts,omitempty" export:"true"`
	StrictValidatePathType     bool   `description:"Refuse an Ingress whose Prefix or Exact path holds other characters than letters, digits and / . _ - (a regular expression needs ImplementationSpecific), as ingress-nginx's strict-validate-path-type, on by default; off, such paths are served." json:"strictValidatePathType,omitempty" toml:"strictValidatePathType,omitempty" yaml:"strictValidatePathType,omitempty" export:"true"`
	AllowCrossNamespaceSecrets bool   `description:"Let an annotation name a Secret of another namespace (namespace/name) for auth-secret, auth-tls-secret or proxy-ssl-secret; off, such an Ingress's paths are not served." json:"allowCrossNamespaceSecrets,omitempty" toml:"allowCrossNamespaceSecrets,omitempty" yaml:"allowCrossNamespaceSecrets,omitempty" export:"true"`
	// Both loosen a refusal that closes an Ingress; they are for an
	// operator who has looked at what the tenants wrote, never defaults.
	DropSnippets          bool     `description:"Serve an Ingress with a configuration-snippet, server-snippet or stream-snippet without it (an error still names it) instead of closing its paths (403): only once the snippets are reviewed and hold no access rules (deny, allow, auth_request). auth-snippet and modsecurity-snippet close the paths whatever this says." json:"dropSnippets,omitempty" toml:"dropSnippets,omitempty" yaml:"dropSnippets,omitempty" export:"true"`
	EnableSSLPassthrough  bool     `description:"Honour the ssl-passthrough annotation (ingress-nginx's --enable-ssl-passthrough): TLS connections for such a host go, TLS and all, to the servers of its \"/\" path, through a TCP router (HostSNI, tls.passthrough); off, the annotation is ignored with a warning and Traefik ends TLS as for any host." json:"enableSSLPassthrough,omitempty" toml:"enableSSLPassthrough,omitempty" yaml:"enableSSLPassthrough,omitempty" export:"true"`
	ConfigMap             string   `description:"The controller's ConfigMap (namespace/name, ingress-nginx's --configmap), read and followed live: its defaults (ssl-redirect, timeouts, proxy-body-size, source ranges, hsts) and global settings (block-cidrs, global-auth-url) apply to every Ingress as in ingress-nginx; a key that may keep clients out and cannot be honoured, or a missing ConfigMap, makes every path answer 403. Empty: none is read, ingress-nginx's defaults." json:"configMap,omitempty" toml:"configMap,omitempty" yaml:"configMap,omitempty" export:"true"`
	DefaultBackendService string   `description:"The controller's default backend (namespace/name of a Service, ingress-nginx's --default-backend-service): its first port takes every request no router matches (unless an Ingress without rules sets its own catch-all, as in ingress-nginx), and the error responses custom-http-errors lists when the Ingress has no default-backend annotation. Empty: none, Traefik answers 404." json:"defaultBackendService,omitempty" toml:"defaultBackendService,omitempty" yaml:"defaultBackendService,omitempty" export:"true"`
	AllowedAuthHosts      []string `description:"Hosts that auth-url and auth-signin may name although they are loopback, link-local, unspecified, localhost or a numeric spelling of an address (refused otherwise, and the paths answer 403): host names or IP addresses, matched exactly against the URL's host, e.g. 127.0.0.1 for an auth service beside Traefik in its pod." json:"allowedAuthHosts,omitempty" toml:"allowedAuthHosts,omitempty" yaml:"allowedAuthHosts,omitempty" export:"true"`
}

// SetDefaults sets the default option values: Provider's, with
// ingress-nginx's class (nginx), controller (k8s.io/ingress-nginx) and a
// Lease of its own.
func (p *NGINXProvider) SetDefaults() {
	p.Provider.SetDefaults()
	p.IngressClass = nginx.DefaultIngressClass
	p.ControllerClass = nginx.DefaultControllerClass
	p.LeaderElection.LeaseName = "sliceway-nginx"
	p.StrictValidatePathType = true
}

// Validate checks the options that can be wrong on their own.
func (p *NGINXProvider) Validate() error {
	if err := p.Provider.Validate(); err != nil {
		return err
	}
	if strings.TrimSpace(p.ControllerClass) == "" {
		return errors.New("controllerClass: must not be empty")
	}
	if p.ConfigMap != "" {
		if err := checkObjectRef(p.ConfigMap); err != nil {
			return fmt.Errorf("configMap: %w", err)
		}
	}
	if p.DefaultBackendService != "" {
		if err := checkObjectRef(p.DefaultBackendService); err != nil {
			return fmt.Errorf("defaultBackendService: %w", err)
		}
		// Its Service is read from the watched namespaces: one outside
		// them would never be found.
		if ns, _, _ := strings.Cut(p.DefaultBackendService, "/"); len(p.Namespaces) > 0 && !slices.Contains(p.Namespaces, ns) {
			return fmt.Errorf("defaultBackendService: %q: namespace %s is not watched (namespaces: %s)", p.DefaultBackendService, ns, strings.Join(p.Namespaces, ", "))
		}
	}
	if err := nginx.CheckAuthHosts(p.AllowedAuthHosts); err != nil {
		return fmt.Errorf("allowedAuthHosts: %w", err)
	}
	return nil
}

// Init validates the options and sets the dialect. It does not connect.
func (p *NGINXProvider) Init() error {
	if err := p.Validate(); err != nil {
		return err
	}
	d := &nginxDialect{opts: nginx.Options{
		Classes: nginx.ClassOptions{ControllerClass: p.ControllerClass, IngressClass: p.IngressClass,
			IngressClassByName: p.IngressClassByName, WatchWithoutClass: p.WatchIngressWithoutClass},
		ExclusiveHosts:      p.ExclusiveHosts,
		LoosePathTypes:      !p.StrictValidatePathType,
		AllowCrossNamespace: p.AllowCrossNamespaceSecrets,
		DropSnippets:        p.DropSnippets,
		SSLPassthrough:      p.EnableSSLPassthrough,
		AllowedAuthHosts:    slices.Clone(p.AllowedAuthHosts),
	}, configMapRef: p.ConfigMap}
	// No ConfigMap read yet; and a memo of what annotations read into.
	d.opts = d.opts.WithController(nil)
	if ns, name, ok := strings.Cut(p.DefaultBackendService, "/"); ok {
		d.opts.ControllerDefault = nginx.ControllerDefaultBackend(ns, name)
		d.settingsIngs = []*netv1.Ingress{d.opts.ControllerDefault}
	}
	p.dialect = d
	return p.Provider.Init()
}

// Provide is Provider.Provide with the ingress-nginx dialect.
func (p *NGINXProvider) Provide(ctx context.Context, out chan<- dynamic.Message) error {
	if err := p.Init(); err != nil {
		return err
	}
	return p.Provider.Provide(ctx, out)
}

// nginxDialect is the ingress-nginx translation (package nginx).
type nginxDialect struct {
	opts nginx.Options
	// configMapRef is the controller's ConfigMap (namespace/name), ""
	// when none is read; opts.Controller is what it said at the last
	// full render.
	configMapRef string
	// settingsIngs holds the controller's default backend (opts.ControllerDefault)
	// when the options name one.
	settingsIngs []*netv1.Ingress
}

func (*nginxDialect) name() string { return NGINXProviderName }

func (d *nginxDialect) Classes(snap Snapshot) engine.ServedSet {
	return nginx.ReadClasses(snap, d.opts.Classes)
}

func (d *nginxDialect) Translate(env *translate.IngressEnv, p *translate.Part, ing *netv1.Ingress, _ *translate.Plan) {
	nginx.Translate(env, &d.opts, p, ing)
}

func (d *nginxDialect) Hosts(ing *netv1.Ingress) []string { return d.opts.Hosts(ing) }

func (*nginxDialect) Defaults() engine.DefaultNames {
	return engine.DefaultNames{Router: nginx.DefaultRouterName, Service: nginx.DefaultBackendName}
}

func (*nginxDialect) plansByClient() bool { return false }

func (d *nginxDialect) SettingsIngresses() []*netv1.Ingress { return d.settingsIngs }

func (*nginxDialect) keep() k8s.Keep { return nginx.Reads }

func (*nginxDialect) secretKeys(ing *netv1.Ingress) []string {
	return append(tlsSecretKeys(ing), nginx.SecretKeys(ing)...)
}

// IsNGINX says whether these options are an NGINXProvider's, once its
// Init has run.
func (p *Provider) IsNGINX() bool {
	_, ok := p.dialect.(*nginxDialect)
	return ok
}
