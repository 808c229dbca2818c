package nginx

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/excerpt"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// basicAuthConfig is what the basic authentication annotations say.
type basicAuthConfig struct {
	authType   string // "basic", or "" when not given
	secret     string // name or namespace/name
	secretType string // auth-file (default) or auth-map
	realm      string
}

// Differences from ingress-nginx:
//   - without auth-realm nginx asks for the realm "", Traefik for
//     "traefik" (its default: it has no empty realm);
//   - a missing Secret, a Secret without the users, or a user whose hash
//     Traefik cannot verify closes the paths (they answer 403,
//     closed.go) where ingress-nginx answers 503;
//   - htpasswd hashes: Traefik verifies MD5 ($apr1$, $1$), SHA1 ({SHA})
//     and bcrypt ($2a$, $2b$, $2x$, $2y$); nginx also reads crypt(3)
//     hashes (DES, $5$, $6$) and {PLAIN}/{SSHA}, which are refused.
var basicAuthAnnotations = []annotation{
	{name: "auth-type", access: true, parse: func(v string, c *Config) error {
		switch v = strings.TrimSpace(v); v {
		case "basic":
			c.Access.Basic.authType = v
			return nil
		case "digest":
			return errors.New("not supported: only basic authentication is translated")
		}
		return errors.New("must be basic or digest")
	}},
	{name: "auth-secret", access: true, parse: func(v string, c *Config) error {
		if err := checkSecretRef(v); err != nil {
			return err
		}
		c.Access.Basic.secret = strings.TrimSpace(v)
		return nil
	}},
	{name: "auth-secret-type", access: true, parse: func(v string, c *Config) error {
		switch v = strings.TrimSpace(v); v {
		case "auth-file", "auth-map":
			c.Access.Basic.secretType = v
			return nil
		}
		return errors.New("must be auth-file or auth-map")
	}},
	{name: "auth-realm", parse: func(v string, c *Config) error {
		if strings.ContainsAny(v, "\"\r\n") {
			return errors.New("must not hold a double quote or a line break")
		}
		c.Access.Basic.realm = v
		return nil
	}},
}

// checkSecretRef checks a Secret reference: name or namespace/name.
func checkSecretRef(v string) error {
	parts := strings.Split(strings.TrimSpace(v), "/")
	if len(parts) > 2 || slices.Contains(parts, "") {
		return errors.New("must be a Secret's name or namespace/name")
	}
	return nil
}

// secretRef reads a Secret named by an annotation for the path: the Secret
// is a dependency of the part whether or not it exists. A reference to
// another namespace is refused unless the options allow it. Errors never
// hold the Secret's data.
func (pc *pathContext) secretRef(ref string) (*corev1.Secret, error) {
	return pc.secretRefOf(pc.ing, ref)
}

// secretRefOf is the Secret that an annotation of ing names (ing is the
// path's Ingress or, for a host's client certificates, the host owner's).
func (pc *pathContext) secretRefOf(ing *netv1.Ingress, ref string) (*corev1.Secret, error) {
	ns, name := ing.Namespace, ref
	if i := strings.IndexByte(ref, '/'); i >= 0 {
		ns, name = ref[:i], ref[i+1:]
	}
	if ns != ing.Namespace && !pc.opts.AllowCrossNamespace {
		return nil, fmt.Errorf("secret %s/%s is in another namespace than the Ingress, which the provider's allowCrossNamespaceSecrets option does not allow", excerpt.Text(ns), excerpt.Text(name))
	}
	key := translate.Key{Namespace: ns, Name: name}
	if !slices.Contains(pc.p.Secrets, key) {
		pc.p.Secrets = append(pc.p.Secrets, key)
	}
	s := pc.env.Snapshot.Secret(ns, name)
	if s == nil {
		return nil, fmt.Errorf("secret %s/%s not found", ns, excerpt.Text(name))
	}
	return s, translate.CheckSecretData(s)
}

