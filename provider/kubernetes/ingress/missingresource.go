package ingress

import (
	"strings"

	"github.com/rs/zerolog"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// MissingResource is a resource the API server does not serve: a list of
// it was answered 404 Not Found. That is what a cluster without the
// Gateway API CustomResourceDefinitions answers the Gateway front end's
// lists. Like a denial it does not pass by itself, so the client tells it
// at once (ClientOptions.OnMissing) instead of leaving it to the sync
// report, which says it too, after syncTimeout. The informer keeps
// retrying: installing the CRDs later is enough.
type MissingResource struct {
	Resource  string // as RBAC names it: "httproutes.gateway.networking.k8s.io"
	Namespace string // the namespace listed; "" for all namespaces or a cluster-wide resource
	Where     string // `in namespace "x"`, "in all namespaces" or "(cluster-wide)"
	Err       error
}

// Remedy says what makes the API server serve the resource.
func (m MissingResource) Remedy() string { return missingRemedy(m.Resource) }

// isMissingResource says whether err answers a list of a resource the API
// server does not serve. A watch answered 404 follows a list that
// succeeded: the resource went away, and the next list tells.
func isMissingResource(verb string, err error) bool {
	return verb == "list" && apierrors.IsNotFound(err)
}

// missingRemedy names what installs a resource: the Gateway API CRDs for
// the Gateway API's, a CustomResourceDefinition or API group otherwise.
func missingRemedy(resource string) string {
	if strings.HasSuffix(resource, ".gateway.networking.k8s.io") {
		return "install the Gateway API CRDs (standard channel, v1.6 or later: " +
			"https://gateway-api.sigs.k8s.io/guides/#installing-gateway-api), or turn the Gateway front end off"
	}
	return "install the CustomResourceDefinition or enable the API group that serves it"
}

// LogMissingResource logs a resource the API server does not serve at
// error level, with the resource and namespace as fields.
func LogMissingResource(log zerolog.Logger, m MissingResource) {
	ev := log.Error().Err(m.Err).Str("resource", m.Resource)
	if m.Namespace != "" {
		ev = ev.Str("namespace", m.Namespace)
	}
	ev.Msgf("the API server does not serve %s %s: %s; still trying", m.Resource, m.Where, m.Remedy())
}
