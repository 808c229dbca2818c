package ingress

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/config/dynamic"
)

// liveServerURLs are the server URLs of a service of the configuration, or nil
// when it has no such service.
func liveServerURLs(conf *dynamic.Configuration, key string) []string {
	svc, ok := conf.HTTP.Services[key]
	if !ok || svc.LoadBalancer == nil {
		return nil
	}
	var urls []string
	for _, s := range svc.LoadBalancer.Servers {
		urls = append(urls, s.URL)
	}
	return urls
}

// liveRuleFor returns the rule of the router of a host, or "".
func liveRuleFor(conf *dynamic.Configuration, host string) string {
	for _, r := range conf.HTTP.Routers {
		if strings.Contains(r.Rule, `Host("`+host+`")`) {
			return r.Rule
		}
	}
	return ""
}

func liveCertFiles(conf *dynamic.Configuration) []string {
	if conf.TLS == nil {
		return nil
	}
	var out []string
	for _, c := range conf.TLS.Certificates {
		out = append(out, c.CertFile)
	}
	return out
}

// liveJSON is the configuration as generic JSON values, to compare two
// configurations or to edit a copy of one.
func liveJSON(t *testing.T, conf *dynamic.Configuration) map[string]any {
	t.Helper()
	data, err := json.Marshal(conf)
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(data, &v))
	return v
}
