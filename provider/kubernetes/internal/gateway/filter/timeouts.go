package filter

import (
	"regexp"
	"time"

	ptypes "github.com/traefik/paerser/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/excerpt"
)

// Traefik's defaults for a servers transport's forwarding timeouts.
// Its file and HTTP providers set them before decoding a
// forwardingTimeouts section; encoding/json (the plugin's delivery)
// does not, and would leave 0, no limit at all. They are written out so
// that every delivery gets the same transport.
const (
	traefikDialTimeout     = 30 * time.Second
	traefikIdleConnTimeout = 90 * time.Second
)

// gatewayDuration is GEP-2257's duration: up to four number-unit pairs,
// units h, m, s and ms.
var gatewayDuration = regexp.MustCompile(`^([0-9]{1,5}(h|m|s|ms)){1,4}$`)

func readDuration(p *field.Path, d *gwapiv1.Duration) (time.Duration, bool, *Error) {
	if d == nil {
		return 0, false, nil
	}
	if !gatewayDuration.MatchString(string(*d)) {
		return 0, false, unsupported(p, "%s is not a Gateway API duration (such as 1h30m, 500ms)", excerpt.Quote(string(*d)))
	}
	v, err := time.ParseDuration(string(*d))
	if err != nil {
		return 0, false, unsupported(p, "%s is not a duration: %v", excerpt.Quote(string(*d)), err)
	}
	return v, true, nil
}

// HTTPRuleTimeouts is the forwarding timeouts of the servers transport
// of the rule's backend services; nil when the rule sets no timeout
// (Traefik's defaults then hold). rule is the rule's field path, e.g.
// spec.rules[0].
//
// Traefik has no timeout of a whole request per router: its entry
// points' respondingTimeouts are static and shared. Both timeouts
// therefore bound what a backend may take, as responseHeaderTimeout
// (from the request written to the response's headers, answered 504
// when over) and dialTimeout (connecting, never more than Traefik's
// 30s): the smaller of request and backendRequest, "0s" meaning none.
// What that leaves out: the time the client takes to send its request
// before Traefik forwards it, and the time the backend takes to send
// its body once the headers are out. A backend that answers its headers
// late, the case Gateway API's conformance tests check, gets the 504.
//
// The caller gives the rule's backends a transport of their own (a
// backend's load balancer names one transport): two rules with
// different timeouts cannot share a service.
func HTTPRuleTimeouts(rule *field.Path, t *gwapiv1.HTTPRouteTimeouts) (*dynamic.ForwardingTimeouts, error) {
	if t == nil {
		return nil, nil
	}
	p := rule.Child("timeouts")
	var errs Errors
	request, hasRequest, err := readDuration(p.Child("request"), t.Request)
	if err != nil {
		errs = append(errs, err)
	}
	backend, hasBackend, err := readDuration(p.Child("backendRequest"), t.BackendRequest)
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) == 0 && hasRequest && hasBackend && request != 0 && backend > request {
		errs = append(errs, unsupported(p.Child("backendRequest"), "%s is longer than the request timeout, %s", backend, request))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if !hasRequest && !hasBackend {
		return nil, nil
	}
	// The smaller of the two that limit anything; 0 when neither does.
	limit := request
	if backend != 0 && (limit == 0 || backend < limit) {
		limit = backend
	}
	dial := traefikDialTimeout
	if limit != 0 && limit < dial {
		dial = limit
	}
	return &dynamic.ForwardingTimeouts{
		DialTimeout:           ptypes.Duration(dial),
		ResponseHeaderTimeout: ptypes.Duration(limit),
		IdleConnTimeout:       ptypes.Duration(traefikIdleConnTimeout),
	}, nil
}
