package integration_test

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/gateway-api/apis/v1alpha2"
	"sigs.k8s.io/gateway-api/apis/v1alpha3"
	"sigs.k8s.io/gateway-api/apis/v1beta1"
	"sigs.k8s.io/gateway-api/conformance"
	confv1 "sigs.k8s.io/gateway-api/conformance/apis/v1"
	"sigs.k8s.io/gateway-api/conformance/tests"
	"sigs.k8s.io/gateway-api/conformance/utils/config"
	"sigs.k8s.io/gateway-api/conformance/utils/suite"
	gatewayclient "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"
	"sigs.k8s.io/gateway-api/pkg/features"
	"sigs.k8s.io/yaml"

	"github.com/sliceway/sliceway/integration/controlplane"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
)

// conformanceReportVariable names the file the conformance test writes
// the suite's report to (docs/conformance/ holds the committed one);
// without it the report is only logged.
const conformanceReportVariable = "SLICEWAY_CONFORMANCE_REPORT"

// conformanceClass is the GatewayClass the conformance suite's Gateways
// name.
const conformanceClass = "sliceway"

// conformanceExtended are the extended features sliceway declares to the
// suite beyond the core ones of its profiles; each one's tests must pass.
// docs/gateway-api.md lists what every feature maps to, and why the
// others are not declared.
var conformanceExtended = []features.FeatureName{
	features.SupportHTTPRouteQueryParamMatching,
	features.SupportHTTPRouteMethodMatching,
	features.SupportHTTPRouteResponseHeaderModification,
	features.SupportHTTPRoutePortRedirect,
	features.SupportHTTPRouteSchemeRedirect,
	features.SupportHTTPRoutePathRedirect,
	features.SupportHTTPRouteHostRewrite,
	features.SupportHTTPRoutePathRewrite,
	features.SupportHTTPRoute303RedirectStatusCode,
	features.SupportHTTPRoute307RedirectStatusCode,
	features.SupportHTTPRoute308RedirectStatusCode,
	features.SupportGatewayPort8080,
	features.SupportHTTPRouteCORS,
	features.SupportHTTPRouteBackendProtocolH2C,
	features.SupportHTTPRouteBackendProtocolWebSocket,
	features.SupportHTTPRouteParentRefPort,
	features.SupportHTTPRouteDestinationPortMatching,
	features.SupportGatewayHTTPListenerIsolation,
	features.SupportHTTPRouteNamedRouteRule,
	features.SupportGRPCRouteNamedRouteRule,
	features.SupportHTTPRouteRequestTimeout,
	features.SupportHTTPRouteBackendTimeout,
	features.SupportHTTPRouteBackendRequestHeaderModification,
	features.SupportHTTPRouteRequestMirror,
	features.SupportHTTPRouteRequestMultipleMirrors,
	features.SupportHTTPRouteRequestPercentageMirror,
	features.SupportHTTPRouteRetry,
	features.SupportBackendTLSPolicy,
	features.SupportGatewayBackendClientCertificate,
}

