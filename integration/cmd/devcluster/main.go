// Command devcluster runs a local control plane for trying sliceway by hand
// (`make demo`): etcd, kube-apiserver and kube-controller-manager on
// 127.0.0.1, two Nodes, the given manifests applied, and optionally a command
// (such as `sliceway watch`) run against it with KUBECONFIG set. It stops
// everything on Ctrl-C (or SIGTERM), exiting 0, or when the command exits,
// with the command's status.
//
// With -backends N it also starts N echo servers on 127.0.0.1 behind
// Service echo/echo and an Ingress for echo.demo.example (see backends.go).
//
//	devcluster -controlplane BIN -dir DIR -manifests a.yaml,dir/ [-backends N] [-chdir DIR] [-- command args...]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/sliceway/sliceway/integration/controlplane"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "devcluster:", err)
		controlplane.KillAll()
		os.Exit(1)
	}
}

func run(ctx context.Context) (err error) {
	bin := flag.String("controlplane", "", "the launcher built from ./cmd/controlplane (required)")
	dir := flag.String("dir", ".cache/demo", "state directory, emptied at start: keys, etcd data, kubeconfig, logs")
	manifests := flag.String("manifests", "", "comma-separated YAML files or directories (read recursively) to apply")
	backends := flag.Int("backends", 0, "echo servers to start on 127.0.0.1 and publish as Service echo/echo (FQDN EndpointSlices)")
	chdir := flag.String("chdir", "", "directory the command runs in (default: this one), for its relative paths")
	flag.Parse()
	if *bin == "" {
		return errors.New("-controlplane is required")
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return err
	}
	pidDir := filepath.Join(abs, "pids")
	if _, err := controlplane.KillStale(pidDir); err != nil {
		return err
	}
	if err := os.RemoveAll(abs); err != nil {
		return err
	}

	start := time.Now()
	cp, err := controlplane.Start(ctx, controlplane.Options{Binary: *bin, Dir: abs, PIDDir: pidDir})
	if err != nil {
		return interrupted(ctx, err)
	}
	defer func() {
		fmt.Fprintln(os.Stderr, "devcluster: stopping the control plane")
		if stopErr := cp.Stop(); stopErr != nil {
			err = errors.Join(err, fmt.Errorf("stopping the control plane: %w", stopErr))
		}
	}()
	fmt.Fprintf(os.Stderr, "devcluster: control plane up in %s at %s\n", time.Since(start).Round(time.Millisecond), cp.URL)

	for i, zone := range []string{"zone-a", "zone-b"} {
		if _, err := cp.CreateNode(ctx, "node-"+zone[len(zone)-1:], zone, fmt.Sprintf("192.168.0.%d", i+1)); err != nil {
			return interrupted(ctx, err)
		}
	}
	if *manifests != "" {
		if err := apply(ctx, cp, strings.Split(*manifests, ",")); err != nil {
			return interrupted(ctx, err)
		}
	}
	if *backends > 0 {
		echo, err := startEchoBackends(ctx, *backends)
		if err != nil {
			return err
		}
		if err := publishEchoBackends(ctx, cp, echo); err != nil {
			return err
		}
	}

	fmt.Fprintf(os.Stderr, `devcluster: ready. In another terminal:
  export KUBECONFIG=%s
  kubectl get ingresses,services,endpointslices -A
(No kubectl? make kubectl builds one into bin/kubectl.)
Logs of the components are in %s. Ctrl-C stops everything.
`, cp.Kubeconfig, abs)

	args := flag.Args()
	if len(args) == 0 {
		<-ctx.Done()
		return nil
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+cp.Kubeconfig)
	cmd.Dir = *chdir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	return runUntilSignal(ctx, cmd, 10*time.Second)
}

// apply applies every manifest, creating the namespaces they use first.
func apply(ctx context.Context, cp *controlplane.ControlPlane, paths []string) error {
	var objs []*unstructured.Unstructured
	for _, root := range paths {
		root = strings.TrimSpace(root)
		if root == "" {
			continue
		}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" && path != root {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			more, err := controlplane.DecodeManifests(data)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			fmt.Fprintf(os.Stderr, "devcluster: applying %s (%d objects)\n", path, len(more))
			objs = append(objs, more...)
			return nil
		})
		if err != nil {
			return err
		}
	}
	var namespaces []string
	for _, o := range objs {
		if ns := o.GetNamespace(); ns != "" && !slices.Contains(namespaces, ns) {
			namespaces = append(namespaces, ns)
		}
	}
	for _, ns := range namespaces {
		if err := cp.CreateNamespace(ctx, ns); err != nil {
			return err
		}
	}
	a, err := controlplane.NewApplier(cp.AdminConfig())
	if err != nil {
		return err
	}
	a.FieldManager = "devcluster"
	return a.Apply(ctx, objs...)
}
