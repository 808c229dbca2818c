package k8s

import (
	discoveryv1 "k8s.io/api/discovery/v1"
)

// ServiceNameIndex is the name of the EndpointSlice index by owning Service.
const ServiceNameIndex = "sliceway.io/service-name"

// ServiceIndexKey is the index key of a Service's slices.
func ServiceIndexKey(namespace, service string) string {
	return namespace + "/" + service
}

// IndexByServiceName indexes EndpointSlices by the Service named in their
// kubernetes.io/service-name label, so that finding a Service's slices never
// scans all slices. Slices without the label are not indexed.
func IndexByServiceName(obj any) ([]string, error) {
	slice, ok := obj.(*discoveryv1.EndpointSlice)
	if !ok {
		return nil, nil
	}
	name := slice.Labels[discoveryv1.LabelServiceName]
	if name == "" {
		return nil, nil
	}
	return []string{ServiceIndexKey(slice.Namespace, name)}, nil
}
