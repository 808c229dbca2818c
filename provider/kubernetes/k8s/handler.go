package k8s

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"
)

// Notify is told of every informer event: the kind of object, and whether
// the event can change the output (false for a dropped update).
type Notify func(kind string, changed bool)

// EventHandler is the change filter at the door: adds and deletes always
// count; an update counts only when Changed says it can change the output.
// A resync (same resourceVersion) is dropped without looking further.
func EventHandler(kind string, notify Notify) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { notify(kind, true) },
		UpdateFunc: func(old, new any) {
			if sameVersion(old, new) {
				notify(kind, false)
				return
			}
			notify(kind, Changed(old, new))
		},
		DeleteFunc: func(any) { notify(kind, true) },
	}
}

func sameVersion(old, new any) bool {
	o, err := meta.Accessor(old)
	if err != nil {
		return false
	}
	n, err := meta.Accessor(new)
	if err != nil {
		return false
	}
	return o.GetResourceVersion() != "" && o.GetResourceVersion() == n.GetResourceVersion()
}
