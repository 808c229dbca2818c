package ingressnginx

// This file is copied into Traefik's pkg/provider/kubernetes/ingress-nginx
// by tools/traefik-check/run, and, renamed into package ingress, into
// pkg/provider/kubernetes/ingress for the check of Traefik's Ingress
// provider's tables (sliceway_ingress_table_test.go); it is not part of
// sliceway's build. It says where a service sends requests, whatever the
// services are named: the servers of its load balancers with the share of
// the requests each gets (through weighted services; a mirroring's main
// service; a failover's main service while it has servers, else its
// fallback), each load balancer's sticky cookie and servers transport; and
// what a TLS router's options ask of clients.

import (
	"crypto/sha256"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	ptypes "github.com/traefik/paerser/types"
	"github.com/traefik/traefik/v3/pkg/types"
)

// servers is the text of where service name sends requests: the servers
// with their share, "no servers" for a load balancer without any (Traefik
// answers 503), then the load balancers' cookies and transports.
func (s *slicewaySide) servers(name string) string {
	shares := map[string]float64{}
	extras := map[string]bool{}
	s.collect(name, 1, shares, extras, 0)
	var parts []string
	for url, share := range shares {
		parts = append(parts, fmt.Sprintf("%s %d%%", url, int(math.Round(share*100))))
	}
	sort.Strings(parts)
	text := strings.Join(parts, ", ")
	if len(parts) == 1 {
		text = strings.TrimSuffix(text, " 100%")
	}
	var ex []string
	for e := range extras {
		ex = append(ex, e)
	}
	sort.Strings(ex)
	if len(ex) > 0 {
		text += " (" + strings.Join(ex, "; ") + ")"
	}
	return text
}

func (s *slicewaySide) collect(name string, share float64, shares map[string]float64, extras map[string]bool, depth int) {
	svc := s.conf.HTTP.Services[name]
	switch {
	case depth > 10:
		shares["services nested too deep"] += share
	case svc == nil:
		shares["no service "+name] += share
	case svc.LoadBalancer != nil:
		lb := svc.LoadBalancer
		total := 0
		for _, srv := range lb.Servers {
			total += slicewayWeight(srv.Weight, srv.Fenced)
		}
		if total == 0 {
			shares["no servers"] += share
			return
		}
		for _, srv := range lb.Servers {
			if w := slicewayWeight(srv.Weight, srv.Fenced); w > 0 {
				shares[srv.URL] += share * float64(w) / float64(total)
			}
		}
		if lb.Sticky != nil && lb.Sticky.Cookie != nil {
			c := lb.Sticky.Cookie
			path := "/" // Traefik's default
			if c.Path != nil {
				path = *c.Path
			}
			extras[fmt.Sprintf("sticky cookie %s path %q domain %q max age %d secure %v httpOnly %v sameSite %q", c.Name, path, c.Domain, c.MaxAge, c.Secure, c.HTTPOnly, c.SameSite)] = true
		}
		tlsServers := false
		for _, srv := range lb.Servers {
			tlsServers = tlsServers || strings.HasPrefix(srv.URL, "https://")
		}
		if t := s.transport(lb.ServersTransport, tlsServers); t != "" {
			extras[t] = true
		}
		if lb.PassHostHeader != nil && !*lb.PassHostHeader {
			extras["Host of the server, not the request's"] = true
		}
	case svc.Weighted != nil:
		total, reached := 0, 0
		for _, c := range svc.Weighted.Services {
			total += slicewayWeight(c.Weight, false)
			if slicewayWeight(c.Weight, false) > 0 {
				reached++
			}
		}
		for _, c := range svc.Weighted.Services {
			if w := slicewayWeight(c.Weight, false); w > 0 && total > 0 {
				s.collect(c.Name, share*float64(w)/float64(total), shares, extras, depth+1)
			}
		}
		// A cookie that keeps a client on one of the services matters only
		// when more than one can be chosen (a canary of weight 0 is never).
		if svc.Weighted.Sticky != nil && svc.Weighted.Sticky.Cookie != nil && reached > 1 {
			extras["sticky cookie "+svc.Weighted.Sticky.Cookie.Name+" between services"] = true
		}
	case svc.Mirroring != nil:
		s.collect(svc.Mirroring.Service, share, shares, extras, depth+1)
	case svc.Failover != nil:
		if s.hasServers(svc.Failover.Service, 0) {
			s.collect(svc.Failover.Service, share, shares, extras, depth+1)
		} else {
			s.collect(svc.Failover.Fallback, share, shares, extras, depth+1)
		}
	default:
		shares["service "+name+" of another kind"] += share
	}
}

