module github.com/sliceway/sliceway/traefik-plugin

go 1.22
