package nginx

import (
	"errors"

	"github.com/sliceway/sliceway/config/dynamic"
)

// rateLimitConfig is what the rate limit annotations say; zero is no
// limit.
type rateLimitConfig struct {
	rps, rpm        int
	burstMultiplier int // 5 unless given, ingress-nginx's default
	connections     int
}

const defaultBurstMultiplier = 5

// The limits are per client address, as ingress-nginx keys them on
// $binary_remote_addr: rateLimit counts by the remote address unless told
// otherwise, inFlightReq by the request's Host, so it is given the
// remote address (an ipStrategy of depth 0; Traefik refuses an empty
// one). Differences:
//   - a client over the limit gets 429 Too Many Requests from Traefik;
//     ingress-nginx answers 503 unless its ConfigMap's
//     limit-req-status-code / limit-conn-status-code say otherwise;
//   - limit-connections counts a client's requests in flight (Traefik's
//     inFlightReq), not its open connections: idle keep-alive
//     connections are not counted, HTTP/2 streams are;
//   - each limit is per Traefik instance and per Ingress, as nginx's are
//     per replica and per location zone.
//
// The four limits are access annotations: one that cannot be read closes
// the Ingress (its paths answer 403). A limit was asked for because the
// backend cannot take more; served without it, the backend is open to
// whoever floods it (a login form to password guessing, a costly query
// to exhaustion), and a typo must not be how a tenant's protection, or a
// platform's, goes away unnoticed. The others stay served when refused:
// limit-allowlist only makes the limits count more clients, and
// limit-rate and limit-rate-after slow answers on their way to the
// client, which keeps no request from the backend.
var rateLimitAnnotations = []annotation{
	{name: "limit-rps", access: true, parse: func(v string, c *Config) (err error) {
		c.Access.Limits.rps, err = parseInt(v, 0, 1<<30)
		return
	}},
	{name: "limit-rpm", access: true, parse: func(v string, c *Config) (err error) {
		c.Access.Limits.rpm, err = parseInt(v, 0, 1<<30)
		return
	}},
	{name: "limit-burst-multiplier", access: true, parse: func(v string, c *Config) (err error) {
		c.Access.Limits.burstMultiplier, err = parseInt(v, 1, 1<<10)
		return
	}},
	{name: "limit-connections", access: true, parse: func(v string, c *Config) (err error) {
		c.Access.Limits.connections, err = parseInt(v, 0, 1<<30)
		return
	}},
	// nginx exempts these sources from the limits; Traefik's rateLimit and
	// inFlightReq choose the source to count by and exempt none, so the
	// limits apply to these sources too.
	{name: "limit-allowlist", parse: refuseLimitAllowlist},
	{name: "limit-whitelist", parse: refuseLimitAllowlist},
	{name: "limit-rate", parse: refuseBandwidth},
	{name: "limit-rate-after", parse: refuseBandwidth},
}

func refuseLimitAllowlist(v string, c *Config) error {
	if _, err := parseSourceRanges(v); err != nil {
		return err
	}
	return errors.New("not supported: Traefik's rate limits exempt no source, so the limits apply to these sources too")
}

func refuseBandwidth(string, *Config) error {
	return errors.New("not supported: Traefik's public middlewares do not limit the bandwidth of a response")
}

// rateLimits are the limit middlewares of the path, in nginx's order:
// connections, then requests per minute, then per second.
func (pc *pathContext) rateLimits(names []string) []string {
	l := &pc.cfg.Access.Limits
	if l.connections > 0 {
		name := pc.ingressName("limit-connections")
		// By client address, not by requested host (see above).
		pc.addMiddleware(name, dynamic.Middleware{"inFlightReq": map[string]any{
			"amount": l.connections, "sourceCriterion": map[string]any{"ipStrategy": map[string]any{"depth": 0}},
		}})
		names = append(names, name)
	}
	for _, r := range []struct {
		rate   int
		period string
		suffix string
	}{{l.rpm, "1m", "limit-rpm"}, {l.rps, "1s", "limit-rps"}} {
		if r.rate <= 0 {
			continue
		}
		name := pc.ingressName(r.suffix)
		// nginx's burst is the rate times the multiplier, taken at once
		// (nodelay); Traefik's burst is the bucket's size, the same.
		pc.addMiddleware(name, dynamic.Middleware{"rateLimit": map[string]any{
			"average": r.rate, "period": r.period, "burst": r.rate * l.burstMultiplier,
		}})
		names = append(names, name)
	}
	return names
}
