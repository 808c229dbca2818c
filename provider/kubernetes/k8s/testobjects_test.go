package k8s

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// testSlice builds a slice with every pointer field set, from fresh
// pointers each time: two calls give equal values behind distinct pointers.
func testSlice() *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "web-abc12", Namespace: "shop", ResourceVersion: "10", UID: "uid-slice", Generation: 1,
			Labels: map[string]string{
				discoveryv1.LabelServiceName: "web",
				ManagedByLabel:               "endpointslice-controller.k8s.io",
				"app":                        "web",
			},
			Annotations: map[string]string{"endpoints.kubernetes.io/last-change-trigger-time": "2026-01-01T00:00:00Z"},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports: []discoveryv1.EndpointPort{{
			Name: new("http"), Port: new(int32(8080)), Protocol: new(corev1.ProtocolTCP), AppProtocol: new("http"),
		}},
		Endpoints: []discoveryv1.Endpoint{
			{
				Addresses:  []string{"10.0.0.1"},
				Conditions: discoveryv1.EndpointConditions{Ready: new(true), Serving: new(true), Terminating: new(false)},
				Hostname:   new("web-0"),
				NodeName:   new("node-a"),
				Zone:       new("zone-a"),
				Hints:      &discoveryv1.EndpointHints{ForZones: []discoveryv1.ForZone{{Name: "zone-a"}}},
				TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: "web-0", UID: "uid-pod-0"},
			},
			{
				Addresses:  []string{"10.0.0.2"},
				Conditions: discoveryv1.EndpointConditions{Ready: new(false), Serving: new(true), Terminating: new(true)},
				NodeName:   new("node-b"),
				Zone:       new("zone-b"),
			},
		},
	}
}

func testService() *corev1.Service {
	return &corev1.Service{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "web", Namespace: "shop", ResourceVersion: "20", UID: "uid-svc",
			Labels: map[string]string{"app": "web"},
			Annotations: map[string]string{
				"traefik.ingress.kubernetes.io/service.serversscheme": "http",
				"prometheus.io/scrape":                                "true",
			},
		},
		Spec: corev1.ServiceSpec{
			Type:       corev1.ServiceTypeClusterIP,
			ClusterIP:  "10.96.0.10",
			ClusterIPs: []string{"10.96.0.10"},
			IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol},
			Selector:   map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{
				Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(8080),
			}},
		},
	}
}

func testIngress() *netv1.Ingress {
	return &netv1.Ingress{
		TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "web", Namespace: "shop", ResourceVersion: "30", UID: "uid-ing",
			Annotations: map[string]string{
				IngressClassAnnotation:                             "traefik",
				"traefik.ingress.kubernetes.io/router.entrypoints": "websecure",
				"traefik.ingress.kubernetes.io/router.middlewares": "shop-auth@kubernetescrd",
				"cert-manager.io/cluster-issuer":                   "letsencrypt",
				"nginx.ingress.kubernetes.io/proxy-body-size":      "8m",
				"kubectl.kubernetes.io/restartedAt":                "2026-01-01T00:00:00Z",
			},
		},
		Spec: netv1.IngressSpec{
			IngressClassName: new("sliceway"),
			TLS:              []netv1.IngressTLS{{Hosts: []string{"web.example"}, SecretName: "web-tls"}},
			Rules: []netv1.IngressRule{{
				Host: "web.example",
				IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{Paths: []netv1.HTTPIngressPath{{
					Path: "/", PathType: new(netv1.PathTypePrefix),
					Backend: netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: "web", Port: netv1.ServiceBackendPort{Name: "http"}}},
				}}}},
			}},
		},
	}
}

func testIngressClass() *netv1.IngressClass {
	return &netv1.IngressClass{
		TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "IngressClass"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "sliceway", ResourceVersion: "40", UID: "uid-class",
			Labels:      map[string]string{"app.kubernetes.io/name": "sliceway"},
			Annotations: map[string]string{DefaultClassAnnotation: "true"},
		},
		Spec: netv1.IngressClassSpec{Controller: "traefik.io/ingress-controller"},
	}
}

func testSecret() *corev1.Secret {
	return &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "web-tls", Namespace: "shop", ResourceVersion: "50", UID: "uid-secret",
			Labels: map[string]string{"controller.cert-manager.io/fao": "true"},
		},
		Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{
			corev1.TLSCertKey:       []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"),
			corev1.TLSPrivateKeyKey: []byte("-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n"),
		},
	}
}

func testNode() *corev1.Node {
	return &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "node-a", ResourceVersion: "60", UID: "uid-node",
			Labels: map[string]string{
				ZoneLabel:              "zone-a",
				RegionLabel:            "region-1",
				corev1.LabelHostname:   "node-a",
				"kubernetes.io/os":     "linux",
				"node-role.example/db": "",
			},
			Annotations: map[string]string{"node.alpha.kubernetes.io/ttl": "0"},
		},
		Spec: corev1.NodeSpec{PodCIDR: "10.244.1.0/24"},
		Status: corev1.NodeStatus{
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: "192.168.0.1"},
				{Type: corev1.NodeHostName, Address: "node-a"},
			},
			Conditions: []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: corev1.ConditionTrue,
				LastHeartbeatTime: metav1.Time{Time: time.Unix(1700000000, 0)},
			}},
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
			Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
			Images:      []corev1.ContainerImage{{Names: []string{"nginx:1"}, SizeBytes: 1000}},
		},
	}
}
