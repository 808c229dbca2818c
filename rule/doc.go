// Package rule parses and evaluates the router rules that sliceway emits, in
// the syntax of Traefik v3 rules, so that a program embedding the provider
// can route requests without Traefik, and so that tests can check what a rule
// says rather than how it is spelt.
//
// # Syntax
//
// A rule is an expression of matchers joined by operators:
//
//	Host("shop.example.com") && (Path("/cart") || PathPrefix("/cart/"))
//	HostRegexp("^[a-zA-Z0-9-]+\\.example\\.com$") && !PathPrefix(`/admin`)
//	Method("POST") && Header("X-Canary", "always") && Query("debug")
//
// Its parts are:
//
//   - Matchers: Host, HostRegexp, Path, PathPrefix, PathRegexp and Method,
//     each with exactly one argument; Header and HeaderRegexp, each with two
//     (the header's name, then its value or regular expression); Query and
//     QueryRegexp, each with the query parameter's name and, optionally,
//     its value or regular expression. Arguments are separated by a comma.
//     As in Traefik, a matcher name may also be written in lower case,
//     upper case or with only its first letter upper case (host, HOST,
//     Hostregexp); the parsed Matcher carries the canonical name.
//     Traefik's remaining matcher, ClientIP, is not supported: sliceway
//     never emits it, and Parse reports it as unknown.
//   - Arguments are Go string literals: double-quoted with Go's escapes
//     ("a\"b", "\x00", "\u00e9"), or raw strings in backquotes (`a\b`, in
//     which carriage returns are dropped, as in Go). The value is the
//     unquoted string (strconv.Unquote).
//   - Operators: ! (not), && (and), || (or) and parentheses. ! binds tighter
//     than &&, which binds tighter than ||; && and || are left-associative.
//     So a || b && c is a || (b && c), and !a && b is (!a) && b.
//   - Whitespace (space, tab, newline, carriage return) may stand between any
//     two tokens.
//
// The input must be valid UTF-8 without NUL bytes (escapes in literals may
// still produce any byte), at most MaxLength bytes long, and nest parentheses
// and ! at most MaxDepth deep. A regular expression (HostRegexp,
// PathRegexp, HeaderRegexp, QueryRegexp) is compiled by Parse, so a bad one
// is a parse error and matching never compiles anything. Every error is a
// *SyntaxError with the byte offset in the rule where the problem is.
//
// # Matching
//
// Expr.MatchRequest(r) says whether a request satisfies the rule, with
// Traefik v3's semantics; Request says what it looks at, and NewRequest
// takes it from a net/http request. Expr.Match(host, path) is the same
// for a request with only a host (the Host header or the URL's authority,
// with or without a port) and a path (the request's URL path, decoded, as
// net/http's URL.Path). The matchers:
//
//   - Host: the request host, without its port, trimmed of spaces and
//     lower-cased, equals the value lower-cased; a trailing dot on either
//     side is ignored ("example.com." matches Host("example.com")).
//   - HostRegexp: the Go regular expression matches the request host
//     without its port, trimmed and lower-cased. The expression is not
//     anchored for you: write ^ and $ for a whole-host match.
//   - Path: the path equals the value exactly.
//   - PathPrefix: the path starts with the value (a plain string prefix:
//     PathPrefix("/foo") matches "/foobar" too, as in Traefik).
//   - PathRegexp: the Go regular expression matches the path (not anchored).
//   - Method: the request's method equals the value upper-cased. The value
//     is case-insensitive, the request's method is not: Method("get")
//     matches GET but not a request whose method is "get", as in Traefik.
//   - Header: one of the values of the header (its name in any case, as
//     http.CanonicalHeaderKey reads it) equals the value exactly.
//   - HeaderRegexp: the Go regular expression matches one of the values of
//     the header (not anchored).
//   - Query: the query parameter of exactly that name (names are
//     case-sensitive) is present and one of its values equals the value
//     exactly; with no value, one of its values is empty (?debug or
//     ?debug=). The query is read as net/http's URL.Query reads it: values
//     are decoded ("+" is a space), and a pair holding a ";" or a bad
//     escape is ignored.
//   - QueryRegexp: the Go regular expression matches one of the values of
//     the parameter (not anchored). With no regular expression it is Query:
//     Parse and NewMatcher return QueryRegexp("k") as Query("k", "").
//
// A request without headers, method or query (all Match sees) satisfies no
// Header, HeaderRegexp, Method, Query or QueryRegexp matcher.
//
// Traefik v3 routes on the path with percent-encodings decoded except
// those of reserved characters (gen-delims, sub-delims and %), which stay
// as the client sent them: a rule that holds such a character matches
// there only when the client sends it unencoded. Match takes the path
// decoded, as a client that encodes only what RFC 3986 requires sends it.
//
// Traefik also refuses Host and HostRegexp values that are not ASCII,
// Path and PathPrefix values that do not start with "/", and empty
// arguments to any matcher (Query("k", "") too: it wants Query("k")); this
// package does not, so that it can read back any rule sliceway built.
//
// # Priority
//
// Traefik orders routers by priority, which defaults to the length of the
// rule: Priority returns that default, so a longer (usually more specific)
// rule is tried first.
//
// # The AST
//
// Parse returns a tree of *Matcher, *And, *Or and *Not. Expr.String prints
// it back as a rule that parses to an equal tree (Equal), with only the
// parentheses the precedence needs and every value double-quoted with
// strconv.Quote. A Query of no value prints with its name alone, as
// Traefik wants it.
//
// # Files
//
// Each file has one job:
//
//   - doc.go: this overview.
//   - rule.go: the limits, the matcher names and their arities, the tree's
//     types (Expr, Matcher, And, Or, Not) with NewMatcher, and Equal,
//     Matchers and Priority.
//   - scan.go: the tokenizer, which cuts a rule into names, string
//     literals, operators and parentheses.
//   - parse.go: Parse and MustParse, the recursive-descent parser that
//     builds the tree from the tokens, and SyntaxError, its errors.
//   - print.go: Expr.String, which prints a tree back as a rule with only
//     the parentheses the precedence needs.
//   - evaluate.go: Match and MatchRequest, which say whether a request
//     satisfies a tree.
//   - request.go: Request, what a rule looks at in a request, and
//     NewRequest.
package rule
