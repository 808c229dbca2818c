package filter

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Error is one problem with a route's filters or timeouts: the field it
// is in and the route condition the caller sets for it. A rule with an
// Error is never served as if the offending filter were absent.
type Error struct {
	// Field is the path of the offending field from the route's root,
	// e.g. spec.rules[0].filters[1].requestRedirect.port.
	Field string
	// Condition is the route condition that turns False: Accepted for a
	// value or a combination sliceway refuses, ResolvedRefs for a
	// reference it cannot follow (an ExtensionRef filter, whose rule
	// must then answer 500 rather than skip the filter).
	Condition gwapiv1.RouteConditionType
	// Reason is the condition's reason, one of Gateway API's.
	Reason gwapiv1.RouteConditionReason
	// Detail says what is wrong, in words for the route's status.
	Detail string
}

func (e *Error) Error() string { return e.Field + ": " + e.Detail }

// Errors are the problems of one call, in the order of the fields.
type Errors []*Error

func (es Errors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

// Unwrap lets errors.As find each *Error.
func (es Errors) Unwrap() []error {
	errs := make([]error, len(es))
	for i, e := range es {
		errs[i] = e
	}
	return errs
}

// unsupported is a value sliceway refuses: Gateway API's reason for an
// enum value it does not know, which is also the only standard reason
// for a value it cannot honour.
func unsupported(p *field.Path, format string, args ...any) *Error {
	return &Error{
		Field:     p.String(),
		Condition: gwapiv1.RouteConditionAccepted,
		Reason:    gwapiv1.RouteReasonUnsupportedValue,
		Detail:    fmt.Sprintf(format, args...),
	}
}

// incompatible is a combination of filters sliceway refuses.
func incompatible(p *field.Path, format string, args ...any) *Error {
	return &Error{
		Field:     p.String(),
		Condition: gwapiv1.RouteConditionAccepted,
		Reason:    gwapiv1.RouteReasonIncompatibleFilters,
		Detail:    fmt.Sprintf(format, args...),
	}
}

// invalidKind is a reference to a kind of object sliceway cannot use.
func invalidKind(p *field.Path, format string, args ...any) *Error {
	return &Error{
		Field:     p.String(),
		Condition: gwapiv1.RouteConditionResolvedRefs,
		Reason:    gwapiv1.RouteReasonInvalidKind,
		Detail:    fmt.Sprintf(format, args...),
	}
}

// asError is the error a function returns for es: nil when there is
// none, so that a caller's err != nil means a problem.
func (es Errors) asError() error {
	if len(es) == 0 {
		return nil
	}
	return es
}
