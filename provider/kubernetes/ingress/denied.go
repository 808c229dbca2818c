package ingress

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"
	authnv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// AccessDenied is a list or watch the API server refused: forbidden (the
// account's RBAC rules do not grant it) or unauthorized (the credentials
// are not accepted). Neither passes until someone changes the rules or the
// credentials, so the client tells it as soon as it happens instead of
// leaving it to the sync report, which comes only after syncTimeout. The
// informer keeps retrying all the same.
type AccessDenied struct {
	Resource  string // as RBAC names it: "endpointslices.discovery.k8s.io", "services"
	Namespace string // the namespace listed; "" for all namespaces or a cluster-wide resource
	Where     string // `in namespace "x"`, "in all namespaces" or "(cluster-wide)"
	Verb      string // "list" or "watch"
	Reason    string // "forbidden" or "unauthorized"
	// Account is the user the API server saw, from its answer or, when the
	// answer does not say, from a SelfSubjectReview; "" when neither tells.
	Account string
	Err     error
}

// denialState is what an informer last told of a denial, so that the
// reflector's retries (every few seconds, then every 30 s) do not repeat it.
type denialState struct {
	told     string // the verb and error last told; "" when none is pending
	listedAt string // the informer's last synced resource version then
}

// news says whether a denial is worth telling: the first one, one that
// differs from the last told, or a refused list after a list succeeded
// since (the informer's resource version moved), that is after the
// permission came back and went again. A refused watch is told again only
// when it changes: while list is granted and watch is not, every retry
// lists successfully, which is no recovery.
func (d *denialState) news(verb, text, listedAt string) bool {
	key := verb + " " + text
	if key == d.told && (verb == "watch" || listedAt == d.listedAt) {
		return false
	}
	d.told, d.listedAt = key, listedAt
	return true
}

// forget is for any other error: the denial is no longer what happens, so
// a later one is told again.
func (d *denialState) forget() { d.told = "" }

// watchErrorHandler records each list or watch error of s for the sync
// report, and tells a denial at once, once, through OnDenied, and a
// resource the API server does not serve (a missing CRD) likewise
// through OnMissing.
func (c *Client) watchErrorHandler(s *namedSync) cache.WatchErrorHandlerWithContext {
	return func(ctx context.Context, _ *cache.Reflector, err error) {
		reason := denialReason(err)
		// The reflector wraps the errors of its lists, not those of its
		// watches.
		verb := "watch"
		if strings.HasPrefix(err.Error(), "failed to list ") {
			verb = "list"
		}
		missing := reason == "" && isMissingResource(verb, err)
		listedAt := s.informer.LastSyncResourceVersion()
		s.mu.Lock()
		s.lastErr = err
		tell := false
		if reason == "" && !missing {
			s.denial.forget()
		} else {
			tell = s.denial.news(verb, err.Error(), listedAt)
		}
		s.mu.Unlock()
		if tell && missing && c.onMissing != nil {
			c.onMissing(MissingResource{Resource: s.resource, Namespace: s.namespace, Where: s.where(), Err: err})
		}
		if !tell || missing || c.onDenied == nil {
			return
		}
		c.onDenied(AccessDenied{
			Resource: s.resource, Namespace: s.namespace, Where: s.where(),
			Verb: verb, Reason: reason, Account: c.account(ctx, err), Err: err,
		})
	}
}

// denialReason is "forbidden" or "unauthorized" for the errors only a
// change of RBAC or credentials ends, else "".
func denialReason(err error) string {
	switch {
	case apierrors.IsForbidden(err):
		return "forbidden"
	case apierrors.IsUnauthorized(err):
		return "unauthorized"
	}
	return ""
}

// deniedUser finds the user in the API server's refusal, which it writes
// as `User "system:serviceaccount:ns:name" cannot list resource ...`.
var deniedUser = regexp.MustCompile(`User ("(?:[^"\\]|\\.)*") cannot `)

// account names the user the API server saw: the one its refusal names,
// else the one a SelfSubjectReview returns (asked once per client; every
// authenticated user may create one unless the cluster took that away).
// An unauthorized request has no user: "".
func (c *Client) account(ctx context.Context, err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		if m := deniedUser.FindStringSubmatch(status.Status().Message); m != nil {
			if user, err := strconv.Unquote(m[1]); err == nil {
				return user
			}
		}
	}
	if !apierrors.IsForbidden(err) {
		return ""
	}
	c.whoami.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		review, err := c.cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authnv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err == nil {
			c.user = review.Status.UserInfo.Username
		}
	})
	return c.user
}

// describeAPIError puts the API status reason first: "forbidden: ...".
func describeAPIError(err error) string {
	if reason := apierrors.ReasonForError(err); reason != metav1.StatusReasonUnknown {
		return strings.ToLower(string(reason)) + ": " + err.Error()
	}
	return err.Error()
}

// LogAccessDenied logs a refused list or watch at error level, with the
// resource, verb, account and namespace as fields.
func LogAccessDenied(log zerolog.Logger, d AccessDenied) {
	account := d.Account
	if account == "" {
		account = "unknown"
	}
	ev := log.Error().Err(d.Err).Str("resource", d.Resource).Str("verb", d.Verb).
		Str("account", account).Str("reason", d.Reason)
	if d.Namespace != "" {
		ev = ev.Str("namespace", d.Namespace)
	}
	if d.Reason == "unauthorized" {
		ev.Msgf("the API server does not accept the credentials to %s %s %s: check the token or certificate; still trying",
			d.Verb, d.Resource, d.Where)
		return
	}
	ev.Msgf("%s may not %s %s %s: grant it in RBAC (docs/manifests/rbac.yaml has the rules); still trying",
		account, d.Verb, d.Resource, d.Where)
}
