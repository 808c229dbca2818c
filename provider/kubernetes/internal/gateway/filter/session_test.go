package filter

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

// SessionCookie: the cookie a rule's sessionPersistence asks for, or why
// Traefik cannot keep that session.
func TestSessionCookie(t *testing.T) {
	rule := field.NewPath("spec", "rules").Index(1)
	permanent, session := gwapiv1.PermanentCookieLifetimeType, gwapiv1.SessionCookieLifetimeType
	root := "/"
	for _, tc := range []struct {
		name string
		sp   *gwapiv1.SessionPersistence
		want *dynamic.Cookie
		err  string
	}{
		{"none", nil, nil, ""},
		{"defaults", &gwapiv1.SessionPersistence{}, &dynamic.Cookie{Name: sessionCookieName("rule-1"), HTTPOnly: true, Path: &root}, ""},
		{"named", &gwapiv1.SessionPersistence{SessionName: new("cart"), CookieConfig: &gwapiv1.CookieConfig{LifetimeType: &session}},
			&dynamic.Cookie{Name: "cart", HTTPOnly: true, Path: &root}, ""},
		{"permanent", &gwapiv1.SessionPersistence{AbsoluteTimeout: new(gwapiv1.Duration("1500ms")), CookieConfig: &gwapiv1.CookieConfig{LifetimeType: &permanent}},
			&dynamic.Cookie{Name: sessionCookieName("rule-1"), HTTPOnly: true, Path: &root, MaxAge: 2}, ""},
		{"permanent without its lifetime", &gwapiv1.SessionPersistence{CookieConfig: &gwapiv1.CookieConfig{LifetimeType: &permanent}}, nil,
			"spec.rules[1].sessionPersistence.absoluteTimeout: a Permanent cookie needs its lifetime"},
		{"not a duration", &gwapiv1.SessionPersistence{AbsoluteTimeout: new(gwapiv1.Duration("1d")), CookieConfig: &gwapiv1.CookieConfig{LifetimeType: &permanent}}, nil,
			`spec.rules[1].sessionPersistence.absoluteTimeout: "1d" is not a Gateway API duration`},
		{"a session the gateway ends", &gwapiv1.SessionPersistence{AbsoluteTimeout: new(gwapiv1.Duration("1h"))}, nil,
			"spec.rules[1].sessionPersistence.absoluteTimeout: a Session cookie whose session the gateway ends after a time is not served"},
		{"header", &gwapiv1.SessionPersistence{Type: new(gwapiv1.HeaderBasedSessionPersistence)}, nil,
			`spec.rules[1].sessionPersistence.type: "Header" is not served`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SessionCookie(rule, tc.sp, "rule-1")
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
	require.NotEqual(t, sessionCookieName("rule-1"), sessionCookieName("rule-2"), "unique to the rule")
}
