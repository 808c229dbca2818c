package nginx

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/sliceway/sliceway/internal/excerpt"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// Controller is what the controller's ConfigMap says (ingress-nginx's
// --configmap): defaults that each Ingress's annotations override
// (ssl-redirect, timeouts, body size, source ranges, external
// authentication), and settings every served Ingress gets (block-cidrs,
// HSTS). The zero value is not ingress-nginx's defaults: ParseConfigMap
// starts from them.
type Controller struct {
	// Source names the ConfigMap (namespace/name) in problems; "" when
	// none is read.
	Source string

	SSLRedirect      bool
	ForceSSLRedirect bool
	// Timeouts in seconds; 0: not given.
	ConnectTimeout, ReadTimeout, SendTimeout int
	BodySize                                 int64 // bytes; 0 with BodySizeSet: unlimited
	BodySizeSet                              bool

	// Allow and Deny are the default source ranges of every Ingress
	// (whitelist-source-range, denylist-source-range), which an
	// Ingress's own allow or deny list replaces; Block are the ranges
	// denied whatever an Ingress says (block-cidrs).
	Allow, Deny, Block []netip.Prefix

	// Auth is the global external authentication (global-auth-url and
	// the keys beside it): every Ingress without an auth-url of its own
	// and without enable-global-auth "false" asks it.
	Auth forwardAuthConfig
	// NoAuthLocations are the paths global authentication leaves open
	// (no-auth-locations; ACME's HTTP challenge by default).
	NoAuthLocations []string

	HSTS hstsConfig

	// LoosePathTypes is strict-validate-path-type "false"; nil: not
	// given, the provider's option decides.
	LoosePathTypes *bool

	// CustomErrors are the status codes whose answers the default backend
	// replaces (custom-http-errors), for every Ingress that does not list
	// its own.
	CustomErrors []int

	// Closing are the keys that cannot be honoured and may keep clients
	// out (an access key, a snippet): while one is set, the paths of
	// every Ingress answer 403.
	Closing []string
	// missing: the ConfigMap does not exist, and every Ingress is closed.
	missing bool
}

// hstsConfig is the Strict-Transport-Security header of answers over
// TLS.
type hstsConfig struct {
	enabled           bool
	maxAge            int
	includeSubdomains bool
	preload           bool
}

// DefaultController is what ingress-nginx does without a ConfigMap.
func DefaultController() *Controller {
	return &Controller{
		SSLRedirect:     true,
		NoAuthLocations: []string{"/.well-known/acme-challenge"},
		HSTS:            hstsConfig{enabled: true, maxAge: 31536000, includeSubdomains: true},
	}
}

// KeyProblem is a ConfigMap key that could not be honoured.
type KeyProblem struct {
	Key string
	Err error
	// Warning: the key has no effect here, and nothing is less safe for
	// it; otherwise the value was refused (Closed says whether every
	// Ingress's paths then answer 403, else its default is kept).
	Warning bool
	Closed  bool
}

// controllerKey is one key of the ConfigMap this dialect reads.
type controllerKey struct {
	name string
	// access: a value that cannot be honoured closes every Ingress;
	// snippet: so does any value, unless the options drop snippets.
	access, snippet bool
	parse           func(v string, c *Controller) error
}

// ignoredKey is the error of a key that has no effect, why saying what
// does its job with Traefik, or why none is needed.
type ignoredKey string

func (k ignoredKey) Error() string { return "no effect: " + string(k) }

// ParseConfigMap reads the data of the controller's ConfigMap, source
// naming it, under o (nil: the defaults), from ingress-nginx's defaults.
// Problems come in the order of their keys.
func (o *Options) ParseConfigMap(source string, data map[string]string) (*Controller, []KeyProblem) {
	c := DefaultController()
	c.Source = source
	var problems []KeyProblem
	for _, key := range slices.Sorted(mapKeys(data)) {
		value := data[key]
		k, ok := controllerKeys[key]
		if !ok {
			closed := looksLikeAccess(key) && !harmlessUnknownKey(key)
			problems = append(problems, KeyProblem{Key: key, Closed: closed, Warning: !closed,
				Err: errors.New("not a key sliceway knows: it is ignored")})
			continue
		}
		err := k.parse(value, c)
		if err == nil {
			continue
		}
		var ignored ignoredKey
		if errors.As(err, &ignored) {
			problems = append(problems, KeyProblem{Key: key, Warning: true, Err: err})
			continue
		}
		dropped := k.snippet && o.dropSnippets()
		if dropped {
			err = fmt.Errorf("%w; dropped, as dropSnippets says", err)
		}
		problems = append(problems, KeyProblem{Key: key, Closed: k.access || (k.snippet && !dropped), Warning: dropped,
			Err: fmt.Errorf("%q: %w", excerpt.Text(value), err)})
	}
	if len(c.CustomErrors) > 0 && o.ControllerDefault == nil {
		problems = append(problems, KeyProblem{Key: "custom-http-errors", Warning: true,
			Err: errors.New("there is no controller default backend (defaultBackendService) to send the error responses to: it applies only to the Ingresses with a default-backend annotation")})
	}
	for i, p := range problems {
		switch {
		case p.Closed:
			c.Closing = append(c.Closing, p.Key)
			problems[i].Err = fmt.Errorf("%w (it may keep clients out: the paths of every Ingress answer 403 until it is changed)", p.Err)
		case !p.Warning:
			problems[i].Err = fmt.Errorf("%w (ingress-nginx's default is kept)", p.Err)
		}
	}
	return c, problems
}

