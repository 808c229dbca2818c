package ingressnginx

// This file is copied into Traefik's pkg/provider/kubernetes/ingress-nginx
// by tools/traefik-check/run, and, renamed into package ingress, into
// pkg/provider/kubernetes/ingress for the check of Traefik's Ingress
// provider's tables (sliceway_ingress_table_test.go); it is not part of
// sliceway's build. It says what happens to one request in one
// configuration, as a text that two configurations share when they behave
// alike, whatever they name things: the router's TLS client-certificate
// check, then the router's middlewares in their order, then where the
// request ends (a redirect, an answer of a middleware, or the servers of
// the service with the request they get).
//
// Middlewares are of three kinds here:
//   - run: Traefik's own code handles the request (redirectScheme,
//     redirectRegex, stripPrefix, stripPrefixRegex, addPrefix, headers,
//     and the ingress-nginx provider's appRoot and upstreamVHost); what it
//     does shows in the outcome (the redirect and its Location, the path,
//     Host and headers the backend gets, the response headers added).
//   - modelled: replacePath, replacePathRegex and the provider's
//     rewriteTarget, whose packages import Traefik's static configuration
//     and with it every provider, this package among them (an import
//     cycle): they are redone here from Traefik's code, on the escaped
//     path, a 400 when the result does not clean to itself.
//   - noted: the others (authentication, allow lists, limits, buffering,
//     error pages, snippets, ...) do not depend on a request without
//     credentials or a body: their effect is their canonical parameters,
//     listed where the request passes them. Names never count.
//
// Normalised away, each said where it is done: Traefik's provider's retry
// middleware (sliceway adds none: documented under proxy-next-upstream),
// the X-Replaced-Path header replacePathRegex adds (documented under
// rewrite-target), and each side's own default servers transport timeouts
// (sliceway_nginx_services_test.go).

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/traefik/traefik/v3/pkg/config/dynamic"
	"github.com/traefik/traefik/v3/pkg/middlewares/addprefix"
	"github.com/traefik/traefik/v3/pkg/middlewares/headers"
	"github.com/traefik/traefik/v3/pkg/middlewares/ingressnginx/approot"
	"github.com/traefik/traefik/v3/pkg/middlewares/ingressnginx/upstreamvhost"
	"github.com/traefik/traefik/v3/pkg/middlewares/redirect"
	"github.com/traefik/traefik/v3/pkg/middlewares/stripprefix"
	"github.com/traefik/traefik/v3/pkg/middlewares/stripprefixregex"
)

// slicewayClosedRange is the source range sliceway's closed paths allow:
// no client has it, so the allow list answers 403 to everyone.
const slicewayClosedRange = "255.255.255.255/32"

// slicewayTrip is what a request met on its way, noted by the middlewares
// it passed.
type slicewayTrip struct {
	notes   []string
	backend *http.Request // the request as the service gets it; nil if it never got there
}

// outcome is what happens to q in s.
func (s *slicewaySide) outcome(q slicewayProbe) string {
	name := s.route(q)
	if name == "" {
		return "404 (no router)"
	}
	r := s.conf.HTTP.Routers[name]
	trip := &slicewayTrip{}
	if q.tls && r.TLS != nil {
		if c := s.clientCertificates(r.TLS.Options); c != "" {
			trip.notes = append(trip.notes, c)
		}
	}
	names, err := s.flatten(r.Middlewares, 0)
	if err != nil {
		return "404 (router not built: " + err.Error() + ")"
	}
	var handler http.Handler = http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		trip.backend = req
		rw.WriteHeader(http.StatusOK)
	})
	for i := len(names) - 1; i >= 0; i-- {
		handler, err = s.middlewareHandler(names[i], s.conf.HTTP.Middlewares[names[i]], handler, trip)
		if err != nil {
			return fmt.Sprintf("500 (middleware %s not built: %v)", names[i], err)
		}
	}
	req := slicewayProbeRequest(q)
	original := req.Header.Clone()
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	out := trip.notes
	if trip.backend == nil {
		return strings.Join(append(out, slicewayAnswer(rec)), "; ")
	}
	out = append(out, "to "+s.servers(r.Service))
	out = append(out, slicewayBackendRequest(q, trip.backend, original)...)
	if h := slicewayHeaderText(rec.Header(), nil, "Content-Type"); h != "" {
		out = append(out, "response headers "+h)
	}
	return strings.Join(out, "; ")
}

