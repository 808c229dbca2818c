package translate

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/sliceway/sliceway/internal/excerpt"
	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// ErrSecretPending is the error of a Secret whose data the cache does not
// hold yet: no Ingress named it when it was listed, and its fetch has not
// come back (the client retries it until it does).
var ErrSecretPending = errors.New("its data is being fetched from the API server")

// CheckSecretData says whether what the cache holds of secret
// (namespace/name of it in the error) is its data, or a copy whose data
// is still to be fetched.
func CheckSecretData(secret *corev1.Secret) error {
	if k8s.DataDropped(secret) {
		return fmt.Errorf("secret %s/%s: %w", secret.Namespace, excerpt.Text(secret.Name), ErrSecretPending)
	}
	return nil
}
