package translate

import (
	"fmt"
)

// Severity tells how bad an ObjectError is.
type Severity int

const (
	// SeverityError: a part of the configuration could not be built.
	SeverityError Severity = iota
	// SeverityWarning: something was dropped or ignored; what is left is still correct.
	SeverityWarning
)

// ObjectError is a problem with one Kubernetes object. Translation reports it
// and goes on: the rest of the configuration is still built.
type ObjectError struct {
	Kind      string // Ingress, Service, Secret, EndpointSlice, IngressClass
	Namespace string
	Name      string
	Field     string // the field path, e.g. spec.rules[0].http.paths[1].backend.service.port
	Severity  Severity
	Err       error
}

func (e *ObjectError) Error() string {
	obj := e.Name
	if e.Namespace != "" {
		obj = e.Namespace + "/" + e.Name
	}
	if e.Field == "" {
		return fmt.Sprintf("%s %s: %v", e.Kind, obj, e.Err)
	}
	return fmt.Sprintf("%s %s: %s: %v", e.Kind, obj, e.Field, e.Err)
}

func (e *ObjectError) Unwrap() error { return e.Err }

// TranslationPanic is the error of an Ingress whose translation panicked:
// a bug in sliceway. The Ingress is skipped; the others are served. Stack
// is where it happened, for the report.
type TranslationPanic struct {
	Value any
	Stack []byte
}

func (tp *TranslationPanic) Error() string {
	return fmt.Sprintf("translation failed: %v (a bug in sliceway; the Ingress is skipped)", tp.Value)
}
