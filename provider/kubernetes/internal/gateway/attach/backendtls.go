package attach

import (
	"cmp"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// BackendTLS is a BackendTLSPolicy once processed: whether it is
// accepted and its references resolved, and what connections to the
// Service ports it targets use.
//
// A policy targets a Service of its namespace, or one port of it by name
// (sectionName). Two policies targeting the same Service and sectionName
// conflict: the older (by creation, then by namespace/name) takes the
// target, the other is Conflicted and takes none. A policy of a port
// takes precedence over one of the whole Service.
//
// Connections to a port whose policy is not accepted (no valid CA
// certificate, a field not supported) fail: its backends are unusable,
// never reached without the verification the policy asks for.
type BackendTLS struct {
	Namespace, Name string
	Generation      int64
	// Accepted, with Reason and Message: the Accepted condition.
	Accepted bool
	Reason   gatewayv1.PolicyConditionReason
	Message  string
	// Resolved, with RefsReason and RefsMessage: the ResolvedRefs
	// condition.
	Resolved    bool
	RefsReason  gatewayv1.PolicyConditionReason
	RefsMessage string
	// CAs are the PEM bundles the servers' certificates are verified
	// with; none: the system's roots (wellKnownCACertificates System).
	CAs []string
	// Hostname is the SNI sent and the name the certificate must match.
	Hostname string

	targets []policyTarget
}

// policyTarget is a Service of the policy's namespace, one port of it
// (sectionName), or all ("").
type policyTarget struct{ service, section string }

// BackendTLSPolicies are the processed policies, and which one each
// target is the policy of.
type BackendTLSPolicies struct {
	Policies []BackendTLS
	owner    map[string]int   // namespace/service/section: index in Policies
	byTarget map[string][]int // namespace/service: the policies targeting it, in order
}

// CACertificate reads the ca.crt of a ConfigMap: found says whether the
// ConfigMap exists, has whether it has the key.
type CACertificate func(namespace, name string) (data string, found, has bool)

// ProcessBackendTLSPolicies processes policies, reading their CA
// certificates with ca.
func ProcessBackendTLSPolicies(policies []*gatewayv1.BackendTLSPolicy, ca CACertificate) BackendTLSPolicies {
	sorted := slices.Clone(policies)
	slices.SortFunc(sorted, func(a, b *gatewayv1.BackendTLSPolicy) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	out := BackendTLSPolicies{owner: map[string]int{}, byTarget: map[string][]int{}}
	for _, p := range sorted {
		b := processBackendTLS(p, ca)
		for _, t := range b.targets {
			key := p.Namespace + "/" + t.service
			if ts := out.byTarget[key]; len(ts) == 0 || ts[len(ts)-1] != len(out.Policies) {
				out.byTarget[key] = append(ts, len(out.Policies))
			}
		}
		keys := make([]string, 0, len(b.targets))
		for _, t := range b.targets {
			keys = append(keys, p.Namespace+"/"+t.service+"/"+t.section)
		}
		if i := slices.IndexFunc(keys, func(k string) bool { _, taken := out.owner[k]; return taken }); i >= 0 {
			winner := out.Policies[out.owner[keys[i]]]
			b.Accepted, b.Reason = false, gatewayv1.PolicyReasonConflicted
			b.Message = fmt.Sprintf("BackendTLSPolicy %s/%s, older, targets the same Service and sectionName", winner.Namespace, winner.Name)
		} else {
			for _, k := range keys {
				out.owner[k] = len(out.Policies)
			}
		}
		out.Policies = append(out.Policies, b)
	}
	return out
}

// For is the policy of a Service port (its name, "" when it has none),
// nil when no policy takes it.
func (x *BackendTLSPolicies) For(namespace, service, port string) *BackendTLS {
	if port != "" {
		if i, ok := x.owner[namespace+"/"+service+"/"+port]; ok {
			return &x.Policies[i]
		}
	}
	if i, ok := x.owner[namespace+"/"+service+"/"]; ok {
		return &x.Policies[i]
	}
	return nil
}

// Targeting are the indexes of the policies that target a Service port,
// taking it or not, in order: the policies whose status names the
// Gateways that reach it. It is asked for every backend of every route,
// so the policies are indexed by the Service they target.
func (x *BackendTLSPolicies) Targeting(namespace, service, port string) []int {
	var out []int
	for _, i := range x.byTarget[namespace+"/"+service] {
		if slices.ContainsFunc(x.Policies[i].targets, func(t policyTarget) bool { return t.service == service && (t.section == "" || t.section == port) }) {
			out = append(out, i)
		}
	}
	return out
}

// Conditions are the policy's conditions for an ancestor, observed at its
// generation.
func (b *BackendTLS) Conditions() []metav1.Condition {
	return []metav1.Condition{
		newCondition(string(gatewayv1.PolicyConditionAccepted), b.Accepted, b.Reason, b.Message, b.Generation),
		newCondition(string(gatewayv1.BackendTLSPolicyConditionResolvedRefs), b.Resolved, b.RefsReason, b.RefsMessage, b.Generation),
	}
}

// processBackendTLS checks one policy, conflicts aside.
func processBackendTLS(p *gatewayv1.BackendTLSPolicy, ca CACertificate) BackendTLS {
	b := BackendTLS{Namespace: p.Namespace, Name: p.Name, Generation: p.Generation, Hostname: string(p.Spec.Validation.Hostname),
		Accepted: true, Reason: gatewayv1.PolicyReasonAccepted, Message: "the policy is accepted",
		Resolved: true, RefsReason: gatewayv1.BackendTLSPolicyReasonResolvedRefs, RefsMessage: "all references are resolved"}
	var invalid []string
	for i, t := range p.Spec.TargetRefs {
		if t.Group != "" || t.Kind != KindService {
			invalid = append(invalid, fmt.Sprintf("spec.targetRefs[%d]: %s is not a kind a BackendTLSPolicy may target; only core Services are", i, groupKind(t.Group, t.Kind)))
			continue
		}
		section := ""
		if t.SectionName != nil {
			section = string(*t.SectionName)
		}
		b.targets = append(b.targets, policyTarget{service: string(t.Name), section: section})
	}
	v := p.Spec.Validation
	if len(v.SubjectAltNames) > 0 {
		invalid = append(invalid, "spec.validation.subjectAltNames: not supported (Traefik verifies a server's certificate against the hostname)")
	}
	switch {
	case v.WellKnownCACertificates != nil && len(v.CACertificateRefs) > 0:
		invalid = append(invalid, "spec.validation: give caCertificateRefs or wellKnownCACertificates, not both")
	case v.WellKnownCACertificates != nil && *v.WellKnownCACertificates != gatewayv1.WellKnownCACertificatesSystem:
		invalid = append(invalid, fmt.Sprintf("spec.validation.wellKnownCACertificates: %q is not a set of CA certificates known here (System is)", *v.WellKnownCACertificates))
	case v.WellKnownCACertificates == nil && len(v.CACertificateRefs) == 0:
		invalid = append(invalid, "spec.validation: caCertificateRefs or wellKnownCACertificates is required")
	}
	if len(invalid) > 0 {
		b.Accepted, b.Reason, b.Message = false, gatewayv1.PolicyReasonInvalid, strings.Join(invalid, "; ")
	}
	var problems []string
	for i, ref := range v.CACertificateRefs {
		field := fmt.Sprintf("spec.validation.caCertificateRefs[%d]", i)
		if ref.Group != "" || ref.Kind != "ConfigMap" {
			b.unresolved(gatewayv1.BackendTLSPolicyReasonInvalidKind)
			problems = append(problems, fmt.Sprintf("%s: %s is not a kind of CA certificate reference known here (ConfigMap is)", field, groupKind(ref.Group, ref.Kind)))
			continue
		}
		data, found, has := ca(p.Namespace, string(ref.Name))
		err := checkCABundle(data)
		switch {
		case !found:
			err = fmt.Errorf("ConfigMap %s/%s not found", p.Namespace, ref.Name)
		case !has:
			err = fmt.Errorf("ConfigMap %s/%s has no ca.crt", p.Namespace, ref.Name)
		case err != nil:
			err = fmt.Errorf("ConfigMap %s/%s: ca.crt %w", p.Namespace, ref.Name, err)
		}
		if err != nil {
			b.unresolved(gatewayv1.BackendTLSPolicyReasonInvalidCACertificateRef)
			problems = append(problems, field+": "+err.Error())
			continue
		}
		b.CAs = append(b.CAs, data)
	}
	if len(problems) > 0 {
		b.RefsMessage = problemList(problems)
		if len(b.CAs) == 0 && b.Accepted {
			b.Accepted, b.Reason = false, gatewayv1.BackendTLSPolicyReasonNoValidCACertificate
			b.Message = "no CA certificate reference is valid: connections to the targets fail"
		}
	}
	return b
}

// unresolved makes ResolvedRefs False, the first problem deciding the
// reason.
func (b *BackendTLS) unresolved(reason gatewayv1.PolicyConditionReason) {
	if b.Resolved {
		b.Resolved, b.RefsReason = false, reason
	}
}

// checkCABundle says whether data is PEM certificates, and nothing else.
func checkCABundle(data string) error {
	rest := []byte(data)
	n := 0
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("holds a %s, not a certificate", block.Type)
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return errors.New("holds a certificate that does not parse")
		}
		n++
	}
	if n == 0 || strings.TrimSpace(string(rest)) != "" {
		return errors.New("is not PEM certificates")
	}
	return nil
}

