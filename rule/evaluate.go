package rule

import (
	"net"
	"regexp"
	"slices"
	"strings"
)

// Match implements Expr.
func (m *Matcher) Match(host, path string) bool {
	return m.MatchRequest(Request{Host: host, Path: path})
}

// MatchRequest implements Expr. A Matcher built as a literal rather than
// by NewMatcher or Parse compiles its regular expression at each call,
// and matches nothing if it does not compile.
func (m *Matcher) MatchRequest(r Request) bool {
	host, path := r.Host, r.Path
	switch m.Name {
	case Host:
		want := m.folded
		if want == "" && m.Value != "" {
			want = strings.ToLower(m.Value)
		}
		return hostMatches(canonicalHost(host), want)
	case HostRegexp:
		re := m.regexp()
		return re != nil && re.MatchString(canonicalHost(host))
	case Path:
		return path == m.Value
	case PathPrefix:
		return strings.HasPrefix(path, m.Value)
	case PathRegexp:
		re := m.regexp()
		return re != nil && re.MatchString(path)
	case Header:
		return slices.Contains(r.headerValues(m.Key), m.Value)
	case HeaderRegexp:
		re := m.regexp()
		return re != nil && slices.ContainsFunc(r.headerValues(m.Key), re.MatchString)
	case Method:
		want := m.folded
		if want == "" {
			want = strings.ToUpper(m.Value)
		}
		return r.Method != "" && r.Method == want
	case Query:
		return slices.Contains(r.queryValues(m.Key), m.Value)
	case QueryRegexp:
		re := m.regexp()
		return re != nil && slices.ContainsFunc(r.queryValues(m.Key), re.MatchString)
	}
	return false
}

func (m *Matcher) regexp() *regexp.Regexp {
	if m.re != nil {
		return m.re
	}
	re, err := regexp.Compile(m.Value)
	if err != nil {
		return nil
	}
	return re
}

// hostMatches compares a canonical request host with a lower-cased Host
// value, ignoring a trailing dot on either side, as Traefik does.
func hostMatches(req, want string) bool {
	if req == "" {
		return false
	}
	return req == want || strings.TrimSuffix(req, ".") == want || req == strings.TrimSuffix(want, ".")
}

// canonicalHost is Traefik's canonical request host: without its port
// (when net.SplitHostPort can split one off), trimmed of spaces,
// lower-cased.
func canonicalHost(host string) string {
	if strings.Contains(host, ":") {
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
	}
	return strings.ToLower(strings.TrimSpace(host))
}

// Match implements Expr.
func (a *And) Match(host, path string) bool { return a.MatchRequest(Request{Host: host, Path: path}) }

// Match implements Expr.
func (o *Or) Match(host, path string) bool { return o.MatchRequest(Request{Host: host, Path: path}) }

// Match implements Expr.
func (n *Not) Match(host, path string) bool { return n.MatchRequest(Request{Host: host, Path: path}) }

// MatchRequest implements Expr.
func (a *And) MatchRequest(r Request) bool { return a.Left.MatchRequest(r) && a.Right.MatchRequest(r) }

// MatchRequest implements Expr.
func (o *Or) MatchRequest(r Request) bool { return o.Left.MatchRequest(r) || o.Right.MatchRequest(r) }

// MatchRequest implements Expr.
func (n *Not) MatchRequest(r Request) bool { return !n.Expr.MatchRequest(r) }