// slicewayAnswer is an answer of the middlewares. A redirect is told by
// its kind and its Location, not its code: Traefik's public redirect
// middlewares answer 301 or 302 to GET and 308 or 307 to other methods,
// where ingress-nginx, and Traefik's provider's private redirects, answer
// one code to all (documented: docs/migrating-from-ingress-nginx.md,
// "Redirect codes"). An absolute URL's empty path is "/", which is the
// same URL.
func slicewayAnswer(rec *httptest.ResponseRecorder) string {
	loc := rec.Header().Get("Location")
	if u, err := url.Parse(loc); err == nil && u.IsAbs() && u.Path == "" && u.Opaque == "" {
		u.Path = "/"
		loc = u.String()
	}
	switch rec.Code {
	case http.StatusMovedPermanently, http.StatusPermanentRedirect:
		return "redirects permanently to " + loc
	case http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect:
		return "redirects temporarily to " + loc
	}
	if loc != "" {
		return fmt.Sprintf("answers %d to %s", rec.Code, loc)
	}
	return fmt.Sprintf("answers %d", rec.Code)
}

// flatten is the middlewares of a router in the order they run: a chain's
// members in its place, Traefik's provider's retry left out (sliceway
// adds no retry middleware; ingress-nginx's proxy-next-upstream, which it
// stands for, is documented as not supported).
func (s *slicewaySide) flatten(names []string, depth int) ([]string, error) {
	if depth > 10 {
		return nil, fmt.Errorf("chains nested too deep")
	}
	var out []string
	for _, n := range names {
		m := s.conf.HTTP.Middlewares[n]
		switch {
		case m == nil:
			return nil, fmt.Errorf("middleware %s does not exist", n)
		case m.Chain != nil:
			sub, err := s.flatten(m.Chain.Middlewares, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		case m.Retry != nil && s.traefik:
		default:
			out = append(out, n)
		}
	}
	return out, nil
}

// middlewareHandler is m in front of next: run, modelled or noted.
func (s *slicewaySide) middlewareHandler(name string, m *dynamic.Middleware, next http.Handler, trip *slicewayTrip) (http.Handler, error) {
	ctx := context.Background()
	switch {
	case m.RedirectScheme != nil:
		return redirect.NewRedirectScheme(ctx, next, *m.RedirectScheme, name)
	case m.RedirectRegex != nil:
		return redirect.NewRedirectRegex(ctx, next, *m.RedirectRegex, name)
	case m.StripPrefix != nil:
		return stripprefix.New(ctx, next, *m.StripPrefix, name)
	case m.StripPrefixRegex != nil:
		return stripprefixregex.New(ctx, next, *m.StripPrefixRegex, name)
	case m.AddPrefix != nil:
		return addprefix.New(ctx, next, *m.AddPrefix, name)
	case m.AppRoot != nil:
		return approot.New(ctx, next, *m.AppRoot, name)
	case m.UpstreamVHost != nil:
		return upstreamvhost.New(ctx, next, *m.UpstreamVHost, name)
	case m.Headers != nil:
		h, err := headers.New(ctx, next, *m.Headers, name)
		if err != nil {
			return nil, err
		}
		if cors := slicewayCORS(m.Headers); cors != "" {
			return slicewayNote(cors, h, trip), nil
		}
		return h, nil
	case m.ReplacePath != nil:
		return slicewayRewrite(nil, m.ReplacePath.Path, "", false, next), nil
	case m.ReplacePathRegex != nil:
		re, err := regexp.Compile(m.ReplacePathRegex.Regex)
		if err != nil {
			return nil, err
		}
		return slicewayRewrite(re, m.ReplacePathRegex.Replacement, "", false, next), nil
	case m.RewriteTarget != nil:
		var re *regexp.Regexp
		if m.RewriteTarget.Regex != "" {
			var err error
			if re, err = regexp.Compile("(?i)" + strings.TrimSpace(m.RewriteTarget.Regex)); err != nil {
				return nil, err
			}
		}
		return slicewayRewrite(re, strings.TrimSpace(m.RewriteTarget.Replacement), m.RewriteTarget.XForwardedPrefix, true, next), nil
	case m.IPAllowList != nil && slices.Equal(m.IPAllowList.SourceRange, []string{slicewayClosedRange}):
		trip.notes = append(trip.notes, "closed")
		return http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) { rw.WriteHeader(http.StatusForbidden) }), nil
	}
	return slicewayNote(s.noteOf(m), next, trip), nil
}