// maxPolicyAncestors is the API's limit of a policy's ancestors.
const maxPolicyAncestors = 16

// policyConditionTypes are the condition types this controller owns on a
// BackendTLSPolicy's ancestor.
var policyConditionTypes = []string{string(gatewayv1.PolicyConditionAccepted), string(gatewayv1.BackendTLSPolicyConditionResolvedRefs)}

// PolicyAncestor is a Gateway of ours through which a policy applies: a
// route attached to it reaches a Service port the policy targets.
type PolicyAncestor struct{ Namespace, Name string }

// PolicyStatus is the status b has now with ancestors (in order), from
// existing: other controllers' ancestors are kept, ours replaced; the
// conditions keep their transition times while they do not change.
func PolicyStatus(existing gatewayv1.PolicyStatus, b *BackendTLS, ancestors []PolicyAncestor,
	controller gatewayv1.GatewayController, now metav1.Time,
) gatewayv1.PolicyStatus {
	out := gatewayv1.PolicyStatus{Ancestors: []gatewayv1.PolicyAncestorStatus{}}
	for _, e := range existing.Ancestors {
		if e.ControllerName != controller && len(out.Ancestors) < maxPolicyAncestors {
			out.Ancestors = append(out.Ancestors, *e.DeepCopy())
		}
	}
	group, kind := gatewayv1.Group(GroupGateway), gatewayv1.Kind(KindGateway)
	for _, a := range ancestors {
		if len(out.Ancestors) == maxPolicyAncestors {
			break
		}
		ns := gatewayv1.Namespace(a.Namespace)
		ref := gatewayv1.ParentReference{Group: &group, Kind: &kind, Namespace: &ns, Name: gatewayv1.ObjectName(a.Name)}
		var old []metav1.Condition
		for _, e := range existing.Ancestors {
			if e.ControllerName == controller && e.AncestorRef.Name == ref.Name && e.AncestorRef.Namespace != nil && *e.AncestorRef.Namespace == ns {
				old = e.Conditions
				break
			}
		}
		out.Ancestors = append(out.Ancestors, gatewayv1.PolicyAncestorStatus{AncestorRef: ref, ControllerName: controller,
			Conditions: MergeConditions(old, b.Conditions(), policyConditionTypes, now)})
	}
	return out
}
