// Command sliceway renders Traefik v3 dynamic configuration from the
// Ingresses, Services and EndpointSlices of a Kubernetes cluster.
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
