package gateway

import (
	"strconv"
	"strings"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
)

// names builds the names of what one route defines. Every name starts
// with the route's kind, namespace and name, lower case, so that no two
// routes (nor a route and an Ingress, whose names never start so) share
// one; Kubernetes names hold only lower-case letters, digits, '-' and '.',
// which Traefik takes in names.
type names struct {
	route string // kind-namespace-name
}

func newNames(kind, namespace, name string) names {
	return names{route: strings.ToLower(kind) + "-" + namespace + "-" + name}
}

// listener is the prefix of what a rule defines on one listener of one
// Gateway: its routers and its middlewares (a redirect depends on the
// listener).
func (n names) listener(parent *attach.ParentAttachment, l *attach.ListenerAttachment, rule int) string {
	return n.route + "-" + parent.GatewayNamespace + "-" + parent.GatewayName + "-" + string(l.Listener) + "-r" + strconv.Itoa(rule)
}

// router is the name of the router of match m, hostname rank k, under
// the listener's prefix. The first rank keeps the shorter name: most
// matches have one.
func router(prefix string, m, k int) string {
	name := prefix + "-m" + strconv.Itoa(m)
	if k > 0 {
		name += "-h" + strconv.Itoa(k)
	}
	return name
}

// rule is the prefix of the services a rule defines whatever the
// listener: its weighted service and its error share.
func (n names) rule(rule int) string { return n.route + "-r" + strconv.Itoa(rule) }

// backend is the name of the service through which rule ri reaches its
// backendRef bi when that has filters of its own; it prefixes their
// middlewares too.
func (n names) backend(rule, backend int) string {
	return n.rule(rule) + "-b" + strconv.Itoa(backend)
}