// basicAuth is the path's basicAuth middleware. false: it cannot be
// built and the path is closed (the problem is filed).
func (pc *pathContext) basicAuth(names []string) ([]string, bool) {
	b := &pc.cfg.Access.Basic
	switch {
	case b.authType == "" && b.secret != "":
		// ingress-nginx ignores auth-secret without auth-type: so does this.
		pc.annotationProblem("auth-secret", translate.SeverityWarning,
			errors.New("auth-type is not given, so the paths are served without authentication, as ingress-nginx serves them"))
		return names, true
	case b.authType == "":
		return names, true
	case b.secret == "":
		pc.annotationProblem("auth-type", translate.SeverityError, errors.New("auth-type basic needs auth-secret (its paths answer 403)"))
		return nil, false
	}
	s, err := pc.secretRef(b.secret)
	if err == nil {
		var users []string
		if users, err = htpasswdUsers(s, b.secretType); err == nil {
			name := pc.ingressName("basic-auth")
			mw := map[string]any{"users": users}
			if b.realm != "" {
				mw["realm"] = b.realm
			}
			pc.addMiddleware(name, dynamic.Middleware{"basicAuth": mw})
			return append(names, name), true
		}
	}
	pc.annotationProblem("auth-secret", translate.SeverityError, fmt.Errorf("%w (its paths answer 403)", err))
	return nil, false
}

// htpasswdUsers are the user:hash lines of an auth-file Secret (its auth
// key) or an auth-map one (a key per user, the hash its value).
func htpasswdUsers(s *corev1.Secret, secretType string) ([]string, error) {
	where := fmt.Sprintf("secret %s/%s", s.Namespace, s.Name)
	var users []string
	if secretType == "auth-map" {
		keys := make([]string, 0, len(s.Data))
		for k := range s.Data {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, user := range keys {
			hash := strings.TrimSpace(string(s.Data[user]))
			if err := checkUserHash(user, hash); err != nil {
				return nil, fmt.Errorf("%s: key %q: %w", where, excerpt.Text(user), err)
			}
			users = append(users, user+":"+hash)
		}
	} else {
		data, ok := s.Data["auth"]
		if !ok {
			return nil, fmt.Errorf("%s has no key auth (an htpasswd file)", where)
		}
		for i, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			user, hash, ok := strings.Cut(line, ":")
			if !ok {
				return nil, fmt.Errorf("%s: key auth: line %d is not user:hash", where, i+1)
			}
			if err := checkUserHash(user, hash); err != nil {
				return nil, fmt.Errorf("%s: key auth: line %d: %w", where, i+1, err)
			}
			users = append(users, user+":"+hash)
		}
	}
	if len(users) == 0 {
		return nil, fmt.Errorf("%s holds no user", where)
	}
	return users, nil
}

// checkUserHash refuses what Traefik could not verify: a password it
// would read as an MD5 hash never matches, and nginx would have let its
// user in. The message never quotes the hash.
func checkUserHash(user, hash string) error {
	if user == "" || strings.ContainsAny(user, ": \t") {
		return errors.New("the user name is empty or holds a colon or a blank")
	}
	if !verifiableHash(hash) {
		return errors.New("the password is not a hash Traefik verifies: MD5 ($apr1$ or $1$), SHA1 ({SHA}) or bcrypt ($2y$, $2b$, $2a$)")
	}
	return nil
}

// verifiableHash says whether Traefik's basicAuth can verify hash: bcrypt
// and {SHA} by their prefixes, else the MD5 crypt form $magic$salt$hash
// with an MD5 magic (anything else it reads as MD5 and never matches).
func verifiableHash(hash string) bool {
	for _, prefix := range []string{"$2a$", "$2b$", "$2x$", "$2y$"} {
		if strings.HasPrefix(hash, prefix) {
			return len(hash) == 60
		}
	}
	if rest, ok := strings.CutPrefix(hash, "{SHA}"); ok {
		return len(rest) == 28 // base64 of 20 bytes
	}
	parts := strings.Split(hash, "$")
	return len(parts) == 4 && parts[0] == "" && (parts[1] == "apr1" || parts[1] == "1") && parts[3] != ""
}
