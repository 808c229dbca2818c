package ingress

import (
	"context"
	"time"

	"k8s.io/client-go/kubernetes"
)

// RenderOnce starts informers on cs, waits for them to sync and translates
// one snapshot: what `sliceway render` does, against a real cluster or an
// in-memory one. copts.Provider, when not set, is opts.
func RenderOnce(ctx context.Context, cs kubernetes.Interface, opts *Provider, copts ClientOptions, syncTimeout time.Duration) (*Result, error) {
	if copts.Provider == nil {
		copts.Provider = opts
	}
	client, err := NewClient(cs, copts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer client.Shutdown()
	defer cancel()
	client.Start(ctx)
	if err := client.WaitForSync(ctx, syncTimeout); err != nil {
		return nil, err
	}
	r := NewRenderer(opts)
	res, _ := r.Render(client.Snapshot(), nil)
	if res.NeedsNodes && !client.WatchesNodes() {
		if err := client.EnsureNodes(ctx, syncTimeout); err != nil {
			return nil, err
		}
		res, _ = r.Render(client.Snapshot(), nil) // in full again, without checking the certificates again
	}
	return res, nil
}
