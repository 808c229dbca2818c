package translate

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A part of another kind of object than an Ingress (a Gateway API route)
// reports its problems under its own kind, names its matches as a route
// does, and is ordered beside Ingresses of the same name by kind, so that
// the order of parts stays total.
func TestPartOfAnotherKind(t *testing.T) {
	created := metav1.NewTime(time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC))
	route := &metav1.ObjectMeta{Namespace: "shop", Name: "cart", CreationTimestamp: created}
	var p Part
	p.BeginObject("HTTPRoute", route)
	require.Nil(t, p.Ingress)
	p.Problem(NewMatchRef(1, 0).String()+".path.value", SeverityError, errors.New("bad regular expression"))
	require.Len(t, p.Errs, 1)
	require.Equal(t, "HTTPRoute shop/cart: spec.rules[1].matches[0].path.value: bad regular expression", p.Errs[0].Error())

	var ing Part
	ing.Begin(&netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "cart", CreationTimestamp: created}})
	require.Equal(t, KindIngress, ing.Kind)
	require.Equal(t, "spec.rules[1].http.paths[0]", NewPathRef(1, 0).String())
	require.Negative(t, CompareParts(&p, &ing), "HTTPRoute sorts before Ingress at the same time and name")
	require.Positive(t, CompareParts(&ing, &p))
}
