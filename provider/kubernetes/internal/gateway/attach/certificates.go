package attach

import (
	"fmt"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// tlsCheck is what a listener's tls block says.
type tlsCheck struct {
	mode         gatewayv1.TLSModeType
	certificates []SecretRef
	// rejected: settings this controller cannot serve (Accepted=False).
	rejected []problem
	// refs: certificateRefs that cannot be used (ResolvedRefs=False).
	refs []problem
	// noCertificate: it terminates TLS and no certificate is usable.
	noCertificate bool
}

// checkListenerTLS reads a listener's tls block. HTTP, TCP and UDP listeners
// must not have one. HTTPS and TLS listeners terminate unless the mode says
// Passthrough, which only TLS listeners can do; a terminating listener
// needs at least one usable certificate, and every certificateRef is
// checked: core Secrets only, in another namespace only with a
// ReferenceGrant, and holding a usable key pair according to the caller.
func checkListenerTLS(gw *gatewayv1.Gateway, path string, spec gatewayv1.Listener, look Lookups) tlsCheck {
	var c tlsCheck
	switch spec.Protocol {
	case gatewayv1.HTTPSProtocolType, gatewayv1.TLSProtocolType:
	default:
		if spec.TLS != nil {
			c.rejected = append(c.rejected, problem{string(gatewayv1.ListenerReasonUnsupportedValue),
				fmt.Sprintf("%s.tls: must not be set for protocol %s", path, spec.Protocol)})
		}
		return c
	}

	c.mode = gatewayv1.TLSModeTerminate
	if spec.TLS == nil {
		c.noCertificate = true
		c.refs = append(c.refs, problem{string(gatewayv1.ListenerReasonInvalidCertificateRef),
			fmt.Sprintf("%s.tls: required for protocol %s", path, spec.Protocol)})
		return c
	}
	if spec.TLS.Mode != nil {
		c.mode = *spec.TLS.Mode
	}
	switch {
	case c.mode == gatewayv1.TLSModePassthrough && spec.Protocol == gatewayv1.HTTPSProtocolType:
		c.rejected = append(c.rejected, problem{string(gatewayv1.ListenerReasonUnsupportedValue),
			path + ".tls.mode: Passthrough needs protocol TLS; HTTPS terminates"})
		return c
	case c.mode == gatewayv1.TLSModePassthrough:
		// The certificates are ignored: the backend holds them.
		return c
	case c.mode != gatewayv1.TLSModeTerminate:
		c.rejected = append(c.rejected, problem{string(gatewayv1.ListenerReasonUnsupportedValue),
			fmt.Sprintf("%s.tls.mode: %q is not Terminate or Passthrough", path, c.mode)})
		return c
	}

	if len(spec.TLS.CertificateRefs) == 0 {
		c.noCertificate = true
		c.refs = append(c.refs, problem{string(gatewayv1.ListenerReasonInvalidCertificateRef),
			path + ".tls.certificateRefs: at least one is required to terminate TLS"})
		return c
	}
	for i, ref := range spec.TLS.CertificateRefs {
		field := fmt.Sprintf("%s.tls.certificateRefs[%d]", path, i)
		secret, p := checkCertificateRef(gw.Namespace, field, ref, look)
		if p != nil {
			c.refs = append(c.refs, *p)
			continue
		}
		if !contains(c.certificates, secret) {
			c.certificates = append(c.certificates, secret)
		}
	}
	c.noCertificate = len(c.certificates) == 0
	return c
}

// checkCertificateRef resolves one certificateRef of a Gateway in
// gatewayNamespace. Permission is checked before the Secret is read, so a
// Gateway cannot learn whether a Secret it may not use exists.
func checkCertificateRef(gatewayNamespace, field string, ref gatewayv1.SecretObjectReference, look Lookups) (SecretRef, *problem) {
	group, kind := gatewayv1.Group(""), KindSecret
	if ref.Group != nil {
		group = *ref.Group
	}
	if ref.Kind != nil {
		kind = *ref.Kind
	}
	if group != "" || kind != KindSecret {
		return SecretRef{}, &problem{string(gatewayv1.ListenerReasonInvalidCertificateRef),
			fmt.Sprintf("%s: %s is not supported; only core Secrets are", field, groupKind(group, kind))}
	}
	secret := SecretRef{Namespace: gatewayNamespace, Name: string(ref.Name)}
	if ref.Namespace != nil && *ref.Namespace != "" {
		secret.Namespace = string(*ref.Namespace)
	}
	from := ReferenceFrom{Group: GroupGateway, Kind: KindGateway, Namespace: gatewayNamespace}
	to := ReferenceTo{Group: "", Kind: KindSecret, Namespace: secret.Namespace, Name: secret.Name}
	if !look.referencePermitted(from, to) {
		return SecretRef{}, &problem{string(gatewayv1.ListenerReasonRefNotPermitted),
			fmt.Sprintf("%s: Secret %s/%s is in another namespace and no ReferenceGrant there allows Gateways from %s to use it",
				field, secret.Namespace, secret.Name, gatewayNamespace)}
	}
	var err error
	if look.TLSSecret == nil {
		err = fmt.Errorf("not found")
	} else {
		err = look.TLSSecret(secret.Namespace, secret.Name)
	}
	if err != nil {
		return SecretRef{}, &problem{string(gatewayv1.ListenerReasonInvalidCertificateRef),
			fmt.Sprintf("%s: Secret %s/%s: %v", field, secret.Namespace, secret.Name, err)}
	}
	return secret, nil
}
