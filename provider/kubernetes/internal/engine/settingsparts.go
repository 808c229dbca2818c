package engine

import (
	"slices"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// Settings parts: what a provider's options add to the configuration that
// no Ingress of the cluster asks for (ingress-nginx's default backend
// service) is rendered from an Ingress the dialect makes
// (Dialect.SettingsIngresses), as a part like a served Ingress's, so that
// the objects it reads (the Service and its slices) reach it through the
// same render state as they reach every part. Such an Ingress is always
// served, is never in Result.Ingresses (no status is written for it), and
// its part is never told that an older Ingress took its place.

// isSettings says whether ing is one of the dialect's settings Ingresses.
func (r *Renderer) isSettings(ing *netv1.Ingress) bool {
	return slices.Contains(r.dialect.SettingsIngresses(), ing)
}

// serves says whether ing is rendered: a settings Ingress always is, an
// Ingress of the cluster when its class says so.
func (r *Renderer) serves(ing *netv1.Ingress) bool {
	return r.isSettings(ing) || r.classes.Serves(ing)
}

// lookUp is the Ingress of key: a settings Ingress, or the snapshot's.
func (r *Renderer) lookUp(getter ingressGetter, key translate.Key) *netv1.Ingress {
	for _, ing := range r.dialect.SettingsIngresses() {
		if ing.Namespace == key.Namespace && ing.Name == key.Name {
			return ing
		}
	}
	return getter.Ingress(key.Namespace, key.Name)
}

// withSettingsIngresses adds the dialect's settings Ingresses (without
// plans) to ings and their plans, keeping the order of their keys.
func (r *Renderer) withSettingsIngresses(ings []*netv1.Ingress, plans []*translate.Plan) ([]*netv1.Ingress, []*translate.Plan) {
	for _, ing := range r.dialect.SettingsIngresses() {
		at, _ := slices.BinarySearchFunc(ings, ing, compareIngressKeys)
		ings = slices.Insert(ings, at, ing)
		plans = slices.Insert(plans, at, nil)
	}
	return ings, plans
}
