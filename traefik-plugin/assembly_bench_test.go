package slicewayplugin

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkAssemblyApply is the plugin's work for one delta frame of one
// changed service, on configurations of 1,000 and 10,000 routers and
// services shaped like sliceway's (ten servers each): the delta read, the
// service replaced, the whole configuration written again for Traefik.
// The first delta of a stream also splits the full text: that is
// measured apart, as split.
func BenchmarkAssemblyApply(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		text := assemblyBenchConfiguration(n)
		b.Run(fmt.Sprintf("services=%d/split", n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				a := assembly{version: 1, text: text}
				if err := a.splitText(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("services=%d/delta", n), func(b *testing.B) {
			var a assembly
			a.full(1, text)
			if err := a.splitText(); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(text)))
			v := uint64(1)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d := fmt.Sprintf(`{"services":{"svc-%05d-http":{"loadBalancer":{"servers":[{"url":"http://10.255.0.%d:8080"}],"passHostHeader":true}}}}`, n/2, v%250)
				if _, err := a.apply(v+1, v, json.RawMessage(d)); err != nil {
					b.Fatal(err)
				}
				v++
			}
		})
	}
}

func assemblyBenchConfiguration(n int) []byte {
	var routers, services []string
	for i := range n {
		name := fmt.Sprintf("svc-%05d", i)
		routers = append(routers, fmt.Sprintf(`"bench-%[1]s-%[1]s-example":{"observability":{"metadata":{"ingress":{"ingressName":"%[1]s","namespace":"bench","serviceName":"%[1]s","servicePort":"http"}}},"priority":2097158,"rule":"Host(\"%[1]s.example\") && PathPrefix(\"/\")","service":"bench-%[1]s-http"}`, name))
		var servers []string
		for e := range 10 {
			servers = append(servers, fmt.Sprintf(`{"url":"http://10.%d.%d.%d:8080"}`, i/250%250, i%250, e+1))
		}
		services = append(services, fmt.Sprintf(`"bench-%s-http":{"loadBalancer":{"servers":[%s],"passHostHeader":true}}`, name, strings.Join(servers, ",")))
	}
	return []byte(`{"http":{"routers":{` + strings.Join(routers, ",") + `},"services":{` + strings.Join(services, ",") + `}}}`)
}
