package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/rs/zerolog"
	"github.com/traefik/paerser/cli"
	"k8s.io/client-go/kubernetes"
	gatewayclient "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/config/static"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
	"github.com/sliceway/sliceway/provider/kubernetes/manifests"
)

func watchCommand(out io.Writer) *cli.Command {
	cfg, src := newConfiguration(), &configSource{}
	return &cli.Command{
		Name: "watch",
		Description: "Stay up and print every new configuration as one line of JSON on stdout, " +
			"or write it as YAML to --output for Traefik's file provider.",
		Configuration:  cfg,
		Resources:      loaders(src),
		CustomHelpFunc: commandHelp(notReadByWatch),
		Run: func([]string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runWatch(ctx, cfg, src, out)
		},
	}
}

// liveProvider is what startProvider started.
type liveProvider struct {
	msgs <-chan dynamic.Message // merged configurations
	done <-chan error           // a provider's Provide returned
	// health says whether the input is still followed: nil, or why not
	// (a read of the manifests that does not return).
	health func() error
}

// startProvider builds the providers of the configuration (on manifests,
// the demo or a real cluster) and runs their Provide until ctx is done;
// their configurations come merged into one (mergeMessages). Manifests
// are followed unless followManifests is off: their changes reach the
// providers as changes of a cluster would. Without manifests, --demo or
// a cluster it refuses to start, naming command (requireSource).
func startProvider(ctx context.Context, command string, cfg *static.Configuration, logger zerolog.Logger, observer ingress.Observer) (*liveProvider, error) {
	providers, err := initProviders(cfg, logger, observer)
	if err != nil {
		return nil, err
	}
	if len(providers) == 0 {
		return idleProvider(ctx), nil
	}
	if err := requireSource(cfg, command); err != nil {
		return nil, err
	}
	var cs kubernetes.Interface
	var gw gatewayclient.Interface
	var inputErrs int
	var follower *manifestFollower
	if len(cfg.Manifests) > 0 && cfg.FollowManifests {
		follower, inputErrs, err = followManifests(cfg.Manifests, manifests.WantedKinds(gatewayOn(cfg)), logger)
		if err == nil {
			cs, gw = follower.cluster.Clientset(), follower.cluster.GatewayClientset()
		}
	} else {
		cs, gw, _, inputErrs, err = openCluster(cfg, logger)
	}
	if err != nil {
		return nil, err
	}
	if inputErrs > 0 {
		logger.Warn().Int("errors", inputErrs).Msg("some manifests could not be used; serving the rest")
	}
	in, msgs := make(chan dynamic.Message), make(chan dynamic.Message)
	done := make(chan error, len(providers))
	var names []string
	for _, ep := range providers {
		if len(providers) > 1 {
			// Each provider lists the cluster itself: with a clientset of
			// their own, so that one's rate limit does not slow the other.
			if own, err := providerClientset(cfg, ep, cs); err == nil {
				ep.run.SetClientset(own)
			} else {
				return nil, err
			}
		} else {
			ep.run.SetClientset(cs)
		}
		if ep.gateway != nil && inMemoryCluster(cfg) {
			ep.gateway.SetGatewayClientset(gw) // else it connects itself
		}
		names = append(names, providerName(ep))
		go func() { done <- ep.run.Provide(ctx, in) }()
	}
	go mergeMessages(ctx, in, names, msgs, logger)
	live := &liveProvider{msgs: msgs, done: done, health: func() error { return nil }}
	if follower != nil {
		logger.Info().Strs("manifests", cfg.Manifests).Msg("following the manifests: a change is rendered when its file is saved")
		go follower.Run(ctx)
		go follower.monitor(ctx)
		live.health = follower.health
	}
	return live, nil
}

// idleProvider stands for no provider: it delivers the empty
// configuration once, and is done when ctx is.
func idleProvider(ctx context.Context) *liveProvider {
	msgs, done := make(chan dynamic.Message, 1), make(chan error, 1)
	msgs <- dynamic.Message{ProviderName: "sliceway", Configuration: emptyConfiguration()}
	go func() {
		<-ctx.Done()
		done <- nil
	}()
	return &liveProvider{msgs: msgs, done: done, health: func() error { return nil }}
}

func runWatch(ctx context.Context, cfg *static.Configuration, src *configSource, out io.Writer) error {
	logger, err := newLogger(cfg, src)
	if err != nil {
		return err
	}
	mode, err := cfg.FileMode()
	if err != nil {
		return err
	}
	if cfg.Output != "" {
		removeStaleTemps(cfg.Output, logger)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	live, err := startProvider(ctx, "watch", cfg, logger, nil)
	if err != nil {
		return err
	}
	// The configurations share what did not change, whose text the encoders
	// keep.
	enc := &encoders{}
	for {
		select {
		case msg := <-live.msgs:
			if err := emit(enc, msg.Configuration, cfg.Output, mode, out); err != nil {
				return err
			}
			if cfg.Output != "" {
				logger.Info().Str("file", cfg.Output).Msg("configuration written")
			}
		case err := <-live.done:
			return err
		}
	}
}

// encoders write the configurations of watch.
type encoders struct {
	json dynamic.JSONEncoder
	yaml dynamic.YAMLEncoder
}

// emit writes one configuration: a line of JSON on out, or YAML to file
// with the given mode.
func emit(enc *encoders, conf *dynamic.Configuration, file string, mode os.FileMode, out io.Writer) error {
	if file == "" {
		line, err := enc.json.Encode(conf)
		if err != nil {
			return err
		}
		_, err = out.Write(line)
		return err
	}
	data, err := enc.yaml.Encode(conf)
	if err != nil {
		return err
	}
	// Traefik's file provider reads the file as a Go template.
	return writeFileAtomic(file, dynamic.FileProviderText(data), mode)
}

// tempPattern names the temporary files beside path that writeFileAtomic
// renames over it.
func tempPattern(path string) string { return "." + filepath.Base(path) + ".tmp-*" }

// removeStaleTemps removes the temporary files a killed watch left beside
// path: each holds a whole configuration, private keys included.
func removeStaleTemps(path string, logger zerolog.Logger) {
	stale, _ := filepath.Glob(filepath.Join(filepath.Dir(path), tempPattern(path)))
	for _, f := range stale {
		if err := os.Remove(f); err != nil {
			logger.Warn().Err(err).Str("file", f).Msg("cannot remove a temporary file a previous run left")
			continue
		}
		logger.Info().Str("file", f).Msg("removed a temporary file a previous run left")
	}
}

// writeFileAtomic writes data to a temporary file beside path and renames it
// over path, so a reader never sees half a file. The file has mode, whatever
// the umask: the temporary file is created 0600 and changed to mode before
// anything is written to it.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, tempPattern(path))
	if err != nil {
		return fmt.Errorf("output: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if err := tmp.Chmod(mode); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("output: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("output: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("output: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	return nil
}
