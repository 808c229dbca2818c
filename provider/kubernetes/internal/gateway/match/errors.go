package match

import (
	"errors"
	"fmt"
	"regexp/syntax"

	"github.com/sliceway/sliceway/internal/excerpt"
)

// ErrUnsupported is wrapped by the error of a value that is valid in the
// API but that this package cannot turn into a rule: a type or method the
// API may add in a later version, or a match Traefik cannot make. The
// specification asks for such a route to be reported with the
// UnsupportedValue reason; errors.Is tells it from a value that is wrong.
var ErrUnsupported = errors.New("unsupported value")

// FieldError is a field of a match that cannot become a rule.
type FieldError struct {
	// Field is the path of the field inside the match, as the API writes
	// it: "path.value", "headers[2].name", "method.service". Under
	// prefixes it with where the match is in its route.
	Field string
	// Value is the field's value as the route has it ("" when it is
	// missing).
	Value string
	// Err says what is wrong: ErrUnsupported, a *syntax.Error of the
	// regexp package, or a sentence.
	Err error
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s: %s: %v", e.Field, excerpt.Quote(e.Value), e.Err)
}

func (e *FieldError) Unwrap() error { return e.Err }

// Under returns the error with prefix before its field:
// Under("spec.rules[0].matches[1]") turns "path.value" into
// "spec.rules[0].matches[1].path.value".
func (e *FieldError) Under(prefix string) *FieldError {
	c := *e
	c.Field = prefix + "." + e.Field
	return &c
}

// HostnameError is a hostname, of those the caller passed, that is not a
// Gateway API hostname (a DNS name in lower case, or one under a "*."
// wildcard label). The API never lets one through; this is for callers
// that read manifests the API server has not validated.
type HostnameError struct {
	Hostname string
}

func (e *HostnameError) Error() string {
	return fmt.Sprintf("hostname %s is not a precise or wildcard DNS name", excerpt.Quote(e.Hostname))
}

// fieldError builds a *FieldError whose reason is a sentence.
func fieldError(field, value, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Value: value, Err: fmt.Errorf(format, args...)}
}

// unsupported builds a *FieldError that wraps ErrUnsupported.
func unsupported(field, value, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Value: value, Err: fmt.Errorf("%w: "+format, append([]any{ErrUnsupported}, args...)...)}
}

// regexpError is an error of regexp.Compile with the part of the
// expression it quotes (all of it, for some errors) cut to excerpt.Max.
func regexpError(err error) error {
	var se *syntax.Error
	if errors.As(err, &se) && len(se.Expr) > excerpt.Max {
		return &syntax.Error{Code: se.Code, Expr: excerpt.Text(se.Expr)}
	}
	return err
}
