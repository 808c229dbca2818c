package match_test

import (
	"errors"
	"fmt"
	"time"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/match"
)

func Example() {
	// Two routes on one listener: one for every path of *.example.com,
	// a newer one for GET /api on shop.example.com, which goes first all
	// the same: its hostname is exact.
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	catchAll, err := match.HTTP([]string{"*.example.com"}, gatewayv1.HTTPRouteMatch{})
	if err != nil {
		fmt.Println(err)
		return
	}
	api, err := match.HTTP([]string{"shop.example.com"}, gatewayv1.HTTPRouteMatch{Path: prefix("/api"), Method: method("GET")})
	if err != nil {
		fmt.Println(err)
		return
	}
	orders := []match.Order{
		{Precedence: catchAll[0].Precedence, Created: created, Namespace: "web", Name: "all"},
		{Precedence: api[0].Precedence, Created: created.Add(time.Hour), Namespace: "shop", Name: "api"},
	}
	priorities, err := match.Priorities(orders, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(priorities[0], catchAll[0].Rule)
	fmt.Println(priorities[1], api[0].Rule)

	// A bad match names its field, which the caller places in the route.
	_, err = match.HTTP(nil, gatewayv1.HTTPRouteMatch{Path: regex("/(v1")})
	var fe *match.FieldError
	if errors.As(err, &fe) {
		fmt.Println(fe.Under("spec.rules[2].matches[0]"))
	}
	// Output:
	// 1 HostRegexp("^(?:[^.]+\\.)+example\\.com\\.?$") && PathPrefix("/")
	// 2 Host("shop.example.com") && (Path("/api") || PathPrefix("/api/")) && Method("GET")
	// spec.rules[2].matches[0].path.value: "/(v1": error parsing regexp: missing closing ): `/(v1`
}
