package translate

import (
	"cmp"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/serverurl"
)

// serverURL is the URL of a server: scheme://host:port, an IPv6 host in
// brackets, written by serverurl as endpoints.Prepare writes those of the
// slices the client's index prepared.
func serverURL(scheme, host string, port int32) string {
	return serverurl.String(scheme, host, int(port))
}

// clusterIPServers is the server of a Service's cluster IP (nativeLB).
func clusterIPServers(svc *corev1.Service, p corev1.ServicePort, scheme string) ([]dynamic.Server, error) {
	switch svc.Spec.ClusterIP {
	case corev1.ClusterIPNone:
		return nil, fmt.Errorf("service %s/%s is headless: it has no cluster IP for nativeLB", svc.Namespace, svc.Name)
	case "":
		return nil, fmt.Errorf("service %s/%s has no cluster IP for nativeLB", svc.Namespace, svc.Name)
	}
	return []dynamic.Server{{URL: serverURL(scheme, svc.Spec.ClusterIP, p.Port)}}, nil
}

// nodePortServers is a server for the node port of p on each internal IP
// of the Nodes, sorted by address.
func nodePortServers(nodes []*corev1.Node, svc *corev1.Service, p corev1.ServicePort, scheme string) ([]dynamic.Server, error) {
	if p.NodePort == 0 {
		return nil, fmt.Errorf("service %s/%s port %d has no node port", svc.Namespace, svc.Name, p.Port)
	}
	seen := map[string]bool{}
	var servers []dynamic.Server
	for _, node := range nodes {
		if node == nil {
			continue
		}
		for _, addr := range node.Status.Addresses {
			if addr.Type != corev1.NodeInternalIP || seen[addr.Address] {
				continue
			}
			seen[addr.Address] = true
			servers = append(servers, dynamic.Server{URL: serverURL(scheme, addr.Address, p.NodePort)})
		}
	}
	if len(servers) == 0 {
		return nil, fmt.Errorf("service %s/%s: no node has an internal IP for nodePortLB", svc.Namespace, svc.Name)
	}
	slices.SortFunc(servers, func(a, b dynamic.Server) int { return compareHostURLs(a.URL, b.URL) })
	return servers, nil
}

// compareHostURLs orders scheme://ip:port URLs by IP number, then as text.
func compareHostURLs(a, b string) int {
	ia, ea := urlAddr(a)
	ib, eb := urlAddr(b)
	if ea && eb {
		if c := ia.Compare(ib); c != 0 {
			return c
		}
	}
	return cmp.Compare(a, b)
}

func urlAddr(u string) (netip.Addr, bool) {
	_, hostport, _ := strings.Cut(u, "://")
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return netip.Addr{}, false
	}
	ip, err := netip.ParseAddr(host)
	return ip, err == nil
}
