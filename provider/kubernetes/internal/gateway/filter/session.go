package filter

import (
	"crypto/sha256"
	"encoding/hex"
	"math"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/excerpt"
)

// SessionCookie is the cookie of a rule's sessionPersistence, which
// Traefik's sticky sessions keep: nil when the rule has none. rule is the
// rule's field path (spec.rules[0]); owner names the rule (its route's
// kind, namespace and name, and its index), from which the cookie's
// name comes when sessionName gives none, unique to the rule as the
// Gateway API asks.
//
// The cookie is HttpOnly, of path "/" (Traefik's default). A Permanent
// cookie (cookieConfig.lifetimeType) lives absoluteTimeout (Max-Age); a
// Session one, the default, lives as long as the browser's session.
// Refused, as Traefik cannot do them: the Header type (Traefik keeps
// sessions by cookie only), and absoluteTimeout with a Session cookie
// (the Gateway would have to track and end the session itself).
func SessionCookie(rule *field.Path, sp *gwapiv1.SessionPersistence, owner string) (*dynamic.Cookie, error) {
	if sp == nil {
		return nil, nil
	}
	p := rule.Child("sessionPersistence")
	if sp.Type != nil && *sp.Type != gwapiv1.CookieBasedSessionPersistence {
		return nil, unsupported(p.Child("type"), "%s is not served: Traefik keeps sessions by cookie only", excerpt.Quote(string(*sp.Type)))
	}
	timeout, set, err := readDuration(p.Child("absoluteTimeout"), sp.AbsoluteTimeout)
	if err != nil {
		return nil, err
	}
	permanent := sp.CookieConfig != nil && sp.CookieConfig.LifetimeType != nil &&
		*sp.CookieConfig.LifetimeType == gwapiv1.PermanentCookieLifetimeType
	path := "/"
	cookie := &dynamic.Cookie{Name: sessionCookieName(owner), HTTPOnly: true, Path: &path}
	if sp.SessionName != nil && *sp.SessionName != "" {
		cookie.Name = *sp.SessionName
	}
	switch {
	case permanent && !set:
		return nil, unsupported(p.Child("absoluteTimeout"), "a Permanent cookie needs its lifetime")
	case permanent:
		seconds := math.Ceil(timeout.Seconds())
		if seconds < 1 || seconds > math.MaxInt32 {
			return nil, unsupported(p.Child("absoluteTimeout"), "%s is not a cookie lifetime (1s or more)", excerpt.Quote(string(*sp.AbsoluteTimeout)))
		}
		cookie.MaxAge = int(seconds)
	case set:
		return nil, unsupported(p.Child("absoluteTimeout"),
			"a Session cookie whose session the gateway ends after a time is not served: Traefik cannot end it (use lifetimeType Permanent)")
	}
	return cookie, nil
}

// sessionCookieName is the cookie name of a rule that gives none: a hash
// of owner, so that it is unique to the rule and says nothing of it.
func sessionCookieName(owner string) string {
	sum := sha256.Sum256([]byte(owner))
	return "_sw_" + hex.EncodeToString(sum[:8])
}
