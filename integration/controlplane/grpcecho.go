package controlplane

import (
	"context"
	"crypto/tls"
	"errors"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	pb "sigs.k8s.io/gateway-api/conformance/echo-basic/grpcechoserver"
)

// grpcEcho is the gRPC echo of a pod (a container with GRPC_ECHO_SERVER),
// as the conformance suite's GRPCRoute tests call it: Echo and EchoTwo
// answer with the method, the request's metadata and authority, the pod,
// and over TLS what the connection was; EchoThree is not implemented.
type grpcEcho struct {
	pb.UnimplementedGrpcEchoServer
	pod    echoPod
	secure bool
	srv    *grpc.Server
}

// startGRPCEcho serves the gRPC echo on l, over TLS with tlsConfig.
func startGRPCEcho(l net.Listener, pod echoPod, tlsConfig *tls.Config) *grpcEcho {
	var opts []grpc.ServerOption
	if tlsConfig != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(tlsConfig)))
	}
	e := &grpcEcho{pod: pod, secure: tlsConfig != nil, srv: grpc.NewServer(opts...)}
	pb.RegisterGrpcEchoServer(e.srv, e)
	go func() { _ = e.srv.Serve(l) }()
	return e
}

func (e *grpcEcho) close() { e.srv.Stop() }

func (e *grpcEcho) Echo(ctx context.Context, in *pb.EchoRequest) (*pb.EchoResponse, error) {
	return e.echo(ctx, "Echo", in)
}

func (e *grpcEcho) EchoTwo(ctx context.Context, in *pb.EchoRequest) (*pb.EchoResponse, error) {
	return e.echo(ctx, "EchoTwo", in)
}

func (e *grpcEcho) echo(ctx context.Context, method string, in *pb.EchoRequest) (*pb.EchoResponse, error) {
	md, ok := metadata.FromIncomingContext(ctx)
	if !ok {
		return nil, errors.New("no metadata in the request")
	}
	a := &pb.Assertions{
		FullyQualifiedMethod: "/" + pb.GrpcEcho_ServiceDesc.ServiceName + "/" + method,
		Context:              &pb.Context{Namespace: e.pod.namespace, Pod: e.pod.name},
	}
	for k, vs := range md {
		for _, v := range vs {
			if k == ":authority" {
				a.Authority = v
			}
			a.Headers = append(a.Headers, &pb.Header{Key: k, Value: v})
		}
	}
	if e.secure {
		p, ok := peer.FromContext(ctx)
		info, isTLS := p.AuthInfo.(credentials.TLSInfo)
		if !ok || !isTLS {
			return nil, errors.New("no TLS information of the connection")
		}
		// What the HTTP echo reports of a TLS connection, in the gRPC
		// echo's message.
		e := echoTLS(&info.State)
		t := &pb.TLSAssertions{Version: e.Version, NegotiatedProtocol: e.NegotiatedProtocol, ServerName: e.ServerName,
			CipherSuite: e.CipherSuite, PeerCertificates: e.PeerCertificates}
		a.TlsAssertions = t
	}
	return &pb.EchoResponse{Assertions: a, Request: in}, nil
}