// TestGatewayAPIConformance runs the Gateway API conformance suite
// (sigs.k8s.io/gateway-api/conformance, profiles GATEWAY-HTTP and
// GATEWAY-GRPC) against sliceway as the Gateway controller and a real
// Traefik as its data plane, in the test's own network namespace: the
// suite's backends are pods of the pod runner, their EndpointSlices
// written by kube-controller-manager; `sliceway serve` renders the
// Gateway API objects of the control plane (as ServiceAccount sliceway,
// with the shipped RBAC) and writes their status as the leader; Traefik
// takes each configuration from serve's stream through sliceway's
// provider plugin, and serves each Gateway's listeners on the entry
// points of the address its status gives (conformanceEntryPoints). The
// suite's report is logged, and written where SLICEWAY_CONFORMANCE_REPORT
// says.
func TestGatewayAPIConformance(t *testing.T) {
	traefik := traefikBinary(t)
	if !inNetworkNamespace(t) {
		return
	}
	cp, _ := startPodCluster(t)
	installGatewayAPI(t, cp, experimentalChannel)
	applyFile(t, cp, rbacGatewayManifest)
	createGatewayClass(t, cp, conformanceClass)

	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte(saToken(t, cp, "sliceway", "sliceway")), 0o600))
	serve := freeAddr(t)
	const gw = "--providers.kubernetesgateway."
	args := []string{"serve", "--serve.address=" + serve,
		"--providers.kubernetesgateway=true", gw + "endpoint=" + cp.URL, gw + "tokenfile=" + tokenFile,
		gw + "certauthfilepath=" + cp.CAFile, gw + "pluginmiddlewares=true", gw + "leaderelection.leasenamespace=sliceway"}
	for _, ep := range conformanceEntryPoints() {
		args = append(args, fmt.Sprintf("%sentrypoints.%s.port=%d", gw, ep.name, ep.port),
			fmt.Sprintf("%sentrypoints.%s.protocol=%s", gw, ep.name, ep.protocol),
			fmt.Sprintf("%sentrypoints.%s.address=%s", gw, ep.name, ep.address))
	}
	startProcess(t, "sliceway serve", buildSliceway(t), args...)
	startTraefikWithPlugin(t, traefik, dir, "http://"+serve)

	opts := conformanceOptions(t, cp.AdminConfig())
	cSuite, err := suite.NewConformanceTestSuite(opts)
	require.NoError(t, err)
	t.Cleanup(func() { writeConformanceReport(t, cSuite) })
	cSuite.Setup(t, tests.ConformanceTests)
	require.NoError(t, cSuite.Run(t, tests.ConformanceTests))
}

// createGatewayClass creates GatewayClass name of sliceway's default
// controllerName, once the API server serves the kind.
func createGatewayClass(t *testing.T, cp *controlplane.ControlPlane, name string) {
	t.Helper()
	admin, err := gatewayclient.NewForConfig(cp.AdminConfig())
	require.NoError(t, err)
	eventually(t, "GatewayClass "+name+" created", time.Minute, func() bool {
		_, err := admin.GatewayV1().GatewayClasses().Create(ctx, &gatewayv1.GatewayClass{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       gatewayv1.GatewayClassSpec{ControllerName: ingress.DefaultGatewayControllerName},
		}, metav1.CreateOptions{})
		return err == nil
	})
}

// conformanceEntryPoint is an entry point of Traefik in the conformance
// test, as both Traefik and sliceway are told of it.
type conformanceEntryPoint struct {
	name, protocol, address string
	port                    int
}

// conformanceEntryPoints are Traefik's entry points in the conformance
// test: the suite's ports (80, 8080 and 8090 HTTP, 443 HTTPS) at each of four
// addresses of the namespace's loopback device, so that the suite's
// Gateways, each given an address of its own while there are enough,
// are apart: its tests send a request for one path to two Gateways and
// expect each Gateway's route to answer.
func conformanceEntryPoints() []conformanceEntryPoint {
	var out []conformanceEntryPoint
	for i := 1; i <= 4; i++ {
		// The first address's are the default entry points, web and
		// websecure, given an address (flags add to the default ones).
		address, suffix := fmt.Sprintf("127.0.0.%d", i), fmt.Sprintf("-%d", i)
		if i == 1 {
			suffix = ""
		}
		out = append(out,
			conformanceEntryPoint{"web" + suffix, "HTTP", address, 80},
			conformanceEntryPoint{"websecure" + suffix, "HTTPS", address, 443},
			conformanceEntryPoint{"web8080" + suffix, "HTTP", address, 8080},
			conformanceEntryPoint{"web8090" + suffix, "HTTP", address, 8090})
	}
	return out
}

