package endpoints

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// conditionRules states, for each of the 27 combinations of an endpoint's
// ready, serving and terminating conditions (each unset, true or false),
// the class the package must give it. It is written from the rules, not
// from classify:
//
//   - discovery.k8s.io/v1 EndpointConditions: ready unset is true;
//     terminating unset is false. For serving unset, this package follows
//     ready (the earlier wording of the API, "if nil, consumers should
//     defer to the ready condition"; see doc.go, docs/translation.md and
//     fixtures/slices-conditions). The API documentation of
//     k8s.io/api v0.37.2 now says serving unset is true, and kube-proxy
//     v1.37.2 reads it so: the two differ on one row only, marked below.
//   - the package's classes (doc.go, docs/translation.md): ready when
//     ready and serving; serving-terminating when not ready but serving
//     and terminating; otherwise never used. Not serving is never used,
//     even when ready says true (kube-proxy would use such an endpoint;
//     here only Options.PublishNotReady does).
//
// The terminating policies then decide what a serving-terminating endpoint
// becomes (wantBackend).
var conditionRules = []struct {
	ready, serving, terminating *bool
	want                        class
}{
	// Ready unset counts as true; serving unset then follows it.
	{nil, nil, nil, classReady},
	{nil, nil, yes, classReady},
	{nil, nil, no, classReady},
	{nil, yes, nil, classReady},
	{nil, yes, yes, classReady},
	{nil, yes, no, classReady},
	{nil, no, nil, classUnusable}, // not serving
	{nil, no, yes, classUnusable},
	{nil, no, no, classUnusable},

	// Ready: ready whether or not it terminates (publishNotReadyAddresses
	// keeps terminating pods ready), unless it is not serving.
	{yes, nil, nil, classReady},
	{yes, nil, yes, classReady},
	{yes, nil, no, classReady},
	{yes, yes, nil, classReady},
	{yes, yes, yes, classReady},
	{yes, yes, no, classReady},
	{yes, no, nil, classUnusable},
	{yes, no, yes, classUnusable},
	{yes, no, no, classUnusable},

	// Not ready: usable only while serving and terminating.
	{no, nil, nil, classUnusable},
	// Serving unset follows ready (false). Under the v0.37.2 wording
	// (serving unset is true) this one would be serving-terminating.
	{no, nil, yes, classUnusable},
	{no, nil, no, classUnusable},
	{no, yes, nil, classUnusable}, // serving, not terminating: starting up
	{no, yes, yes, classServingTerminating},
	{no, yes, no, classUnusable},
	{no, no, nil, classUnusable},
	{no, no, yes, classUnusable},
	{no, no, no, classUnusable},
}

// triState is 0 for an unset condition, 1 for true, 2 for false.
func triState(b *bool) int {
	switch {
	case b == nil:
		return 0
	case *b:
		return 1
	}
	return 2
}

// modelClass is the class conditionRules gives c.
func modelClass(c discoveryv1.EndpointConditions) class {
	for _, r := range conditionRules {
		if triState(r.ready) == triState(c.Ready) && triState(r.serving) == triState(c.Serving) && triState(r.terminating) == triState(c.Terminating) {
			return r.want
		}
	}
	panic(fmt.Sprintf("conditionRules has no row for %s", condText(c)))
}

func condText(c discoveryv1.EndpointConditions) string {
	text := func(b *bool) string {
		if b == nil {
			return "unset"
		}
		return fmt.Sprint(*b)
	}
	return fmt.Sprintf("ready=%s serving=%s terminating=%s", text(c.Ready), text(c.Serving), text(c.Terminating))
}

// wantBackend is what becomes of an endpoint of class c, as the policy
// table of docs/translation.md says, when it is alone (readyNeighbour
// false) or next to a ready endpoint: whether it is a backend, and fenced.
func wantBackend(c class, policy TerminatingPolicy, publishNotReady, readyNeighbour bool) (used, fenced bool) {
	switch {
	case publishNotReady:
		return true, false // every endpoint with an address, never fenced
	case c == classReady:
		return true, false
	case c == classUnusable:
		return false, false
	}
	// Serving-terminating.
	switch policy {
	case TerminatingExclude:
		return false, false
	case TerminatingFence:
		return true, true
	}
	return true, readyNeighbour // fallback: fenced only while something is ready
}

// TestConditionRulesAreComplete: the table has each combination once.
func TestConditionRulesAreComplete(t *testing.T) {
	seen := map[[3]int]bool{}
	for _, r := range conditionRules {
		k := [3]int{triState(r.ready), triState(r.serving), triState(r.terminating)}
		assert.False(t, seen[k], "a second row for %v", k)
		seen[k] = true
	}
	assert.Len(t, seen, 27)
}

// TestSelectConditions runs every row of conditionRules through Select and
// AppendSelectPrepared, under each terminating policy and with
// publishNotReady, with the endpoint alone and next to a ready one.
func TestSelectConditions(t *testing.T) {
	const addr, neighbour = "10.0.0.1", "10.0.0.100"
	for _, r := range conditionRules {
		c := conds(r.ready, r.serving, r.terminating)
		t.Run(condText(c), func(t *testing.T) {
			assert.Equal(t, r.want, classify(c), "classify")
			for _, policy := range []TerminatingPolicy{TerminatingFallback, TerminatingFence, TerminatingExclude} {
				for _, publishNotReady := range []bool{false, true} {
					for _, withReady := range []bool{false, true} {
						eps := []discoveryv1.Endpoint{ep(c, addr)}
						if withReady {
							eps = append(eps, ready(neighbour))
						}
						list := []*discoveryv1.EndpointSlice{slice("a", discoveryv1.AddressTypeIPv4, http(), eps...)}
						opts := Options{Terminating: policy, PublishNotReady: publishNotReady}

						var want []Backend
						if used, isFenced := wantBackend(r.want, policy, publishNotReady, withReady); used {
							want = append(want, Backend{Address: addr, Port: 8080, Fenced: isFenced})
						}
						if withReady {
							want = append(want, normal(neighbour, 8080))
						}
						what := fmt.Sprintf("policy %s, publishNotReady %v, next to a ready endpoint %v", policy, publishNotReady, withReady)

						got, problems := Select(list, "http", opts)
						assert.Equal(t, want, got, "Select, %s", what)
						assert.Empty(t, problems)

						prepared, problems := AppendSelectPrepared(nil, prepareAll(list), "http", opts)
						for i := range prepared {
							prepared[i].url = ""
						}
						assert.Equal(t, want, prepared, "AppendSelectPrepared, %s", what)
						assert.Empty(t, problems)
					}
				}
			}
		})
	}
}
