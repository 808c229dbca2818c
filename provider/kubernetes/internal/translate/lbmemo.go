package translate

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
)

// LBMemo is the load balancers the client's index built for each port of
// a Service when its objects arrived, with the index's options, for a
// proxy whose node and zone are not known. A render whose options are the
// index's takes them instead of building its own: they come from the same
// builder (LBEnv.BuildPort), so both give the same.
type LBMemo struct {
	opts *LBOptions // the index's
	// hinted says that an endpoint of the slices has topology hints: the
	// memo then holds only for a proxy whose node and zone are unknown.
	hinted bool
	ports  []*LoadBalancer // by the index of the Service's port; nil where a render builds it (node ports)
}

// Memoise builds the load balancer of each port of o's Service that a
// render may take: the TCP ports of a Service that is not ExternalName,
// except those made of the Nodes (b has none: it is the index's). A load
// balancer equal to the one of the same port in prev (the memo before
// this change) is that one, so that a render sees at a glance that it did
// not change. It is nil when no port can be memoised.
func (b *LBEnv) Memoise(o *ServiceObjects, prev *LBMemo) *LBMemo {
	if o.Service == nil || o.Service.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	m := &LBMemo{opts: b.Options, ports: make([]*LoadBalancer, len(o.Service.Spec.Ports))}
	for _, sl := range o.Slices {
		for i := range sl.Endpoints {
			if h := sl.Endpoints[i].Hints; h != nil && (len(h.ForNodes) > 0 || len(h.ForZones) > 0) {
				m.hinted = true
			}
		}
	}
	for i, p := range o.Service.Spec.Ports {
		if p.Protocol != "" && p.Protocol != corev1.ProtocolTCP {
			continue
		}
		lb, ok := b.BuildPort(o, i)
		switch {
		case !ok:
		case prev != nil && i < len(prev.ports) && prev.ports[i] != nil && reflect.DeepEqual(*prev.ports[i], lb):
			m.ports[i] = prev.ports[i]
		default:
			m.ports[i] = &lb
		}
	}
	return m
}

// Port is the memoised load balancer of the Service's i-th port, nil
// where a render builds it.
func (m *LBMemo) Port(i int) *LoadBalancer {
	if i < 0 || i >= len(m.ports) {
		return nil
	}
	return m.ports[i]
}
