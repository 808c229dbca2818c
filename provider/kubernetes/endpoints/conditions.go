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

// appendUsable appends to dst the backends of the candidates (one per
// address and port, in output order, keys of runs) that the
// terminating policy keeps: every ready one, and the serving-terminating
// ones fenced or not as the policy says, which depends on whether any
// candidate is ready.
func appendUsable(dst []Backend, cands []candidate, runs []run, policy TerminatingPolicy) []Backend {
	ready := false
	kept := 0
	for i := range cands {
		switch cands[i].class {
		case classReady:
			ready = true
			kept++
		case classServingTerminating:
			if policy != TerminatingExclude {
				kept++
			}
		}
	}
	if kept == 0 {
		return dst
	}

	out := dst
	if cap(out)-len(out) < kept {
		out = append(make([]Backend, 0, len(dst)+kept), dst...)
	}
	for i := range cands {
		c := &cands[i]
		fenced := false
		switch c.class {
		case classReady:
		case classServingTerminating:
			switch policy {
			case TerminatingExclude:
				continue
			case TerminatingFence:
				fenced = true
			default: // TerminatingFallback, "" and unknown values
				fenced = ready
			}
		default:
			continue
		}
		// Written in place: a Backend built aside and copied in costs
		// more than the rest of the selection of a small Service.
		out = append(out, Backend{Fenced: fenced})
		c.fill(&out[len(out)-1], runs)
	}
	return out
}
