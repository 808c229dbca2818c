package attach

import (
	"fmt"
	"sort"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// protocolFamily groups protocols that can share a port: a connection to the
// port must be assignable to exactly one listener, and within a family that
// is done by hostname. HTTPS and TLS both select by SNI on the same TCP
// entry point, so they are one family and their hostnames must differ; plain
// HTTP, raw TCP and UDP each stand alone.
func protocolFamily(p gatewayv1.ProtocolType) string {
	switch p {
	case gatewayv1.HTTPSProtocolType, gatewayv1.TLSProtocolType:
		return "tls"
	case gatewayv1.HTTPProtocolType:
		return "http"
	case gatewayv1.TCPProtocolType:
		return "tcp"
	case gatewayv1.UDPProtocolType:
		return "udp"
	}
	return string(p)
}

// transport is the transport a protocol runs on; UDP and TCP listeners on the
// same port number never meet.
func transport(p gatewayv1.ProtocolType) string {
	if p == gatewayv1.UDPProtocolType {
		return "udp"
	}
	return "tcp"
}

// conflict is why a listener is not distinct, and from which others.
type conflict struct {
	reason gatewayv1.ListenerConditionReason
	with   []string
}

// findConflicts returns, for each listener index taking part (supported
// protocols only), the reason it is not distinct from its siblings:
//
//   - ProtocolConflict for every listener on a port whose listeners do not
//     all belong to one protocol family (HTTP beside HTTPS, TCP beside
//     anything on TCP);
//   - HostnameConflict for listeners of one family on one port with the same
//     hostname (for TCP and UDP, which ignore hostnames, that is any two).
//
// No listener is picked as a winner: the API asks that every indistinct
// listener be refused.
func findConflicts(listeners []Listener, take []bool) map[int]conflict {
	type portKey struct {
		transport string
		port      int32
	}
	byPort := map[portKey][]int{}
	for i, l := range listeners {
		if take[i] {
			k := portKey{transport(l.Protocol), l.Port}
			byPort[k] = append(byPort[k], i)
		}
	}
	out := map[int]conflict{}
	for _, idx := range byPort {
		families := map[string]bool{}
		for _, i := range idx {
			families[protocolFamily(listeners[i].Protocol)] = true
		}
		if len(families) > 1 {
			for _, i := range idx {
				out[i] = conflict{gatewayv1.ListenerReasonProtocolConflict, siblingNames(listeners, idx, i)}
			}
			continue
		}
		byHost := map[string][]int{}
		for _, i := range idx {
			byHost[hostKey(listeners[i])] = append(byHost[hostKey(listeners[i])], i)
		}
		for _, same := range byHost {
			if len(same) < 2 {
				continue
			}
			for _, i := range same {
				out[i] = conflict{gatewayv1.ListenerReasonHostnameConflict, siblingNames(listeners, same, i)}
			}
		}
	}
	return out
}

// hostKey is the hostname a listener is told apart by; empty for TCP and
// UDP listeners, whose Hostname is always nil.
func hostKey(l Listener) string {
	if l.Hostname == nil {
		return ""
	}
	return string(*l.Hostname)
}

// siblingNames returns the names of the listeners in idx other than self,
// sorted.
func siblingNames(listeners []Listener, idx []int, self int) []string {
	var names []string
	for _, i := range idx {
		if i != self {
			names = append(names, string(listeners[i].Name))
		}
	}
	sort.Strings(names)
	return names
}

// message explains a conflict on listener l.
func (c conflict) message(l Listener) string {
	others := strings.Join(c.with, ", ")
	if c.reason == gatewayv1.ListenerReasonProtocolConflict {
		return fmt.Sprintf("port %d is also used by listener(s) %s with a protocol %s cannot share it with", l.Port, others, l.Protocol)
	}
	host := hostKey(l)
	if host == "" {
		host = "no hostname"
	}
	return fmt.Sprintf("port %d and %s are also used by listener(s) %s", l.Port, host, others)
}
