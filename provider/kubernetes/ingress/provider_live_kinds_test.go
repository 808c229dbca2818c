package ingress

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/sliceway/sliceway/config/dynamic"
)

func TestProvideEveryKindReachesTheOutput(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		edit      func(map[string]k8sruntime.Object) // the cluster Provide starts on
		configure func(*Provider)
		change    func(t *testing.T, cs *fake.Clientset)
		check     func(t *testing.T, before, after *dynamic.Configuration)
		// when set, the Ingresses translated and the load balancers
		// refreshed by the renders of the change (RenderWorkObserver)
		work *[2]int
	}{
		{
			name: "Ingress added",
			change: func(t *testing.T, cs *fake.Clientset) {
				_, err := cs.NetworkingV1().Ingresses(liveNS).Create(ctx, liveIngress("api", "sliceway", "api.example", "web", livePortHTTP, 2), metav1.CreateOptions{})
				require.NoError(t, err)
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Empty(t, liveRuleFor(before, "api.example"))
				assert.Equal(t, `Host("api.example") && PathPrefix("/")`, liveRuleFor(after, "api.example"))
				assert.NotEmpty(t, liveRuleFor(after, "web.example"))
			},
		},
		{
			name: "Ingress updated",
			work: &[2]int{1, 0},
			change: func(t *testing.T, cs *fake.Clientset) {
				liveMutateIngress(t, cs, "web", func(i *netv1.Ingress) { i.Spec.Rules[0].Host = "www.example" })
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.NotEmpty(t, liveRuleFor(before, "web.example"))
				assert.Empty(t, liveRuleFor(after, "web.example"))
				assert.Equal(t, `Host("www.example") && PathPrefix("/")`, liveRuleFor(after, "www.example"))
			},
		},
		{
			name: "Ingress deleted",
			change: func(t *testing.T, cs *fake.Clientset) {
				require.NoError(t, cs.NetworkingV1().Ingresses(liveNS).Delete(ctx, "web", metav1.DeleteOptions{}))
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Len(t, before.HTTP.Routers, 1)
				assert.Empty(t, after.HTTP.Routers)
				assert.Empty(t, after.HTTP.Services)
				assert.Nil(t, after.TLS)
			},
		},
		{
			name: "Ingress labels no longer match the labelSelector",
			edit: func(objs map[string]k8sruntime.Object) {
				objs["Ingress/web"].(*netv1.Ingress).Labels = map[string]string{"team": "shop"}
			},
			configure: func(p *Provider) { p.LabelSelector = "team=shop" },
			change: func(t *testing.T, cs *fake.Clientset) {
				liveMutateIngress(t, cs, "web", func(i *netv1.Ingress) { i.Labels["team"] = "blog" })
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.NotEmpty(t, liveRuleFor(before, "web.example"))
				assert.Empty(t, after.HTTP.Routers)
			},
		},
		{
			name: "IngressClass added",
			edit: func(objs map[string]k8sruntime.Object) {
				objs["Ingress/late"] = liveIngress("late", "late", "late.example", "web", livePortHTTP, 1)
			},
			change: func(t *testing.T, cs *fake.Clientset) {
				_, err := cs.NetworkingV1().IngressClasses().Create(ctx, liveClass("late", ControllerName, false), metav1.CreateOptions{})
				require.NoError(t, err)
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Empty(t, liveRuleFor(before, "late.example"), "its class does not exist yet")
				assert.NotEmpty(t, liveRuleFor(after, "late.example"))
			},
		},
		{
			name: "IngressClass is-default-class annotation",
			edit: func(objs map[string]k8sruntime.Object) {
				// An Ingress without a class is ours only while the
				// cluster's default class is ours.
				objs["IngressClass/nginx"] = liveClass("nginx", "k8s.io/ingress-nginx", false)
				objs["Ingress/noclass"] = liveIngress("noclass", "", "noclass.example", "web", livePortHTTP, 1)
			},
			change: func(t *testing.T, cs *fake.Clientset) {
				liveMutateClass(t, cs, "sliceway", func(c *netv1.IngressClass) { delete(c.Annotations, AnnotationDefaultClass) })
				liveMutateClass(t, cs, "nginx", func(c *netv1.IngressClass) {
					c.Annotations = map[string]string{AnnotationDefaultClass: "true"}
				})
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.NotEmpty(t, liveRuleFor(before, "noclass.example"))
				// Without any default class, an Ingress without a class
				// is still ours: the first update changes nothing, and
				// the next configuration is that of the second.
				assert.Empty(t, liveRuleFor(after, "noclass.example"), "the default class is nginx's")
				assert.NotEmpty(t, liveRuleFor(after, "web.example"))
			},
		},
		{
			name: "IngressClass updated",
			change: func(t *testing.T, cs *fake.Clientset) {
				liveMutateClass(t, cs, "sliceway", func(c *netv1.IngressClass) { c.Spec.Controller = "k8s.io/ingress-nginx" })
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.NotEmpty(t, liveRuleFor(before, "web.example"))
				assert.Empty(t, after.HTTP.Routers, "the class is no longer ours")
			},
		},
		{
			name: "IngressClass deleted",
			change: func(t *testing.T, cs *fake.Clientset) {
				require.NoError(t, cs.NetworkingV1().IngressClasses().Delete(ctx, "sliceway", metav1.DeleteOptions{}))
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.NotEmpty(t, liveRuleFor(before, "web.example"))
				assert.Empty(t, after.HTTP.Routers)
			},
		},
		{
			name: "Service added",
			edit: func(objs map[string]k8sruntime.Object) {
				objs["Ingress/api"] = liveIngress("api", "sliceway", "api.example", "api", livePortHTTP, 1)
				objs["EndpointSlice/api-1"] = liveSlice("api-1", "api", "10.0.1.1")
			},
			change: func(t *testing.T, cs *fake.Clientset) {
				_, err := cs.CoreV1().Services(liveNS).Create(ctx, liveService("api"), metav1.CreateOptions{})
				require.NoError(t, err)
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Nil(t, liveServerURLs(before, "shop-api-http"))
				assert.Equal(t, []string{"http://10.0.1.1:8080"}, liveServerURLs(after, "shop-api-http"))
				assert.NotEmpty(t, liveRuleFor(after, "api.example"))
			},
		},
		{
			name: "Service updated",
			work: &[2]int{0, 1},
			change: func(t *testing.T, cs *fake.Clientset) {
				liveMutateService(t, cs, "web", func(s *corev1.Service) {
					s.Annotations = map[string]string{AnnotationPrefix + "service.serversscheme": "https"}
				})
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Equal(t, []string{"http://10.0.0.1:8080"}, liveServerURLs(before, liveWebKey))
				assert.Equal(t, []string{"https://10.0.0.1:8080"}, liveServerURLs(after, liveWebKey))
			},
		},
		{
			name: "Service deleted",
			change: func(t *testing.T, cs *fake.Clientset) {
				require.NoError(t, cs.CoreV1().Services(liveNS).Delete(ctx, "web", metav1.DeleteOptions{}))
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.NotNil(t, liveServerURLs(before, liveWebKey))
				assert.NotContains(t, after.HTTP.Services, liveWebKey)
				assert.Empty(t, after.HTTP.Routers)
			},
		},
		{
			name: "EndpointSlice added",
			work: &[2]int{0, 1},
			change: func(t *testing.T, cs *fake.Clientset) {
				_, err := cs.DiscoveryV1().EndpointSlices(liveNS).Create(ctx, liveSlice("web-2", "web", "10.0.0.2"), metav1.CreateOptions{})
				require.NoError(t, err)
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Equal(t, []string{"http://10.0.0.1:8080"}, liveServerURLs(before, liveWebKey))
				assert.Equal(t, []string{"http://10.0.0.1:8080", "http://10.0.0.2:8080"}, liveServerURLs(after, liveWebKey))
			},
		},
		{
			name: "EndpointSlice updated",
			work: &[2]int{0, 1},
			change: func(t *testing.T, cs *fake.Clientset) {
				liveMutateSlice(t, cs, "web-1", liveSetAddress("10.0.0.3"))
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Equal(t, []string{"http://10.0.0.1:8080"}, liveServerURLs(before, liveWebKey))
				assert.Equal(t, []string{"http://10.0.0.3:8080"}, liveServerURLs(after, liveWebKey))
			},
		},
		{
			name: "EndpointSlice deleted",
			work: &[2]int{1, 0},
			change: func(t *testing.T, cs *fake.Clientset) {
				require.NoError(t, cs.DiscoveryV1().EndpointSlices(liveNS).Delete(ctx, "web-1", metav1.DeleteOptions{}))
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.NotNil(t, liveServerURLs(before, liveWebKey))
				assert.NotContains(t, after.HTTP.Services, liveWebKey, "a service without servers is dropped")
				assert.Empty(t, after.HTTP.Routers)
			},
		},
		{
			name: "Secret added",
			edit: func(objs map[string]k8sruntime.Object) { delete(objs, "Secret/web-tls") },
			change: func(t *testing.T, cs *fake.Clientset) {
				_, err := cs.CoreV1().Secrets(liveNS).Create(ctx, liveSecret("web-tls", "web.example"), metav1.CreateOptions{})
				require.NoError(t, err)
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Nil(t, before.TLS)
				assert.Equal(t, []string{liveCertString("web.example")}, liveCertFiles(after))
			},
		},
		{
			name: "Secret updated",
			work: &[2]int{1, 0},
			change: func(t *testing.T, cs *fake.Clientset) {
				liveMutateSecret(t, cs, "web-tls", func(s *corev1.Secret) {
					s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey] = liveCert("www.example")
				})
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Equal(t, []string{liveCertString("web.example")}, liveCertFiles(before))
				assert.Equal(t, []string{liveCertString("www.example")}, liveCertFiles(after))
			},
		},
		{
			name: "Secret deleted",
			change: func(t *testing.T, cs *fake.Clientset) {
				require.NoError(t, cs.CoreV1().Secrets(liveNS).Delete(ctx, "web-tls", metav1.DeleteOptions{}))
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Len(t, liveCertFiles(before), 1)
				assert.Nil(t, after.TLS)
				assert.NotEmpty(t, liveRuleFor(after, "web.example"), "the routes are kept without the certificate")
			},
		},
		{
			name: "Node added",
			edit: liveWithNodePorts,
			change: func(t *testing.T, cs *fake.Clientset) {
				_, err := cs.CoreV1().Nodes().Create(ctx, liveNode("n2", "192.168.0.2"), metav1.CreateOptions{})
				require.NoError(t, err)
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Equal(t, []string{"http://192.168.0.1:30080"}, liveServerURLs(before, "shop-np-80"))
				assert.Equal(t, []string{"http://192.168.0.1:30080", "http://192.168.0.2:30080"}, liveServerURLs(after, "shop-np-80"))
			},
		},
		{
			name: "Node updated",
			work: &[2]int{0, 1},
			edit: liveWithNodePorts,
			change: func(t *testing.T, cs *fake.Clientset) {
				liveMutateNode(t, cs, "n1", func(n *corev1.Node) { n.Status.Addresses[0].Address = "192.168.0.11" })
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Equal(t, []string{"http://192.168.0.1:30080"}, liveServerURLs(before, "shop-np-80"))
				assert.Equal(t, []string{"http://192.168.0.11:30080"}, liveServerURLs(after, "shop-np-80"))
			},
		},
		{
			name: "Node deleted",
			edit: liveWithNodePorts,
			change: func(t *testing.T, cs *fake.Clientset) {
				require.NoError(t, cs.CoreV1().Nodes().Delete(ctx, "n1", metav1.DeleteOptions{}))
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.NotNil(t, liveServerURLs(before, "shop-np-80"))
				assert.NotContains(t, after.HTTP.Services, "shop-np-80", "no node is left")
				assert.Empty(t, liveRuleFor(after, "np.example"))
				assert.NotEmpty(t, liveRuleFor(after, "web.example"))
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := liveCluster()
			if tc.edit != nil {
				tc.edit(objs)
			}
			cs := newLiveFakeCluster(objs)
			lp := startLive(t, cs, tc.configure)
			before := lp.next()
			lp.waitInitialEvents(objs)
			kinds, work := lp.obs.renderKinds(), lp.obs.renderWork()
			tc.change(t, cs)
			after := lp.next()
			tc.check(t, before, after)
			if tc.work != nil {
				now := lp.obs.renderWork()
				assert.Equal(t, *tc.work, [2]int{now[0] - work[0], now[1] - work[1]},
					"Ingresses translated and load balancers refreshed by the change")
			}
			// Every kind of change renders incrementally: no full render
			// after the first configuration (which may take two, when it
			// finds that Nodes are needed).
			assert.Equal(t, kinds["full"], lp.obs.renderKinds()["full"], "full renders after the change")
			assert.Positive(t, lp.obs.renderKinds()["incremental"], "incremental renders")
		})
	}
}
