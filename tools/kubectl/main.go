// Command kubectl is Kubernetes' kubectl, built from its Go module
// (k8s.io/kubectl) at the version of the control plane the integration
// suite and `make demo` run, for a machine that has no kubectl:
// `make kubectl` puts it in bin/. Debian 12's kubernetes-client package is
// kubectl 1.20, too far from that control plane to be supported.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	// As kubectl's own entry point: errors are printed by CheckErr, in
	// kubectl's words and with its exit codes.
	if err := cli.RunNoErrOutput(cmd.NewDefaultKubectlCommand()); err != nil {
		util.CheckErr(err)
	}
	os.Exit(0)
}