// harmlessUnknownKey says whether an unknown key whose name looks like
// access (looksLikeAccess) is known not to be: ingress-nginx's keys
// that tune its connection limits and logs.
func harmlessUnknownKey(key string) bool {
	return strings.HasPrefix(key, "limit-") || strings.HasSuffix(key, "-log") || strings.Contains(key, "log-format")
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// closedBy is the error of an Ingress closed by the ConfigMap's keys.
func (c *Controller) closedBy() error {
	if c.missing {
		return fmt.Errorf("the controller ConfigMap %s does not exist, and it may hold the cluster's allow lists or authentication (the Ingress's paths answer 403)", c.Source)
	}
	return fmt.Errorf("the controller ConfigMap %s sets %s, which cannot be honoured and may keep clients out (the Ingress's paths answer 403)",
		c.Source, strings.Join(c.Closing, ", "))
}

// controller is the ConfigMap o was given, or ingress-nginx's defaults.
func (o *Options) controller() *Controller {
	if o == nil || o.Controller == nil {
		return defaultController
	}
	return o.Controller
}

var defaultController = DefaultController()

// setControllerDefaults puts the ConfigMap's defaults in c, which the
// Ingress's annotations then override.
func (c *Config) setControllerDefaults(ctl *Controller) {
	c.Paths.SSLRedirect = ctl.SSLRedirect
	c.Paths.ForceSSLRedirect = ctl.ForceSSLRedirect
	c.Backend.ConnectTimeout = ctl.ConnectTimeout
	c.Backend.ReadTimeout = ctl.ReadTimeout
	c.Backend.SendTimeout = ctl.SendTimeout
	c.Backend.BodySize, c.Backend.BodySizeSet = ctl.BodySize, ctl.BodySizeSet
	c.Access.Ranges.whitelist = ctl.Allow
	c.Access.Ranges.deny = ctl.Deny
	c.Access.Ranges.block = ctl.Block
	c.Backend.CustomErrors = ctl.CustomErrors
}

// globalAuth is the ConfigMap's external authentication for an Ingress
// whose annotations say f: nil when it has its own (auth-url), turned it
// off (enable-global-auth "false"), or there is none.
func (c *Controller) globalAuth(f *forwardAuthConfig) *forwardAuthConfig {
	if c.Auth.url == "" || f.url != "" || f.noGlobal {
		return nil
	}
	return &c.Auth
}

// sameController says whether two ConfigMaps' settings are the same, so
// that a render keeps the translations of the previous one.
func sameController(a, b *Controller) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Source == b.Source && a.SSLRedirect == b.SSLRedirect && a.ForceSSLRedirect == b.ForceSSLRedirect &&
		a.ConnectTimeout == b.ConnectTimeout && a.ReadTimeout == b.ReadTimeout && a.SendTimeout == b.SendTimeout &&
		a.BodySize == b.BodySize && a.BodySizeSet == b.BodySizeSet &&
		slices.Equal(a.Allow, b.Allow) && slices.Equal(a.Deny, b.Deny) && slices.Equal(a.Block, b.Block) &&
		a.Auth.url == b.Auth.url && a.Auth.signin == b.Auth.signin && a.Auth.requestRedirect == b.Auth.requestRedirect &&
		slices.Equal(a.Auth.responseHeaders, b.Auth.responseHeaders) && slices.Equal(a.NoAuthLocations, b.NoAuthLocations) && a.HSTS == b.HSTS &&
		((a.LoosePathTypes == nil && b.LoosePathTypes == nil) || (a.LoosePathTypes != nil && b.LoosePathTypes != nil && *a.LoosePathTypes == *b.LoosePathTypes)) &&
		slices.Equal(a.CustomErrors, b.CustomErrors) && slices.Equal(a.Closing, b.Closing) && a.missing == b.missing
}

// WithController is o with the ConfigMap's settings c (nil: none): its
// strict-validate-path-type, when given, decides over the provider's
// option. It remembers what sets of annotations read into in a memo of
// its own (ParseAnnotations): options that differ never share one.
func (o Options) WithController(c *Controller) Options {
	o.parsed = translate.NewSetMemo[parsedAnnotations](AnnotationPrefix)
	o.Controller = c
	if c != nil && c.LoosePathTypes != nil {
		o.LoosePathTypes = *c.LoosePathTypes
	}
	return o
}

// SameController says whether o and p read the same ConfigMap settings.
func (o *Options) SameController(c *Controller) bool { return sameController(o.Controller, c) }

// MissingController is the settings while the ConfigMap source names
// does not exist: every Ingress is closed, since it may hold the
// cluster's allow lists or authentication.
func MissingController(source string) *Controller {
	c := DefaultController()
	c.Source, c.missing = source, true
	return c
}

// closes says whether these settings close every Ingress.
func (c *Controller) closes() bool { return c.missing || len(c.Closing) > 0 }
