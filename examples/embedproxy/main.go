// Command embedproxy is a small HTTP reverse proxy that embeds sliceway's
// Kubernetes Ingress provider: it receives each configuration the provider
// sends through Provide, turns it into an immutable routing table, swaps that
// table in atomically, and routes requests by it with
// net/http/httputil.ReverseProxy.
//
// It reads the cluster as `sliceway watch` does: manifests served as an
// in-memory cluster (--manifests), the bundled demo (--demo), or a real
// cluster (in-cluster credentials, --providers.kubernetesingress.endpoint,
// else KUBECONFIG or ~/.kube/config):
//
//	embedproxy --listen=127.0.0.1:8081 --manifests=PATH [--providers.kubernetesingress.OPTION=VALUE ...]
//
// Routing follows Traefik's order: routers by priority, highest first, a
// router without a priority having the length of its rule, ties broken by
// router name. The first router whose rule matches the request's host
// (without port) and path wins; none is a 404. Its service's servers are
// used round robin (weighted by repetition), never a fenced server (fenced:
// true or weight 0) for a new request: fenced servers only finish the
// sessions of a sticky cookie. A service without a usable server is a 503,
// a server that cannot be reached a 502. passHostHeader false sends the
// server's host as Host.
//
// Routers without TLS are served on --listen (plain HTTP), routers with TLS
// on --listentls (HTTPS, with the configuration's certificates chosen by
// SNI, else a self-signed default certificate), as Traefik serves them.
//
// What it leaves out, being an example: entry points (every router is
// served on the listener of its kind), middlewares (ignored), servers
// transports (the default transport is used, which verifies https servers'
// certificates; h2c servers are spoken to in cleartext HTTP/2), and
// weights other than 0 and 1 are approximated by repeating a server in the
// rotation (sliceway emits only those two).
//
// See README.md in this directory for how to run it.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/traefik/paerser/cli"

	"github.com/sliceway/sliceway/config/static"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
)

// Configuration is embedproxy's configuration, loaded by paerser from flags
// or EMBEDPROXY_* environment variables.
type Configuration struct {
	Listen    string            `description:"Address to serve HTTP on (the routers without TLS)." json:"listen,omitempty" toml:"listen,omitempty" yaml:"listen,omitempty"`
	ListenTLS string            `description:"Address to serve HTTPS on (the routers with TLS), with the configuration's certificates; none when empty." json:"listenTLS,omitempty" toml:"listenTLS,omitempty" yaml:"listenTLS,omitempty"`
	Manifests []string          `description:"Manifest files or directories to serve as an in-memory cluster instead of connecting to one." json:"manifests,omitempty" toml:"manifests,omitempty" yaml:"manifests,omitempty"`
	Demo      bool              `description:"Use sliceway's bundled demo cluster (its backends are not reachable: it shows routing, 404s and 502s)." json:"demo,omitempty" toml:"demo,omitempty" yaml:"demo,omitempty"`
	Log       *static.Log       `description:"Logging (to stderr)." json:"log,omitempty" toml:"log,omitempty" yaml:"log,omitempty" export:"true"`
	Providers *static.Providers `description:"Providers." json:"providers,omitempty" toml:"providers,omitempty" yaml:"providers,omitempty" export:"true"`
}

// newConfiguration returns the configuration with its default values.
func newConfiguration() *Configuration {
	p := &ingress.Provider{}
	p.SetDefaults()
	return &Configuration{
		Listen:    "127.0.0.1:8081",
		Log:       &static.Log{Level: "info", Format: "text"},
		Providers: &static.Providers{KubernetesIngress: p},
	}
}

func main() {
	if err := cli.Execute(command(os.Stderr)); err != nil {
		fmt.Fprintln(os.Stderr, "embedproxy:", err)
		os.Exit(1)
	}
}

// command is the paerser command of the binary; logs go to logs.
func command(logs io.Writer) *cli.Command {
	cfg := newConfiguration()
	return &cli.Command{
		Name:          "embedproxy",
		Description:   "A reverse proxy that embeds sliceway's Kubernetes Ingress provider and routes HTTP by its configurations.",
		Configuration: cfg,
		Resources:     []cli.ResourceLoader{&cli.FlagLoader{}, &cli.EnvLoader{Prefix: "EMBEDPROXY_"}},
		Run: func([]string) error {
			logger, err := cfg.Log.NewLogger(logs)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			inst, err := run(ctx, cfg, logger, nil)
			if err != nil {
				return err
			}
			return inst.Wait()
		},
	}
}
