package ingress

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

func TestTranslateIngressClassSelection(t *testing.T) {
	const other = "k8s.io/ingress-nginx"
	tests := []struct {
		desc    string
		classes []*netv1.IngressClass
		option  string
		opts    []testobjects.IngressOption
		served  bool
	}{
		// spec.ingressClassName
		{desc: "class name of our class", classes: []*netv1.IngressClass{testobjects.NewClass("traefik", ControllerName, false)},
			opts: []testobjects.IngressOption{testobjects.WithClassName("traefik")}, served: true},
		{desc: "class name of our class named by the option", classes: []*netv1.IngressClass{testobjects.NewClass("internal", ControllerName, false)},
			option: "internal", opts: []testobjects.IngressOption{testobjects.WithClassName("internal")}, served: true},
		{desc: "class name of our class not named by the option", classes: []*netv1.IngressClass{testobjects.NewClass("traefik", ControllerName, false), testobjects.NewClass("internal", ControllerName, false)},
			option: "internal", opts: []testobjects.IngressOption{testobjects.WithClassName("traefik")}, served: false},
		{desc: "class name of another controller's class", classes: []*netv1.IngressClass{testobjects.NewClass("nginx", other, false), testobjects.NewClass("traefik", ControllerName, false)},
			opts: []testobjects.IngressOption{testobjects.WithClassName("nginx")}, served: false},
		{desc: "class name of another controller's class equal to the option", classes: []*netv1.IngressClass{testobjects.NewClass("nginx", other, false)},
			option: "nginx", opts: []testobjects.IngressOption{testobjects.WithClassName("nginx")}, served: false},
		{desc: "class name of an unknown class", classes: []*netv1.IngressClass{testobjects.NewClass("traefik", ControllerName, false)},
			opts: []testobjects.IngressOption{testobjects.WithClassName("missing")}, served: false},
		{desc: "class name of an unknown class, no classes at all", opts: []testobjects.IngressOption{testobjects.WithClassName("traefik")}, served: false},
		{desc: "class name wins over the annotation (ours)", classes: []*netv1.IngressClass{testobjects.NewClass("traefik", ControllerName, false)},
			opts: []testobjects.IngressOption{testobjects.WithClassName("traefik"), testobjects.WithAnnotation(AnnotationIngressClass, "nginx")}, served: true},
		{desc: "class name wins over the annotation (other)", classes: []*netv1.IngressClass{testobjects.NewClass("nginx", other, false)},
			opts: []testobjects.IngressOption{testobjects.WithClassName("nginx"), testobjects.WithAnnotation(AnnotationIngressClass, "traefik")}, served: false},
		{desc: "class name wins over the default class", classes: []*netv1.IngressClass{testobjects.NewClass("nginx", other, false), testobjects.NewClass("traefik", ControllerName, true)},
			opts: []testobjects.IngressOption{testobjects.WithClassName("nginx")}, served: false},

		// kubernetes.io/ingress.class
		{desc: "annotation traefik, empty option", opts: []testobjects.IngressOption{testobjects.WithAnnotation(AnnotationIngressClass, "traefik")}, served: true},
		{desc: "annotation traefik, empty option, other default class", classes: []*netv1.IngressClass{testobjects.NewClass("nginx", other, true)},
			opts: []testobjects.IngressOption{testobjects.WithAnnotation(AnnotationIngressClass, "traefik")}, served: true},
		{desc: "annotation of another value, empty option", opts: []testobjects.IngressOption{testobjects.WithAnnotation(AnnotationIngressClass, "nginx")}, served: false},
		{desc: "annotation of another value, our default class", classes: []*netv1.IngressClass{testobjects.NewClass("traefik", ControllerName, true)},
			opts: []testobjects.IngressOption{testobjects.WithAnnotation(AnnotationIngressClass, "nginx")}, served: false},
		{desc: "annotation equal to the option", option: "internal", opts: []testobjects.IngressOption{testobjects.WithAnnotation(AnnotationIngressClass, "internal")}, served: true},
		{desc: "annotation traefik, option set to another value", option: "internal", opts: []testobjects.IngressOption{testobjects.WithAnnotation(AnnotationIngressClass, "traefik")}, served: false},
		{desc: "annotation traefik, option traefik", option: "traefik", opts: []testobjects.IngressOption{testobjects.WithAnnotation(AnnotationIngressClass, "traefik")}, served: true},

		// no class at all
		{desc: "classless, our default class", classes: []*netv1.IngressClass{testobjects.NewClass("nginx", other, false), testobjects.NewClass("traefik", ControllerName, true)}, served: true},
		{desc: "classless, our default class named by the option", classes: []*netv1.IngressClass{testobjects.NewClass("internal", ControllerName, true)},
			option: "internal", served: true},
		{desc: "classless, our default class not named by the option", classes: []*netv1.IngressClass{testobjects.NewClass("traefik", ControllerName, true)},
			option: "internal", served: false},
		{desc: "classless, another controller's default class", classes: []*netv1.IngressClass{testobjects.NewClass("nginx", other, true), testobjects.NewClass("traefik", ControllerName, false)},
			served: false},
		{desc: "classless, no default class, empty option", classes: []*netv1.IngressClass{testobjects.NewClass("traefik", ControllerName, false)}, served: true},
		{desc: "classless, no classes, empty option", served: true},
		{desc: "classless, no default class, option set", classes: []*netv1.IngressClass{testobjects.NewClass("internal", ControllerName, false)},
			option: "internal", served: false},
		{desc: "classless, default annotation false is no default", classes: []*netv1.IngressClass{
			{ObjectMeta: metav1.ObjectMeta{Name: "nginx", Annotations: map[string]string{AnnotationDefaultClass: "false"}}, Spec: netv1.IngressClassSpec{Controller: other}},
		}, served: true},
		{desc: "classless, empty annotation is no annotation", classes: []*netv1.IngressClass{testobjects.NewClass("traefik", ControllerName, true)},
			opts: []testobjects.IngressOption{testobjects.WithAnnotation(AnnotationIngressClass, "")}, served: true},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			objs := testobjects.Backend("default", "whoami", "10.0.0.1")
			objs = append(objs, testobjects.NewIngress("default", "web", append([]testobjects.IngressOption{testobjects.WithPath("foo.com", "/", "whoami", 80, "")}, tc.opts...)...))
			for _, c := range tc.classes {
				objs = append(objs, c)
			}
			opts := &Provider{IngressClass: tc.option}
			opts.SetDefaults()
			res := translateOnce(t, testobjects.NewSnapshot(objs...), opts)
			assert.Empty(t, res.Errors)
			if tc.served {
				require.Contains(t, res.Configuration.HTTP.Routers, "default-web-foo-com")
				assert.Equal(t, "default-whoami-80", res.Configuration.HTTP.Routers["default-web-foo-com"].Service)
				assert.Contains(t, res.Configuration.HTTP.Services, "default-whoami-80")
			} else {
				assert.Empty(t, res.Configuration.HTTP.Routers)
				assert.Empty(t, res.Configuration.HTTP.Services)
			}
		})
	}
}
