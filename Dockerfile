# sliceway's image, for those who build with a container engine:
#
#   docker build -t sliceway:dev \
#     --build-arg VERSION=$(git describe --tags --always --dirty) \
#     --build-arg REVISION=$(git rev-parse HEAD) .
#   docker buildx build --platform linux/amd64,linux/arm64 -t REGISTRY/sliceway:TAG --push .
#
# `make image` builds the same image with no engine at all (tools/image):
# the static binary at /sliceway, run as 65532:65532, nothing to run
# beside it. The build flags below are tools/image's; its tests check
# that they agree.

# The compiler runs on the builder's platform and cross-compiles.
FROM --platform=$BUILDPLATFORM golang:1.26 AS build
ARG TARGETOS=linux
ARG TARGETARCH
WORKDIR /src
# The modules first, so that a change of source keeps them cached.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -ldflags="-s -w -X github.com/sliceway/sliceway/provider/kubernetes/ingress.Version=$VERSION" -o /out/sliceway ./cmd/sliceway

# distroless's static image: no shell, no package manager, user nonroot.
FROM gcr.io/distroless/static:nonroot
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title=sliceway \
      org.opencontainers.image.source=https://github.com/sliceway/sliceway \
      org.opencontainers.image.version=$VERSION \
      org.opencontainers.image.revision=$REVISION
COPY --from=build /out/sliceway /sliceway
USER 65532:65532
ENTRYPOINT ["/sliceway"]
