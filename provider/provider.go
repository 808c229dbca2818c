// Package provider names the contract every sliceway provider implements.
package provider

import (
	"context"

	"github.com/sliceway/sliceway/config/dynamic"
)

// Provider builds dynamic configurations and sends them on a channel.
type Provider interface {
	// Init validates the options and prepares the provider; it does not
	// connect to anything.
	Init() error
	// Provide sends a first configuration once it has one, then a new one
	// each time the configuration changes. It returns when ctx is done (with
	// nil), never blocking on a slow reader past that. Configurations sent
	// are shared: the reader must not modify them.
	Provide(ctx context.Context, out chan<- dynamic.Message) error
}