// slicewayNote notes text when a request passes, then hands it on.
func slicewayNote(text string, next http.Handler, trip *slicewayTrip) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		trip.notes = append(trip.notes, text)
		next.ServeHTTP(rw, req)
	})
}

// slicewayRewrite redoes replacePath (re nil), replacePathRegex and the
// ingress-nginx provider's rewriteTarget (nginx true: a replacement
// without a regex drops its $n, an absolute URL redirects with 302, and
// xForwardedPrefix is set) on the request's escaped path, as their
// ServeHTTP does. X-Replaced-Path, which replacePath and replacePathRegex
// add, is not: sliceway's rewrite-target is a replacePathRegex, and the
// guide's row of rewrite-target says the backend gets it.
func slicewayRewrite(re *regexp.Regexp, replacement, prefix string, nginx bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		current := req.URL.RawPath
		if current == "" {
			current = req.URL.EscapedPath()
		}
		if re != nil && !re.MatchString(current) {
			next.ServeHTTP(rw, req)
			return
		}
		target := replacement
		switch {
		case re != nil:
			target = re.ReplaceAllString(current, replacement)
		case nginx:
			target = regexp.MustCompile(`\$[0-9]+`).ReplaceAllString(replacement, "")
		}
		if nginx {
			if target == "" {
				rw.WriteHeader(http.StatusInternalServerError)
				return
			}
			if u, err := url.Parse(replacement); err == nil && u.Scheme != "" {
				http.Redirect(rw, req, target, http.StatusFound)
				return
			}
			if prefix != "" {
				if re != nil {
					prefix = re.ReplaceAllString(current, prefix)
				}
				req.Header.Set("X-Forwarded-Prefix", prefix)
			}
		}
		path, err := url.PathUnescape(target)
		if err != nil || path != "" && (&url.URL{Path: path}).JoinPath().Path != path {
			rw.WriteHeader(http.StatusBadRequest)
			return
		}
		req.URL.RawPath, req.URL.Path = target, path
		next.ServeHTTP(rw, req)
	})
}

// slicewayBackendRequest is what the backend gets that the client did not
// send: another path, another Host, headers added or changed.
func slicewayBackendRequest(q slicewayProbe, got *http.Request, sent http.Header) []string {
	var out []string
	if p := got.URL.EscapedPath(); p != slicewayProbeRequest(q).URL.EscapedPath() {
		out = append(out, "path "+p)
	}
	if got.Host != q.host {
		out = append(out, "Host "+got.Host)
	}
	if h := slicewayHeaderText(got.Header, sent, "X-Replaced-Path"); h != "" {
		out = append(out, "request headers "+h)
	}
	return out
}

