package ingress

import (
	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// ingressHandler keeps the Secret references up to date and queues the
// Secrets that just got referenced for their data (secretFetcher), then
// tells notify. The handler never waits on the API server: a render that
// comes before the data reports the certificate as pending, and the
// fetch's arrival renders again.
func (c *Client) ingressHandler() cache.ResourceEventHandler {
	return c.handler("Ingress", func(old, new any) {
		if c.plans != nil {
			c.plans.update(old, new)
		}
		c.secrets.add(c.refs.update(eventObject[*netv1.Ingress](old), eventObject[*netv1.Ingress](new)))
	})
}

// secretHandler catches the race where a Secret was transformed just
// before an Ingress first referred to it: its data is fetched then.
func (c *Client) secretHandler() cache.ResourceEventHandler {
	return c.handler("Secret", func(_, new any) {
		if s, ok := new.(*corev1.Secret); ok && k8s.DataDropped(s) && c.refs.has(s.Namespace, s.Name) {
			c.secrets.add([]string{s.Namespace + "/" + s.Name})
		}
	})
}

// handler does first with every event of kind (nil, obj for an add; old,
// new for an update; obj, nil for a delete), then passes it to the change
// filter when anybody listens: the client's own bookkeeping is up to date
// before a render hears of the change.
func (c *Client) handler(kind string, first func(old, new any)) cache.ResourceEventHandler {
	filter := c.keep.EventHandler(kind, c.notify, c.onChange)
	notify := c.listens()
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			first(nil, obj)
			if notify {
				filter.OnAdd(obj, false)
			}
		},
		UpdateFunc: func(old, new any) {
			first(old, new)
			if notify {
				filter.OnUpdate(old, new)
			}
		},
		DeleteFunc: func(obj any) {
			first(obj, nil)
			if notify {
				filter.OnDelete(obj)
			}
		},
	}
}

// listens says whether anybody is told of events.
func (c *Client) listens() bool { return c.notify != nil || c.onChange != nil }
