package main

import (
	"context"
	"maps"
	"slices"

	"github.com/rs/zerolog"

	"github.com/sliceway/sliceway/config/dynamic"
)

// mergeMessages reads the configurations of providers (each message
// names its provider) from in and sends on out one configuration of them
// all: once every provider has sent its first, then after each new one.
// With one provider its configurations pass as they are. The providers'
// names never collide (the ingress-nginx provider's start with nginx_),
// so merging is a union. It returns when ctx is done.
func mergeMessages(ctx context.Context, in <-chan dynamic.Message, providers []string, out chan<- dynamic.Message, logger zerolog.Logger) {
	last := map[string]dynamic.Message{}
	var told []string // the merge's errors last logged
	for {
		var msg dynamic.Message
		select {
		case msg = <-in:
		case <-ctx.Done():
			return
		}
		if len(providers) == 1 {
			select {
			case out <- msg:
			case <-ctx.Done():
				return
			}
			continue
		}
		last[msg.ProviderName] = msg
		if len(last) < len(providers) {
			continue // a partial configuration would drop the others' routes
		}
		msgs := make([]dynamic.Message, len(providers))
		for i, name := range providers {
			msgs[i] = last[name]
		}
		merged, errs := mergeConfigurations(msgs)
		told = logMergeErrors(logger, errs, told)
		select {
		case out <- dynamic.Message{ProviderName: "sliceway", Configuration: merged}:
		case <-ctx.Done():
			return
		}
	}
}

// mergeConfigurations is the union of the messages' configurations. The maps are new; the
// routers, services, middlewares, transports, certificates and TLS
// options are the providers' own values, so that what did not change
// keeps its pointer (the stream's deltas and the encoders' texts rely on
// it). A certificate two providers both load is given once. Of a host
// whose TLS routers name different TLS options in different providers,
// the TLS routers of the younger Ingress's provider are left out, or all
// when a provider does not say who owns the host (mergetls.go); errs
// says which.
func mergeConfigurations(msgs []dynamic.Message) (*dynamic.Configuration, []error) {
	clashes := tlsClashes(msgs)
	h := &dynamic.HTTPConfiguration{
		Routers:     map[string]*dynamic.Router{},
		Services:    map[string]*dynamic.Service{},
		Middlewares: map[string]*dynamic.Middleware{},
	}
	var certs []*dynamic.CertAndStores
	var options map[string]*dynamic.TLSOptions
	var tcp *dynamic.TCPConfiguration
	for _, m := range msgs {
		c := m.Configuration
		if c == nil {
			continue
		}
		if c.TCP != nil {
			// Passthrough routers (the ingress-nginx provider's): their
			// names start with the provider's prefix, so none clash.
			if tcp == nil {
				tcp = &dynamic.TCPConfiguration{Routers: map[string]*dynamic.TCPRouter{}, Services: map[string]*dynamic.TCPService{}}
			}
			union(tcp.Routers, c.TCP.Routers)
			union(tcp.Services, c.TCP.Services)
		}
		if c.HTTP != nil {
			for name, rt := range c.HTTP.Routers {
				if !leftOut(rt, clashes) {
					h.Routers[name] = rt
				}
			}
			union(h.Services, c.HTTP.Services)
			union(h.Middlewares, c.HTTP.Middlewares)
			if len(c.HTTP.ServersTransports) > 0 {
				if h.ServersTransports == nil {
					h.ServersTransports = map[string]*dynamic.ServersTransport{}
				}
				union(h.ServersTransports, c.HTTP.ServersTransports)
			}
		}
		if c.TLS != nil {
			// The TLS options routers name (client certificates of the
			// ingress-nginx provider): without them Traefik refuses those
			// routers.
			if len(c.TLS.Options) > 0 {
				if options == nil {
					options = map[string]*dynamic.TLSOptions{}
				}
				union(options, c.TLS.Options)
			}
			for _, cert := range c.TLS.Certificates {
				if !slices.ContainsFunc(certs, func(o *dynamic.CertAndStores) bool { return o.Certificate == cert.Certificate }) {
					certs = append(certs, cert)
				}
			}
		}
	}
	out := &dynamic.Configuration{HTTP: h, TCP: tcp}
	if len(certs) > 0 || options != nil {
		out.TLS = &dynamic.TLSConfiguration{Certificates: certs, Options: options}
	}
	var errs []error
	for _, host := range slices.Sorted(maps.Keys(clashes)) {
		errs = append(errs, clashes[host])
	}
	return out, errs
}

func union[T any](dst, src map[string]*T) {
	for k, v := range src {
		dst[k] = v
	}
}

// logMergeErrors logs errs unless they are those told already; it
// returns their texts.
func logMergeErrors(logger zerolog.Logger, errs []error, told []string) []string {
	texts := make([]string, len(errs))
	for i, e := range errs {
		texts[i] = e.Error()
	}
	if !slices.Equal(texts, told) {
		for _, e := range errs {
			logger.Error().Err(e).Msg("TLS routers left out")
		}
	}
	return texts
}
