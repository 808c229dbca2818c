package attach

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Class is a GatewayClass as this controller sees it.
type Class struct {
	Name       string
	Generation int64
	// Ours is true when the class names this controller; status is written
	// only on classes, Gateways and route parents that are ours.
	Ours bool
	// Accepted is true when this controller will serve the class's Gateways.
	Accepted bool
	// Conditions are the class's computed conditions (Accepted), empty when
	// the class is not ours.
	Conditions []metav1.Condition
}

// ProcessClass decides whether a GatewayClass is ours and whether we accept
// it. A class naming another controller is not ours and gets no conditions.
// Ours is accepted unless it sets spec.parametersRef: this controller reads no
// parameters, so every referent is an unsupported kind, which the API asks
// to reject with InvalidParameters rather than ignore.
func ProcessClass(class *gatewayv1.GatewayClass, controllerName gatewayv1.GatewayController) Class {
	if class == nil || controllerName == "" || class.Spec.ControllerName != controllerName {
		c := Class{}
		if class != nil {
			c.Name, c.Generation = class.Name, class.Generation
		}
		return c
	}
	c := Class{Name: class.Name, Generation: class.Generation, Ours: true, Accepted: true}
	accepted := newCondition(string(gatewayv1.GatewayClassConditionStatusAccepted), true,
		gatewayv1.GatewayClassReasonAccepted, "GatewayClass is accepted by "+string(controllerName), class.Generation)
	if p := class.Spec.ParametersRef; p != nil {
		c.Accepted = false
		accepted = newCondition(string(gatewayv1.GatewayClassConditionStatusAccepted), false,
			gatewayv1.GatewayClassReasonInvalidParameters,
			fmt.Sprintf("GatewayClass %s: spec.parametersRef: %s is not supported: this controller takes no parameters",
				class.Name, parametersRefName(p)), class.Generation)
	}
	c.Conditions = []metav1.Condition{accepted}
	return c
}

func parametersRefName(p *gatewayv1.ParametersReference) string {
	name := string(p.Name)
	if p.Namespace != nil && *p.Namespace != "" {
		name = string(*p.Namespace) + "/" + name
	}
	gk := string(p.Kind)
	if p.Group != "" {
		gk += "." + string(p.Group)
	}
	return gk + " " + name
}
