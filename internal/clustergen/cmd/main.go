// Command clustergen writes a synthetic cluster as manifests, so that other
// tools can be measured on the same cluster as sliceway's benchmarks:
//
//	go run ./internal/clustergen/cmd -services 10000 -endpoints 20 > cluster.yaml
//	go run ./internal/clustergen/cmd -services 10000 -ipv6 > cluster-ipv6.yaml
//	go run ./internal/clustergen/cmd -services 10000 -tls > cluster-tls.yaml
//	go run ./internal/clustergen/cmd -services 10000 -annotations > cluster-annotated.yaml
//	go run ./internal/clustergen/cmd -services 10000 -nginx > cluster-nginx.yaml
//	go run ./internal/clustergen/cmd -services 10000 -gateway > cluster-gateway.yaml
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/sliceway/sliceway/internal/clustergen"
)

func main() {
	services := flag.Int("services", 1000, "number of services (each with one Ingress)")
	endpoints := flag.Int("endpoints", 20, fmt.Sprintf("endpoints per service (at most %d)", clustergen.MaxEndpoints))
	ipv6 := flag.Bool("ipv6", false, "an IPv6-only cluster: IPv6 Services and EndpointSlices")
	withTLS := flag.Bool("tls", false, "give each Ingress a TLS Secret of its own (RSA 2048 certificates)")
	annotated := flag.Bool("annotations", false, "give Ingresses and Services the router and service annotations of a Traefik user")
	nginx := flag.Bool("nginx", false, "make every Ingress one of class nginx (IngressClass of k8s.io/ingress-nginx) with the annotations of an ingress-nginx user")
	gateway := flag.Bool("gateway", false, "a Gateway API user's cluster: no Ingresses, but a Gateway and an HTTPRoute per service (GatewayClass of sliceway's default controllerName)")
	flag.Parse()
	objs := clustergen.Cluster(*services, *endpoints)
	if *gateway {
		objs = append(clustergen.WithoutIngresses(objs), clustergen.Gateway(*services)...)
	}
	if *annotated {
		clustergen.WithAnnotations(objs)
	}
	if *nginx {
		objs = clustergen.WithNGINXAnnotations(objs)
	}
	if *ipv6 {
		clustergen.ToIPv6(objs)
	}
	if *withTLS {
		var err error
		if objs, err = clustergen.WithTLS(objs); err != nil {
			fmt.Fprintln(os.Stderr, "clustergen:", err)
			os.Exit(1)
		}
	}
	w := bufio.NewWriter(os.Stdout)
	if err := clustergen.Write(w, objs); err != nil {
		fmt.Fprintln(os.Stderr, "clustergen:", err)
		os.Exit(1)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "clustergen:", err)
		os.Exit(1)
	}
}
