package endpoints

import discoveryv1 "k8s.io/api/discovery/v1"

// class ranks an endpoint by usability; a higher value is better.
type class uint8

const (
	classUnusable class = iota
	classServingTerminating
	classReady
)

// classify applies the condition defaults (ready unset is true, serving
// unset follows ready, terminating unset is false). An endpoint that is not
// serving is never used, whatever ready says.
func classify(c discoveryv1.EndpointConditions) class {
	ready := c.Ready == nil || *c.Ready
	serving := ready
	if c.Serving != nil {
		serving = *c.Serving
	}
	terminating := c.Terminating != nil && *c.Terminating
	switch {
	case ready && serving:
		return classReady
	case serving && terminating:
		return classServingTerminating
	}
	return classUnusable
}
