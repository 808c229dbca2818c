// Command sliceway renders Traefik v3 dynamic configuration from the
// Ingresses, Services and EndpointSlices of a Kubernetes cluster.
//
// Its files, one job each:
//
//	main.go, version.go        the commands (render, watch, serve, version)
//	options.go, input.go,      the configuration: flags, SLICEWAY_ variables
//	source.go, emptylists.go,  or a file, strict values, unknown flags with
//	suggest.go, help.go        the nearest name, each command's help
//	providers.go               which providers run, and on which cluster (a
//	                           real one, the manifests or the demo)
//	live.go                    starting them; watch: each new configuration
//	                           to stdout or a file written whole
//	follow.go                  the manifests followed as they change on disk
//	render.go                  render: one configuration, printed
//	merge.go, mergetls.go      the providers' configurations as one, with one
//	                           TLS option per host across them
//	serve.go, listener.go,     serve: /api/config, /healthz, /metrics, the
//	credentials.go, reload.go  connection cap, mutual TLS or a token, files
//	                           read again when they change
//	stream.go, streamdelta.go, the stream the Traefik plugin reads: whole
//	streamlimit.go             configurations or deltas, and its caps
//	metrics.go                 the Prometheus metrics
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/traefik/paerser/cli"

	"github.com/sliceway/sliceway/config/static"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
)

func main() {
	// The user agent of every request to the API server carries it.
	ingress.Version = readBuildVersion().version
	if err := cli.Execute(rootCommand()); err != nil {
		fmt.Fprintln(os.Stderr, "sliceway:", err)
		os.Exit(1)
	}
}

func rootCommand() *cli.Command {
	root := &cli.Command{
		Name:        "sliceway",
		Description: "Kubernetes Ingress provider on EndpointSlices, rendering Traefik v3 dynamic configuration.",
		// Its own Run says what an unknown command or flag is; paerser
		// would print the help and "command not found".
		AllowArg: true,
	}
	commands := []*cli.Command{renderCommand(os.Stdout), watchCommand(os.Stdout), serveCommand(), versionCommand(os.Stdout)}
	for _, c := range commands {
		_ = root.AddCommand(c)
	}
	root.Run = func(args []string) error { return runRoot(root, commands, args) }
	return root
}

// runRoot runs sliceway without a command: the help, or --version.
func runRoot(root *cli.Command, commands []*cli.Command, args []string) error {
	if len(args) == 0 {
		return root.PrintHelp(os.Stdout)
	}
	arg := args[0]
	if arg == "--version" || arg == "-version" {
		if len(args) > 1 {
			return fmt.Errorf("unexpected argument %q after %s", args[1], arg)
		}
		return readBuildVersion().write(os.Stdout)
	}
	if strings.HasPrefix(arg, "-") {
		name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		return fmt.Errorf("unknown flag --%s%s (a command's flags follow it: sliceway render --help)", name, didYouMean(name, []string{"help", "version"}, "--"))
	}
	var names []string
	for _, c := range commands {
		names = append(names, c.Name)
	}
	return fmt.Errorf("unknown command %q%s (the commands: %s)", arg, didYouMean(arg, names, ""), strings.Join(names, ", "))
}

func newConfiguration() *static.Configuration { return static.New() }