// startTraefikWithPlugin runs Traefik with sliceway's provider plugin,
// copied into dir as Traefik's local plugins are laid out, streaming from
// serve at endpoint, with the conformance test's entry points.
func startTraefikWithPlugin(t *testing.T, traefik, dir, endpoint string) {
	t.Helper()
	const module = "github.com/sliceway/sliceway/traefik-plugin"
	require.NoError(t, os.CopyFS(filepath.Join(dir, "plugins-local", "src", filepath.FromSlash(module)), os.DirFS("../traefik-plugin")))
	var entryPoints strings.Builder
	for _, ep := range conformanceEntryPoints() {
		fmt.Fprintf(&entryPoints, "  %s: {address: \"%s:%d\"}\n", ep.name, ep.address, ep.port)
	}
	static := fmt.Sprintf(`global: {checkNewVersion: false, sendAnonymousUsage: false}
entryPoints:
%sexperimental:
  localPlugins:
    sliceway: {moduleName: %q}
providers:
  providersThrottleDuration: 0s
  plugin:
    sliceway: {endpoint: %q, minBackoff: 200ms, maxBackoff: 2s}
log: {level: INFO, noColor: true}
`, entryPoints.String(), module, endpoint)
	configFile := filepath.Join(dir, "traefik.yaml")
	require.NoError(t, os.WriteFile(configFile, []byte(static), 0o600))
	startProcessIn(t, dir, "traefik", traefik, "--configFile="+configFile)
}

// conformanceOptions are the suite's options: its clients on the control
// plane, the profiles sliceway claims, the extended features it declares,
// and the implementation the report names.
func conformanceOptions(t *testing.T, cfg *rest.Config) suite.ConformanceOptions {
	t.Helper()
	ctrllog.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	c, err := client.New(cfg, client.Options{})
	require.NoError(t, err)
	for _, install := range []func(*runtime.Scheme) error{gatewayv1.Install, v1beta1.Install, v1alpha2.Install, v1alpha3.Install, apiextensionsv1.AddToScheme} {
		require.NoError(t, install(c.Scheme()))
	}
	clientset, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	return suite.ConformanceOptions{
		ConfigurableOptions: suite.ConfigurableOptions{
			GatewayClassName:     conformanceClass,
			CleanupBaseResources: true,
			CleanupTestResources: true,
			SupportedFeatures:    conformanceExtended,
			ConformanceProfiles:  []suite.ConformanceProfileName{suite.GatewayHTTPConformanceProfileName, suite.GatewayGRPCConformanceProfileName},
			TimeoutConfig:        config.DefaultTimeoutConfig(),
			Mode:                 "default",
			Implementation: confv1.Implementation{
				Organization: "sliceway",
				Project:      "sliceway",
				URL:          "https://github.com/sliceway/sliceway",
				Version:      conformanceVersion(t),
				Contact:      []string{"https://github.com/sliceway/sliceway/issues"},
			},
		},
		Client:     c,
		Clientset:  clientset,
		RestConfig: cfg,
		ManifestFS: []fs.FS{&conformance.Manifests},
	}
}

// writeConformanceReport logs the suite's report, and writes it where
// SLICEWAY_CONFORMANCE_REPORT says.
func writeConformanceReport(t *testing.T, s *suite.ConformanceTestSuite) {
	report, err := s.Report()
	if err != nil {
		t.Errorf("the conformance report: %v", err)
		return
	}
	data, err := yaml.Marshal(report)
	require.NoError(t, err)
	t.Logf("the conformance report:\n%s", data)
	if path := os.Getenv(conformanceReportVariable); path != "" {
		require.NoError(t, os.WriteFile(path, data, 0o644))
	}
}

// conformanceVersion is the version the report names: the version make
// stamps into the binary (git describe: the tag, or the commit, -dirty
// with uncommitted changes).
func conformanceVersion(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "describe", "--tags", "--always", "--dirty").Output()
	require.NoError(t, err, "the commit under test")
	return strings.TrimSpace(string(out))
}
