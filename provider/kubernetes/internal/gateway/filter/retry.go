package filter

import (
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

// defaultRetries is how many times a rule whose retry gives no attempts
// retries a request: once.
const defaultRetries = 1

// HTTPRuleRetry is the retry middleware of a rule's retry; nil when the
// rule has none. rule is the rule's field path (spec.rules[0]); t is the
// rule's timeouts, which HTTPRuleTimeouts checked.
//
// Traefik's retry middleware, last before the rule's service:
//   - attempts counts tries, the Gateway API's retries: one more;
//   - status is codes; whatever the codes, Traefik retries a request
//     whose connection failed before it was sent (not one reset after);
//   - initialInterval is twice the backoff: Traefik's exponential backoff
//     waits between half and one and a half times it, so no retry comes
//     before the backoff the route asks for, and later ones wait longer;
//   - timeout is timeouts.request: once it has passed, the answer in hand
//     is the answer (each try is bounded by the rule's servers transport,
//     HTTPRuleTimeouts);
//   - Traefik does not retry a POST, PATCH or LOCK on a status code, as
//     their effects may not be repeatable.
func HTTPRuleRetry(rule *field.Path, r *gwapiv1.HTTPRouteRetry, t *gwapiv1.HTTPRouteTimeouts) (dynamic.Middleware, error) {
	if r == nil {
		return nil, nil
	}
	p := rule.Child("retry")
	var errs Errors
	retries := defaultRetries
	if r.Attempts != nil {
		retries = *r.Attempts
		if retries < 1 {
			errs = append(errs, unsupported(p.Child("attempts"), "%d is not a number of retries (1 or more)", retries))
		}
	}
	var status []string
	for i, c := range r.Codes {
		if c < 400 || c > 599 {
			errs = append(errs, unsupported(p.Child("codes").Index(i), "%d is not an error status (400 to 599)", c))
			continue
		}
		status = append(status, strconv.Itoa(int(c)))
	}
	backoff, _, err := readDuration(p.Child("backoff"), r.Backoff)
	if err != nil {
		errs = append(errs, err)
	}
	var request *gwapiv1.Duration
	if t != nil {
		request = t.Request
	}
	limit, _, err := readDuration(rule.Child("timeouts").Child("request"), request)
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	retry := map[string]any{"attempts": retries + 1}
	if len(status) > 0 {
		retry["status"] = status
	}
	if backoff > 0 {
		retry["initialInterval"] = (2 * backoff).String()
	}
	if limit > 0 {
		retry["timeout"] = limit.String()
	}
	return dynamic.Middleware{"retry": retry}, nil
}
