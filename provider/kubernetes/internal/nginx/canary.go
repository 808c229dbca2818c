package nginx

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// CanaryConfig is what the canary annotations say. A canary Ingress
// routes nothing of its own: the Ingress with the same host, path and
// path type (its main Ingress) sends it a share of that path's requests,
// chosen as ingress-nginx chooses (the header first, then the cookie,
// then the weight).
type CanaryConfig struct {
	Enabled bool
	// Weight of WeightTotal (0: unset, which is 100) of the requests
	// that neither the header nor the cookie decided go to the canary.
	Weight, WeightTotal int
	// Header is the request header of canary-by-header, its underscores
	// written as dashes: nginx reads it through $http_name, which
	// matches a request header whose dashes are underscores in the name.
	Header string
	// HeaderValue sends a request to the canary when the header has
	// exactly this value; HeaderPattern when it matches this regular
	// expression (unanchored, as ngx.re.match). Without either, the
	// values "always" and "never" decide.
	HeaderValue, HeaderPattern string
	// badPattern: canary-by-header-pattern did not compile. ingress-nginx
	// fails the match at request time and sends every request that has
	// the header to the main backend, whatever the cookie and weight say.
	badPattern bool
	// Cookie is the cookie of canary-by-cookie, whose values "always"
	// and "never" decide.
	Cookie string
}

// The limits of the weights. ingress-nginx takes any integer; a negative
// weight is refused here (it would send nothing to the canary there).
const maxCanaryWeight = 1_000_000

// headerToken and basicValue are the characters ingress-nginx's
// annotation validation allows in a header or cookie name (minus those
// that no header or cookie name may hold) and in a header value.
var (
	headerToken = regexp.MustCompile(`^[A-Za-z0-9._~-]+$`)
	basicValue  = regexp.MustCompile(`^[A-Za-z0-9._~/: -]*$`)
	// patternChars are those ingress-nginx's validation allows in a
	// canary-by-header-pattern.
	patternChars = regexp.MustCompile(`^[A-Za-z0-9._~/:\-^$\[\](){}*+?|&=\\]*$`)
)

// canaryAnnotations are read in the order of their keys (ParseAnnotations
// sorts them): "canary" comes before every canary-* one, and
// canary-by-header before canary-by-header-pattern and -value, so each
// parser can tell whether the annotations it depends on are set.
var canaryAnnotations = []annotation{
	{name: "canary", parse: func(v string, c *Config) (err error) { c.Canary.Enabled, err = parseBool(v); return }},
	{name: "canary-weight", parse: canaryParser(func(v string, c *CanaryConfig) (err error) {
		c.Weight, err = parseInt(v, 0, maxCanaryWeight)
		return
	})},
	{name: "canary-weight-total", parse: canaryParser(func(v string, c *CanaryConfig) (err error) {
		c.WeightTotal, err = parseInt(v, 1, maxCanaryWeight)
		return
	})},
	{name: "canary-by-header", parse: canaryParser(func(v string, c *CanaryConfig) error {
		v = strings.TrimSpace(v)
		if !headerToken.MatchString(v) {
			return errors.New("must be a header name of letters, digits and '-', '_', '.', '~'")
		}
		c.Header = strings.ReplaceAll(v, "_", "-")
		return nil
	})},
	{name: "canary-by-header-value", parse: canaryParser(func(v string, c *CanaryConfig) error {
		if c.Header == "" {
			return errors.New("has no effect without a valid canary-by-header")
		}
		if v == "" || !basicValue.MatchString(v) {
			return errors.New("must be a non-empty value of letters, digits, spaces and '-', '_', '.', '~', '/', ':'")
		}
		c.HeaderValue = v
		return nil
	})},
	{name: "canary-by-header-pattern", parse: canaryParser(func(v string, c *CanaryConfig) error {
		if c.Header == "" {
			return errors.New("has no effect without a valid canary-by-header")
		}
		if v == "" || !patternChars.MatchString(v) {
			return errors.New("must be a non-empty regular expression of letters, digits and '-', '_', '.', '~', '/', ':' and ^$[](){}*+?|&=\\")
		}
		c.HeaderPattern = v
		if _, err := regexp.Compile(v); err != nil {
			// The difference from ingress-nginx: PCRE compiles what RE2 may
			// not (look-arounds, back-references); such a pattern fails
			// here as an invalid one fails there, for every request.
			c.badPattern = true
			return fmt.Errorf("is not a regular expression Go's RE2 can compile (%w): every request that has the header %s goes to the main Ingress's backend, as ingress-nginx sends it when the match fails", err, c.Header)
		}
		return nil
	})},
	{name: "canary-by-cookie", parse: canaryParser(func(v string, c *CanaryConfig) error {
		v = strings.TrimSpace(v)
		if !headerToken.MatchString(v) {
			return errors.New("must be a cookie name of letters, digits and '-', '_', '.', '~'")
		}
		c.Cookie = v
		return nil
	})},
}

// canaryParser is the parser of a canary-* annotation: it has no effect
// (ingress-nginx refuses the canary configuration of the Ingress) unless
// the Ingress is a canary.
func canaryParser(parse func(v string, c *CanaryConfig) error) func(string, *Config) error {
	return func(v string, c *Config) error {
		if !c.Canary.Enabled {
			return errors.New(`has no effect: the Ingress is not a canary (nginx.ingress.kubernetes.io/canary is not "true")`)
		}
		return parse(v, &c.Canary)
	}
}

// headerMode is how the header of a canary decides.
type headerMode int

const (
	headerNone    headerMode = iota
	headerAlways             // "always" to the canary, "never" to the main backend
	headerValue              // HeaderValue to the canary
	headerPattern            // a value HeaderPattern matches to the canary
	headerBroken             // any value to the main backend (badPattern)
)

func (c *CanaryConfig) headerMode() headerMode {
	switch {
	case c.Header == "":
		return headerNone
	case c.HeaderValue != "": // ingress-nginx ignores the pattern then
		return headerValue
	case c.badPattern:
		return headerBroken
	case c.HeaderPattern != "":
		return headerPattern
	}
	return headerAlways
}

// shares are the weights of the main backend and the canary, as
// ingress-nginx draws them: a total under 100 counts as 100, a weight
// over the total sends every request to the canary.
func (c *CanaryConfig) shares() (main, canary int) {
	total := max(c.WeightTotal, 100)
	canary = min(c.Weight, total)
	return total - canary, canary
}

// decides says whether the canary takes any request.
func (c *CanaryConfig) decides() bool {
	_, w := c.shares()
	return w > 0 || c.headerMode() != headerNone || c.Cookie != ""
}

// matcher2 is name("a", "b"), both Go-quoted as Traefik's rule parser
// reads them (translate.Matcher's quoting).
func matcher2(name, a, b string) string {
	return name + "(" + strconv.Quote(a) + ", " + strconv.Quote(b) + ")"
}

// cookieMatch is a rule matching a request whose Cookie header holds the
// cookie name with exactly value. Traefik v3 rules have no cookie
// matcher; the Cookie header (one per line in HTTP/1, joined by Go's
// HTTP/2 server) is "a=1; b=2", so the cookie is at the start or after a
// semicolon and ends at a semicolon or the end. nginx matches the name
// case-insensitively, the value exactly.
func cookieMatch(name, value string) string {
	re := `(?:^|;)\s*(?i:` + regexp.QuoteMeta(name) + `)=` + regexp.QuoteMeta(value) + `(?:;|$)`
	return matcher2("HeaderRegexp", "Cookie", re)
}
