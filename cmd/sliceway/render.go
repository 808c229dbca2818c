package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rs/zerolog"
	"github.com/traefik/paerser/cli"
	"k8s.io/client-go/kubernetes"
	gatewayclient "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/config/static"
	"github.com/sliceway/sliceway/fixtures"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
	"github.com/sliceway/sliceway/provider/kubernetes/manifests"
)

// syncTimeout bounds the wait for the informer caches of a one-shot render.
const syncTimeout = 60 * time.Second

func renderCommand(out io.Writer) *cli.Command {
	cfg, src := newConfiguration(), &configSource{}
	return &cli.Command{
		Name:           "render",
		Description:    "Print the dynamic configuration of a cluster, of manifests (--manifests) or of the bundled demo, once.",
		Configuration:  cfg,
		Resources:      loaders(src),
		CustomHelpFunc: commandHelp(notReadByRender),
		Run: func([]string) error {
			return runRender(context.Background(), cfg, src, out)
		},
	}
}

// errUnusableInput is returned when the output was printed but some input
// could not be used.
var errUnusableInput = errors.New("some input could not be used (see the errors above)")

func runRender(ctx context.Context, cfg *static.Configuration, src *configSource, out io.Writer) error {
	logger, err := newLogger(cfg, src)
	if err != nil {
		return err
	}
	if cfg.Format != "json" && cfg.Format != "yaml" {
		return fmt.Errorf("format %q: must be json or yaml", cfg.Format)
	}
	providers, err := initProviders(cfg, logger, nil)
	if err != nil {
		return err
	}
	if len(providers) == 0 {
		return writeConfiguration(out, emptyConfiguration(), cfg.Format)
	}
	cs, gw, copts, inputErrs, err := openCluster(cfg, logger)
	if err != nil {
		return err
	}
	var msgs []dynamic.Message
	for _, ep := range providers {
		pcs, err := providerClientset(cfg, ep, cs)
		if err != nil {
			return err
		}
		popts := copts
		popts.Namespaces, popts.LabelSelector = ep.opts.Namespaces, ep.opts.LabelSelector
		if ep.gateway != nil {
			if popts.Gateway, err = gatewayClientset(cfg, ep, gw); err != nil {
				return err
			}
		}
		result, err := ingress.RenderOnce(ctx, pcs, ep.opts, popts, syncTimeout)
		if err != nil {
			return err
		}
		for _, e := range result.Errors {
			ingress.LogObjectError(logger, e)
		}
		msgs = append(msgs, dynamic.Message{Configuration: result.Configuration, TLSHostOwners: result.TLSHostOwners})
	}
	conf := msgs[0].Configuration
	if len(msgs) > 1 {
		var errs []error
		conf, errs = mergeConfigurations(msgs)
		logMergeErrors(logger, errs, nil)
	}
	if err := writeConfiguration(out, conf, cfg.Format); err != nil {
		return err
	}
	if inputErrs > 0 {
		return errUnusableInput
	}
	return nil
}

// openCluster returns the cluster to read: the manifests served in memory
// (with their Gateway API objects, when the Gateway API provider runs,
// in their own clientset), the bundled demo, or the configured real
// cluster (whose Gateway API clientset, nil here, each provider makes).
// It logs the manifest problems and counts the errors among them.
func openCluster(cfg *static.Configuration, logger zerolog.Logger) (kubernetes.Interface, gatewayclient.Interface, ingress.ClientOptions, int, error) {
	opts := clusterOptions(cfg)
	copts := ingress.ClientOptions{Namespaces: opts.Namespaces, LabelSelector: opts.LabelSelector}
	var objs []manifests.Object
	var problems []*manifests.Error
	switch {
	case len(cfg.Manifests) > 0:
		objs, problems = manifests.Read(cfg.Manifests, manifests.WantedKinds(gatewayOn(cfg)))
	case cfg.Demo || !opts.ClusterConfigured():
		if !cfg.Demo {
			logger.Info().Msg("no manifests and no cluster configured: rendering the bundled demo cluster")
		}
		objs, problems = manifests.Decode("demo.yaml", fixtures.Demo, manifests.WantedKinds(gatewayOn(cfg)))
	default:
		cs, err := opts.NewClientset()
		if err != nil {
			return nil, nil, copts, 0, err
		}
		return cs, nil, copts, 0, nil
	}
	cluster := manifests.NewCluster()
	_, more := cluster.Apply(objs)
	problems = append(problems, more...)
	copts.WatchNodes = true
	errs := manifests.LogProblems(logger, problems)
	if len(objs) == 0 && errs > 0 {
		return nil, nil, copts, errs, errors.New("no usable object in the manifests")
	}
	return cluster.Clientset(), cluster.GatewayClientset(), copts, errs, nil
}

// writeConfiguration prints the configuration as indented JSON or as YAML.
// Both are deterministic: map keys are sorted and servers are sorted.
func writeConfiguration(w io.Writer, conf *dynamic.Configuration, format string) error {
	if format == "yaml" {
		data, err := dynamic.MarshalYAML(conf)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	// Encoded whole before anything is written: a failure writes nothing.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(conf); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
