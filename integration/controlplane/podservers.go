package controlplane

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"path"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// serverKind is what a pod's server answers with.
type serverKind int

const (
	httpServer serverKind = iota // the HTTP echo, HTTP/1.1 and h2c
	h2cServer                    // the HTTP echo, HTTP/2 without TLS only
	grpcServer                   // the gRPC echo
)

// serverSpec is one server a pod runs: on port, over TLS with tls.
type serverSpec struct {
	port int32
	kind serverKind
	tls  *tls.Config // nil: no TLS
}

// podServers are the servers pod runs, container by container. A
// container of the conformance suite's echo image (echo-basic) runs what
// its environment asks that image for: the HTTP echo on HTTP_PORT (3000),
// the h2c one on H2C_PORT (3001), and with TLS_SERVER_CERT and
// TLS_SERVER_PRIVKEY the HTTP echo over TLS on HTTPS_PORT (8443), client
// certificates verified when given against TLS_CLIENT_CACERTS; with
// GRPC_ECHO_SERVER the gRPC echo instead, on HTTP_PORT and over TLS on
// HTTPS_PORT. Its TCP and UDP echoes (TCP_ECHO_SERVER, UDP_ECHO_SERVER)
// are not emulated: such a container serves nothing. The files those
// variables name are read from the pod's Secret and ConfigMap volumes,
// through the API: a file of a volume whose object is missing is an error,
// and the pod waits, as a kubelet waits to mount it. A container of any
// other image runs the HTTP echo on each TCP port it declares.
func (r *PodRunner) podServers(ctx context.Context, pod *corev1.Pod) ([]serverSpec, error) {
	var out []serverSpec
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		if !isEchoBasic(c.Image) {
			for _, p := range c.Ports {
				if p.Protocol == "" || p.Protocol == corev1.ProtocolTCP {
					out = append(out, serverSpec{port: p.ContainerPort, kind: httpServer})
				}
			}
			continue
		}
		env := map[string]string{}
		for _, e := range c.Env {
			env[e.Name] = e.Value
		}
		if env["TCP_ECHO_SERVER"] != "" || env["UDP_ECHO_SERVER"] != "" {
			continue
		}
		httpPort, err := envPort(env, "HTTP_PORT", 3000)
		if err != nil {
			return nil, err
		}
		httpsPort, err := envPort(env, "HTTPS_PORT", 8443)
		if err != nil {
			return nil, err
		}
		var tlsConfig *tls.Config
		if env["TLS_SERVER_CERT"] != "" && env["TLS_SERVER_PRIVKEY"] != "" {
			if tlsConfig, err = r.serverTLS(ctx, pod, c, env); err != nil {
				return nil, err
			}
		}
		if env["GRPC_ECHO_SERVER"] != "" {
			out = append(out, serverSpec{port: httpPort, kind: grpcServer})
			if tlsConfig != nil {
				out = append(out, serverSpec{port: httpsPort, kind: grpcServer, tls: tlsConfig})
			}
			continue
		}
		h2cPort, err := envPort(env, "H2C_PORT", 3001)
		if err != nil {
			return nil, err
		}
		out = append(out, serverSpec{port: httpPort, kind: httpServer}, serverSpec{port: h2cPort, kind: h2cServer})
		if tlsConfig != nil {
			out = append(out, serverSpec{port: httpsPort, kind: httpServer, tls: tlsConfig})
		}
	}
	return out, nil
}

// isEchoBasic says whether image is the conformance suite's echo server.
func isEchoBasic(image string) bool {
	name, _, _ := strings.Cut(path.Base(image), ":")
	name, _, _ = strings.Cut(name, "@")
	return name == "echo-basic"
}

// envPort is the port the variable name says, def when it is unset.
func envPort(env map[string]string, name string, def int32) (int32, error) {
	v := env[name]
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("%s=%q is not a port", name, v)
	}
	return int32(n), nil
}

// serverTLS is the TLS configuration of an echo container: its
// certificate and key, and the CAs of client certificates when asked.
func (r *PodRunner) serverTLS(ctx context.Context, pod *corev1.Pod, c *corev1.Container, env map[string]string) (*tls.Config, error) {
	certPEM, err := r.volumeFile(ctx, pod, c, env["TLS_SERVER_CERT"])
	if err != nil {
		return nil, err
	}
	keyPEM, err := r.volumeFile(ctx, pod, c, env["TLS_SERVER_PRIVKEY"])
	if err != nil {
		return nil, err
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("the certificate of container %s: %w", c.Name, err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	if file := env["TLS_CLIENT_CACERTS"]; file != "" {
		caPEM, err := r.volumeFile(ctx, pod, c, file)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caPEM) {
			return nil, fmt.Errorf("no certificate in %s of container %s", file, c.Name)
		}
		cfg.ClientAuth, cfg.ClientCAs = tls.VerifyClientCertIfGiven, pool
	}
	return cfg, nil
}

// volumeFile is the content of the file at path in container c of pod,
// from the Secret or ConfigMap of the volume mounted there.
func (r *PodRunner) volumeFile(ctx context.Context, pod *corev1.Pod, c *corev1.Container, file string) ([]byte, error) {
	for _, m := range c.VolumeMounts {
		rel, ok := strings.CutPrefix(file, strings.TrimSuffix(m.MountPath, "/")+"/")
		if !ok {
			continue
		}
		for _, v := range pod.Spec.Volumes {
			if v.Name != m.Name {
				continue
			}
			switch {
			case v.Secret != nil:
				s, err := r.c.client.CoreV1().Secrets(pod.Namespace).Get(ctx, v.Secret.SecretName, metav1.GetOptions{})
				if err != nil {
					return nil, fmt.Errorf("volume %s of container %s: %w", v.Name, c.Name, err)
				}
				if data, ok := s.Data[itemKey(v.Secret.Items, rel)]; ok {
					return data, nil
				}
			case v.ConfigMap != nil:
				cm, err := r.c.client.CoreV1().ConfigMaps(pod.Namespace).Get(ctx, v.ConfigMap.Name, metav1.GetOptions{})
				if err != nil {
					return nil, fmt.Errorf("volume %s of container %s: %w", v.Name, c.Name, err)
				}
				if data, ok := cm.Data[itemKey(v.ConfigMap.Items, rel)]; ok {
					return []byte(data), nil
				}
			}
			return nil, fmt.Errorf("volume %s of container %s has no file %s", v.Name, c.Name, rel)
		}
	}
	return nil, fmt.Errorf("no volume of container %s holds %s", c.Name, file)
}

// itemKey is the key of the object a volume file comes from: the item
// placed at rel, else rel itself.
func itemKey(items []corev1.KeyToPath, rel string) string {
	for _, it := range items {
		if it.Path == rel {
			return it.Key
		}
	}
	return rel
}
