package k8s

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"
)

// Notify is told of every informer event: the kind of object, and whether
// the event can change the output (false for a dropped update).
type Notify func(kind string, changed bool)

// OnChange is told of the events that count, with the objects: nil and the
// new object for an add, the old and the new one for an update, the old one
// (possibly a cache.DeletedFinalStateUnknown) and nil for a delete. Renderers
// use it to recompute only what depends on the objects that changed.
type OnChange func(kind string, old, new any)

// EventHandler is the change filter at the door: adds and deletes always
// count; an update counts only when k.Changed says it can change the
// output. A resync (same resourceVersion) is dropped without looking
// further. notify and onChange may be nil.
func (k Keep) EventHandler(kind string, notify Notify, onChange OnChange) cache.ResourceEventHandler {
	tell := func(changed bool, old, new any) {
		if changed && onChange != nil {
			onChange(kind, old, new)
		}
		if notify != nil {
			notify(kind, changed)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { tell(true, nil, obj) },
		UpdateFunc: func(old, new any) {
			if sameVersion(old, new) {
				tell(false, old, new)
				return
			}
			tell(k.Changed(old, new), old, new)
		},
		DeleteFunc: func(obj any) { tell(true, obj, nil) },
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
