// Command sliceway renders Traefik v3 dynamic configuration from the
// Ingresses, Services and EndpointSlices of a Kubernetes cluster.
package main

import (
	"fmt"
	"os"

	"github.com/traefik/paerser/cli"

	"github.com/sliceway/sliceway/config/static"
)

func main() {
	if err := cli.Execute(rootCommand()); err != nil {
		fmt.Fprintln(os.Stderr, "sliceway:", err)
		os.Exit(1)
	}
}

func rootCommand() *cli.Command {
	root := &cli.Command{
		Name:        "sliceway",
		Description: "Kubernetes Ingress provider on EndpointSlices, rendering Traefik v3 dynamic configuration.",
	}
	root.Run = func([]string) error { return root.PrintHelp(os.Stdout) }
	_ = root.AddCommand(renderCommand(os.Stdout))
	_ = root.AddCommand(watchCommand(os.Stdout))
	_ = root.AddCommand(serveCommand())
	return root
}

func newConfiguration() *static.Configuration { return static.New() }