// slicewayWeight is a server's or a weighted child's weight: 1 when not
// given, 0 for a fenced server (which gets no new requests while another
// can take them).
func slicewayWeight(w *int, fenced bool) int {
	switch {
	case fenced:
		return 0
	case w == nil:
		return 1
	}
	return *w
}

func (s *slicewaySide) hasServers(name string, depth int) bool {
	svc := s.conf.HTTP.Services[name]
	switch {
	case svc == nil || depth > 10:
		return false
	case svc.LoadBalancer != nil:
		for _, srv := range svc.LoadBalancer.Servers {
			if slicewayWeight(srv.Weight, srv.Fenced) > 0 {
				return true
			}
		}
	case svc.Weighted != nil:
		for _, c := range svc.Weighted.Services {
			if s.hasServers(c.Name, depth+1) {
				return true
			}
		}
	case svc.Mirroring != nil:
		return s.hasServers(svc.Mirroring.Service, depth+1)
	case svc.Failover != nil:
		return s.hasServers(svc.Failover.Service, depth+1) || s.hasServers(svc.Failover.Fallback, depth+1)
	}
	return false
}

// Traefik's provider writes a servers transport for every Ingress, with
// its defaults (60 s for each timeout, as its SetDefaults says) unless an
// annotation changes one; sliceway writes one only when an annotation or
// the ConfigMap asks, with ingress-nginx's defaults for the timeouts not
// asked for (5 s to connect, 60 s to read, which it writes as the wait
// for the response's headers), and leaves Traefik's own defaults
// otherwise. Each side's own defaults are left out: what is compared is
// what the Ingress's annotations changed. The idle timeout of kept
// connections is never compared: it changes no answer.
var slicewayDefaultTimeouts = map[bool]map[string]ptypes.Duration{
	true:  {"dial timeout": ptypes.Duration(60 * time.Second), "read timeout": ptypes.Duration(60 * time.Second), "send timeout": ptypes.Duration(60 * time.Second)},
	false: {"dial timeout": ptypes.Duration(5 * time.Second), "response header timeout": ptypes.Duration(60 * time.Second)},
}

// transport is what a servers transport changes, or "". HTTP/2 being
// off counts only for https servers: Traefik speaks HTTP/1.1 to http
// ones whatever the transport says.
func (s *slicewaySide) transport(name string, tlsServers bool) string {
	if name == "" {
		return ""
	}
	st := s.conf.HTTP.ServersTransports[name]
	if st == nil {
		return "no servers transport " + name
	}
	var parts []string
	if st.ServerName != "" {
		parts = append(parts, "server name "+st.ServerName)
	}
	if st.InsecureSkipVerify {
		parts = append(parts, "certificate not verified")
	}
	if len(st.RootCAs) > 0 {
		parts = append(parts, "root CAs "+slicewayDigest(st.RootCAs))
	}
	if len(st.Certificates) > 0 {
		parts = append(parts, fmt.Sprintf("%d client certificates", len(st.Certificates)))
	}
	if st.DisableHTTP2 && tlsServers {
		parts = append(parts, "no HTTP/2")
	}
	if f := st.ForwardingTimeouts; f != nil {
		for _, t := range []struct {
			what string
			d    ptypes.Duration
		}{{"dial timeout", f.DialTimeout}, {"read timeout", f.ReadTimeout}, {"send timeout", f.WriteTimeout}, {"response header timeout", f.ResponseHeaderTimeout}} {
			if t.d != 0 && t.d != slicewayDefaultTimeouts[s.traefik][t.what] {
				parts = append(parts, fmt.Sprintf("%s %s", t.what, time.Duration(t.d)))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "transport " + strings.Join(parts, ", ")
}

// clientCertificates is what the router's TLS options ask of clients
// ("" for nothing).
func (s *slicewaySide) clientCertificates(option string) string {
	if option == "" {
		option = "default"
	}
	if s.conf.TLS == nil || s.conf.TLS.Options[option].ClientAuth.ClientAuthType == "" {
		return ""
	}
	ca := s.conf.TLS.Options[option].ClientAuth
	if ca.ClientAuthType == "NoClientCert" {
		return ""
	}
	return fmt.Sprintf("client certificate %s, CAs %s", ca.ClientAuthType, slicewayDigest(ca.CAFiles))
}

// slicewayDigest stands for PEM contents, whitespace aside.
func slicewayDigest(files []types.FileOrContent) string {
	var texts []string
	for _, f := range files {
		texts = append(texts, strings.Join(strings.Fields(string(f)), ""))
	}
	sort.Strings(texts)
	sum := sha256.Sum256([]byte(strings.Join(texts, "\n")))
	return fmt.Sprintf("%x", sum[:4])
}