// slicewayHeaderText lists the headers of h that base does not hold with
// the same values, but for those skipped.
func slicewayHeaderText(h, base http.Header, skip ...string) string {
	var out []string
	for k, v := range h {
		if slices.Contains(skip, k) || slices.Equal(v, base[k]) {
			continue
		}
		out = append(out, k+": "+strings.Join(v, ","))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// slicewayCORS is the CORS part of a headers middleware, which a request
// without Origin does not show.
func slicewayCORS(h *dynamic.Headers) string {
	if len(h.AccessControlAllowOriginList) == 0 && len(h.AccessControlAllowOriginListRegex) == 0 && len(h.AccessControlAllowMethods) == 0 {
		return ""
	}
	maxAge := "none"
	if h.AccessControlMaxAge != nil {
		maxAge = fmt.Sprint(*h.AccessControlMaxAge)
	}
	return fmt.Sprintf("CORS origins %v %v, methods %v, headers %v, expose %v, credentials %v, max age %s",
		slicewaySorted(h.AccessControlAllowOriginList), slicewaySorted(h.AccessControlAllowOriginListRegex), slicewaySorted(h.AccessControlAllowMethods),
		slicewaySorted(h.AccessControlAllowHeaders), slicewaySorted(h.AccessControlExposeHeaders), h.AccessControlAllowCredentials, maxAge)
}

func slicewaySorted(list []string) []string {
	out := slices.Clone(list)
	for i := range out {
		out[i] = strings.ToLower(strings.TrimSpace(out[i]))
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// noteOf is a noted middleware's canonical parameters.
func (s *slicewaySide) noteOf(m *dynamic.Middleware) string {
	switch {
	case m.BasicAuth != nil:
		return fmt.Sprintf("basicAuth users %v realm %q", slicewaySortedKeep(m.BasicAuth.Users), m.BasicAuth.Realm)
	case m.DigestAuth != nil:
		return fmt.Sprintf("digestAuth users %v realm %q", slicewaySortedKeep(m.DigestAuth.Users), m.DigestAuth.Realm)
	case m.ForwardAuth != nil:
		return slicewayForwardAuth(m.ForwardAuth.Address, "", m.ForwardAuth.AuthResponseHeaders, m.ForwardAuth.AuthSigninURL)
	case m.Snippet != nil:
		// Traefik's provider writes auth-url as a snippet middleware that
		// asks the auth service, with the snippets (run by Traefik's nginx
		// interpreter) beside it.
		var parts []string
		if a := m.Snippet.Auth; a != nil {
			parts = append(parts, slicewayForwardAuth(a.Address, a.Method, a.AuthResponseHeaders, a.AuthSigninURL))
			if a.Snippet != "" {
				parts = append(parts, fmt.Sprintf("auth snippet %q", a.Snippet))
			}
		}
		if m.Snippet.ServerSnippet != "" || m.Snippet.ConfigurationSnippet != "" {
			parts = append(parts, fmt.Sprintf("nginx snippets server %q location %q", m.Snippet.ServerSnippet, m.Snippet.ConfigurationSnippet))
		}
		return strings.Join(parts, "; ")
	case m.IPAllowList != nil:
		return fmt.Sprintf("ipAllowList %v%s", slicewayPrefixes(m.IPAllowList.SourceRange), slicewayIPStrategy(m.IPAllowList.IPStrategy))
	case m.RateLimit != nil:
		period := m.RateLimit.Period.String()
		if m.RateLimit.Period == 0 {
			period = "1s"
		}
		return fmt.Sprintf("rateLimit %d per %s burst %d%s", m.RateLimit.Average, period, m.RateLimit.Burst, slicewaySource(m.RateLimit.SourceCriterion, "client address"))
	case m.InFlightReq != nil:
		return fmt.Sprintf("inFlightReq %d%s", m.InFlightReq.Amount, slicewaySource(m.InFlightReq.SourceCriterion, "request host"))
	case m.Buffering != nil:
		// Which bodies are refused (413); how much is kept in memory
		// before spilling to disk changes no answer.
		return fmt.Sprintf("buffering max request body %d, max response body %d", m.Buffering.MaxRequestBodyBytes, m.Buffering.MaxResponseBodyBytes)
	case m.Errors != nil:
		// An empty query asks the error service for "/" (Traefik's
		// customerrors requests "http://host" + query).
		query := "/" + strings.TrimPrefix(m.Errors.Query, "/")
		return fmt.Sprintf("error pages %v from %s query %q", slicewaySorted(m.Errors.Status), s.servers(m.Errors.Service), query)
	case m.PassTLSClientCert != nil:
		return fmt.Sprintf("passTLSClientCert pem %v info %v", m.PassTLSClientCert.PEM, m.PassTLSClientCert.Info != nil)
	case m.AuthTLSPassCertificateToUpstream != nil:
		return fmt.Sprintf("authTLSPassCertificateToUpstream client auth %s CAs %s", m.AuthTLSPassCertificateToUpstream.ClientAuthType, slicewayDigest(m.AuthTLSPassCertificateToUpstream.CAFiles))
	case m.Retry != nil:
		return fmt.Sprintf("retry %d attempts", m.Retry.Attempts)
	}
	return slicewayGeneric(m)
}

// slicewayPrefixes are source ranges as prefixes (an address is its /32
// or /128, which Traefik's allow list reads it as), sorted.
func slicewayPrefixes(ranges []string) []string {
	var out []string
	for _, r := range ranges {
		r = strings.TrimSpace(r)
		if p, err := netip.ParsePrefix(r); err == nil {
			r = p.Masked().String()
		} else if a, err := netip.ParseAddr(r); err == nil {
			r = netip.PrefixFrom(a, a.BitLen()).String()
		}
		out = append(out, r)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// slicewaySortedKeep sorts without changing the case: user entries hold
// hashes.
func slicewaySortedKeep[S ~[]string](list S) []string {
	out := slices.Clone([]string(list))
	sort.Strings(out)
	return out
}

func slicewayForwardAuth(address, method string, responseHeaders []string, signin string) string {
	if method == "" {
		method = http.MethodGet // what Traefik's forwardAuth asks with
	}
	return fmt.Sprintf("forwardAuth %s %s response headers %v signin %q", method, address, slicewaySorted(responseHeaders), signin)
}

func slicewayIPStrategy(st *dynamic.IPStrategy) string {
	if st == nil || st.Depth == 0 && len(st.ExcludedIPs) == 0 && st.IPv6Subnet == nil {
		return " (client address)"
	}
	return fmt.Sprintf(" (X-Forwarded-For depth %d, excluded %v)", st.Depth, slicewaySorted(st.ExcludedIPs))
}

// slicewaySource is a limit's source criterion; def is what Traefik
// counts by when none is given.
func slicewaySource(c *dynamic.SourceCriterion, def string) string {
	switch {
	case c == nil || c.IPStrategy == nil && c.RequestHeaderName == "" && !c.RequestHost:
		return " per " + def
	case c.RequestHost:
		return " per request host"
	case c.RequestHeaderName != "":
		return " per header " + c.RequestHeaderName
	}
	return " per" + slicewayIPStrategy(c.IPStrategy)
}

// slicewayGeneric is a middleware this file has no words for: its type
// and its fields as JSON (Traefik's own JSON leaves out some of the
// provider's private fields; Go's %+v of the value keeps them).
func slicewayGeneric(m *dynamic.Middleware) string {
	v := reflect.ValueOf(m).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		if f.IsZero() {
			continue
		}
		text, err := json.Marshal(f.Interface())
		if err != nil || string(text) == "{}" {
			return fmt.Sprintf("%s %+v", v.Type().Field(i).Name, f.Interface())
		}
		return v.Type().Field(i).Name + " " + string(text)
	}
	return "empty middleware"
}
