package translate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/traefik/paerser/parser"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/excerpt"
)

// routerConfig is what the router.* annotations of an Ingress decode into.
type routerConfig struct {
	Router *routerAnnotations `json:"router,omitempty"`
}

type routerAnnotations struct {
	PathMatcher   string                   `json:"pathMatcher,omitempty"`
	EntryPoints   []string                 `json:"entryPoints,omitempty"`
	Middlewares   []string                 `json:"middlewares,omitempty"`
	Priority      int                      `json:"priority,omitempty"`
	TLS           *dynamic.RouterTLSConfig `json:"tls,omitempty" label:"allowEmpty"`
	Observability *routerObservability     `json:"observability,omitempty" label:"allowEmpty"`
	RuleSyntax    string                   `json:"ruleSyntax,omitempty"`
	ignored       []*annotationError       // keys of no known field: served without them
}

// serviceConfig is what the service.* annotations of a Service decode into.
type serviceConfig struct {
	Service *serviceAnnotations `json:"service,omitempty"`
}

type serviceAnnotations struct {
	ServersScheme    string          `json:"serversScheme,omitempty"`
	ServersTransport string          `json:"serversTransport,omitempty"`
	Middlewares      []string        `json:"middlewares,omitempty"`
	PassHostHeader   *bool           `json:"passHostHeader,omitempty"`
	Sticky           *dynamic.Sticky `json:"sticky,omitempty" label:"allowEmpty"`
	NativeLB         *bool           `json:"nativeLB,omitempty"`
	NodePortLB       bool            `json:"nodePortLB,omitempty"`
}

// indexedKey matches an indexed annotation such as router.tls.domains.0.main,
// which the label parser spells router.tls.domains[0].main.
var indexedKey = regexp.MustCompile(`^(.+)\.(\w+)\.(\d+)\.(.+)$`)

// annotationLabels turns the provider's annotations into paerser labels
// ("traefik.ingress.kubernetes.io/router.priority" -> "traefik.router.priority"),
// keeping the original annotation name of each label.
func annotationLabels(annotations map[string]string, group string) (map[string]string, map[string]string) {
	var labels, origin map[string]string
	for key, value := range annotations {
		rest, ok := strings.CutPrefix(key, AnnotationPrefix)
		if !ok || !strings.HasPrefix(strings.ToLower(rest), group+".") {
			continue
		}
		label := parser.DefaultRootName + "." + rest
		if indexedKey.MatchString(label) {
			label = indexedKey.ReplaceAllString(label, "$1.$2[$3].$4")
		}
		if labels == nil {
			labels = map[string]string{}
			origin = map[string]string{}
		}
		labels[label] = value
		origin[label] = key
	}
	return labels, origin
}

// annotationError is a bad annotation value; it names the annotation.
type annotationError struct {
	Annotation string
	Err        error
}

func (e *annotationError) Error() string {
	return fmt.Sprintf("annotation %s: %v", excerpt.Text(e.Annotation), e.Err)
}

// field names the annotation as a field of its object.
func (e *annotationError) field() string {
	return "metadata.annotations[" + excerpt.Text(e.Annotation) + "]"
}

func (e *annotationError) Unwrap() error { return e.Err }

// decodeAnnotations decodes the annotations of one group (router or service)
// into element. When decoding fails, each annotation is decoded alone to name
// the one at fault. An annotation that names no field of the group (a
// newer Traefik's, or a typo) is left out and given back in ignored, unless
// its name says it may be about access (mayGovernAccess): that one is an
// error, as before, and its object is not served.
func decodeAnnotations(annotations map[string]string, group string, element any, fresh func() any) (ignored []*annotationError, err error) {
	labels, origin := annotationLabels(annotations, group)
	if len(labels) == 0 {
		return nil, nil
	}
	filter := parser.DefaultRootName + "." + group + "."
	for _, label := range slices.Sorted(maps.Keys(labels)) {
		oneErr := decode(map[string]string{label: labels[label]}, fresh(), filter)
		if oneErr == nil || !strings.Contains(oneErr.Error(), "field not found") {
			continue
		}
		if mayGovernAccess(label) {
			return nil, &annotationError{Annotation: origin[label], Err: errors.New("not an annotation sliceway knows, and its name says it may be about access")}
		}
		ignored = append(ignored, &annotationError{Annotation: origin[label], Err: errors.New("not an annotation sliceway knows: ignored")})
		delete(labels, label)
	}
	if len(labels) == 0 {
		return ignored, nil
	}
	return ignored, decodeLabels(labels, origin, filter, element, fresh)
}

// mayGovernAccess says whether an unknown annotation's name may be about
// who reaches the backend or how TLS is set up, so that ignoring it could
// serve what it meant to keep closed.
func mayGovernAccess(label string) bool {
	l := strings.ToLower(label)
	for _, word := range []string{"auth", "allow", "deny", "ipwhitelist", "ipallowlist", "sourcerange", "tls", "mtls", "client", "middleware"} {
		if strings.Contains(l, word) {
			return true
		}
	}
	return false
}

// decodeLabels is decodeAnnotations once the unknown names are out.
func decodeLabels(labels, origin map[string]string, filter string, element any, fresh func() any) error {
	if err := checkControlCharacters(labels, origin); err != nil {
		return err
	}
	if err := checkNames(labels, origin); err != nil {
		return err
	}
	if err := checkSwitches(labels, origin); err != nil {
		return err
	}
	err := decode(labels, element, filter)
	if err == nil {
		return nil
	}
	keys := make([]string, 0, len(labels))
	for label := range labels {
		keys = append(keys, label)
	}
	slices.Sort(keys)
	for _, label := range keys {
		if oneErr := decode(map[string]string{label: labels[label]}, fresh(), filter); oneErr != nil {
			return &annotationError{Annotation: origin[label], Err: shortError(oneErr, labels[label])}
		}
	}
	names := make([]string, 0, len(keys))
	for _, label := range keys {
		names = append(names, origin[label])
	}
	return &annotationError{Annotation: strings.Join(names, ", "), Err: shortError(err, "")}
}

// shortError is an error of the label parser, whose text may hold the
// whole value (strconv's errors quote it) or a name of any length: the
// value is quoted as excerpt quotes it, and a text still long (a name) is
// cut.
func shortError(err error, value string) error {
	text := err.Error()
	short := text
	if len(value) > excerpt.Max {
		short = strings.ReplaceAll(short, strconv.Quote(value), excerpt.Quote(value))
	}
	if len(short) > 4*excerpt.Max {
		short = excerpt.Text(short)
	}
	if short == text {
		return err
	}
	return &shortened{text: short, err: err}
}

// shortened is an error told in fewer words.
type shortened struct {
	text string
	err  error
}

func (s *shortened) Error() string { return s.text }
func (s *shortened) Unwrap() error { return s.err }

// decode is parser.Decode, with a panic of the parser turned into an
// error: the annotations are anyone's input, and one Ingress's must never
// stop the render of the others.
func decode(labels map[string]string, element any, filter string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the annotation cannot be parsed (%s)", excerpt.Text(fmt.Sprint(p)))
		}
	}()
	return parser.Decode(labels, element, parser.DefaultRootName, filter)
}

// checkNames refuses an annotation name with an element that ends in "]"
// without opening an index with "[" after a field name ("sticky]",
// "[0]"): the parser fails on some of them and panics on others.
func checkNames(labels, origin map[string]string) error {
	for _, label := range slices.Sorted(maps.Keys(labels)) {
		for elem := range strings.SplitSeq(label, ".") {
			if strings.HasSuffix(elem, "]") && strings.IndexByte(elem, '[') < 1 {
				return &annotationError{Annotation: origin[label],
					Err: fmt.Errorf("%s is neither a field name nor a field name with an index in brackets", excerpt.Quote(elem))}
			}
		}
	}
	return nil
}

// checkControlCharacters refuses values holding control characters (NUL,
// newlines, DEL, ...): every value names something (an entry point, a
// middleware, a cookie) or is a number or a boolean, and none of those has
// them; passed on, they would reach Traefik's configuration or a header.
func checkControlCharacters(labels, origin map[string]string) error {
	for _, label := range slices.Sorted(maps.Keys(labels)) {
		value := labels[label]
		for i := 0; i < len(value); i++ {
			if c := value[i]; c < 0x20 || c == 0x7f {
				return &annotationError{Annotation: origin[label], Err: fmt.Errorf("%s holds a control character", excerpt.Quote(value))}
			}
		}
	}
	return nil
}

// switchLabels turn a whole section on (router.tls, router.observability,
// service.sticky, service.sticky.cookie). The label parser creates the section only for the
// exact value "true" and silently ignores any other; here the value must be
// a boolean ("1", "t", "TRUE" count as true), and false turns the section
// off together with every setting under it.
var switchLabels = []string{"traefik.router.tls", "traefik.router.observability", "traefik.service.sticky", "traefik.service.sticky.cookie"}

func checkSwitches(labels, origin map[string]string) error {
	var off []string
	// In name order, so that the same annotations always give the same error.
	for _, label := range slices.Sorted(maps.Keys(labels)) {
		value := labels[label]
		if !slices.Contains(switchLabels, strings.ToLower(label)) {
			continue
		}
		on, err := strconv.ParseBool(strings.TrimSpace(value))
		if err != nil {
			return &annotationError{Annotation: origin[label], Err: fmt.Errorf("%s is not a boolean", excerpt.Quote(value))}
		}
		if on {
			labels[label] = "true"
			continue
		}
		off = append(off, strings.ToLower(label))
	}
	for _, section := range off {
		for label := range labels {
			if l := strings.ToLower(label); l == section || strings.HasPrefix(l, section+".") {
				delete(labels, label)
			}
		}
	}
	return nil
}

// asWritten is the annotation whose name, after the prefix, is name in any
// case, as the user wrote it.
func asWritten(annotations map[string]string, name string) string {
	for key := range annotations {
		if rest, ok := strings.CutPrefix(key, AnnotationPrefix); ok && strings.EqualFold(rest, name) {
			return key
		}
	}
	return AnnotationPrefix + name
}

// domainAnnotation names the i-th router.tls.domains entry as written: the
// label parser orders the entries by their index as text.
func domainAnnotation(annotations map[string]string, i int) string {
	const section = "router.tls.domains."
	byIndex := map[string]string{}
	for key := range annotations {
		rest, ok := strings.CutPrefix(key, AnnotationPrefix)
		if !ok || len(rest) <= len(section) || !strings.EqualFold(rest[:len(section)], section) {
			continue
		}
		index, _, _ := strings.Cut(rest[len(section):], ".")
		if prev, seen := byIndex[index]; !seen || key < prev {
			byIndex[index] = key[:len(AnnotationPrefix)+len(section)+len(index)]
		}
	}
	indices := slices.Sorted(maps.Keys(byIndex))
	if i < len(indices) {
		return byIndex[indices[i]]
	}
	return fmt.Sprintf("%s%s%d", AnnotationPrefix, section, i)
}

var pathMatchers = []string{"Path", "PathPrefix", "PathRegexp"}

// noRouterAnnotations and noServiceAnnotations are what objects without
// any of the provider's annotations get; they are never modified.
var (
	noRouterAnnotations  = &routerAnnotations{}
	noServiceAnnotations = &serviceAnnotations{}
)

// hasAnnotations says whether any annotation starts with the provider's prefix.
func hasAnnotations(annotations map[string]string) bool {
	for key := range annotations {
		if strings.HasPrefix(key, AnnotationPrefix) {
			return true
		}
	}
	return false
}

// parseRouterAnnotations reads the router.* annotations of an Ingress.
func parseRouterAnnotations(annotations map[string]string) (*routerAnnotations, error) {
	if !hasAnnotations(annotations) {
		return noRouterAnnotations, nil
	}
	cfg := &routerConfig{}
	ignored, err := decodeAnnotations(annotations, "router", cfg, func() any { return &routerConfig{} })
	if err != nil {
		return nil, err
	}
	r := cfg.Router
	if r == nil {
		if ignored == nil {
			return noRouterAnnotations, nil
		}
		r = &routerAnnotations{}
	}
	r.ignored = ignored
	if err := checkObservability(r, annotations); err != nil {
		return nil, err
	}
	if r.PathMatcher != "" && !slices.Contains(pathMatchers, r.PathMatcher) {
		return nil, &annotationError{
			Annotation: asWritten(annotations, "router.pathmatcher"),
			Err:        fmt.Errorf("%s is not one of %s", excerpt.Quote(r.PathMatcher), strings.Join(pathMatchers, ", ")),
		}
	}
	if r.TLS != nil {
		for i, d := range r.TLS.Domains {
			if d.Main == "" && len(d.SANs) == 0 {
				name := domainAnnotation(annotations, i)
				return nil, &annotationError{
					Annotation: name,
					Err:        fmt.Errorf("%s has neither main nor sans", excerpt.Text(strings.TrimPrefix(name, AnnotationPrefix))),
				}
			}
		}
	}
	if err := checkRouterReferences(r, annotations); err != nil {
		return nil, err
	}
	return r, nil
}

var (
	serverSchemes = []string{"http", "https", "h2c"}
	sameSites     = []string{"none", "lax", "strict"}
)

// parseServiceAnnotations reads the service.* annotations of a Service.
func parseServiceAnnotations(annotations map[string]string) (*serviceAnnotations, error) {
	if !hasAnnotations(annotations) {
		return noServiceAnnotations, nil
	}
	cfg := &serviceConfig{}
	ignored, err := decodeAnnotations(annotations, "service", cfg, func() any { return &serviceConfig{} })
	if err != nil {
		return nil, err
	}
	if len(ignored) > 0 {
		// A Service has no warnings of its own: its load balancer is
		// built or not. An unknown service.* key is refused, as before.
		return nil, &annotationError{Annotation: ignored[0].Annotation, Err: errors.New("not an annotation sliceway knows")}
	}
	s := cfg.Service
	if s == nil {
		return noServiceAnnotations, nil
	}
	if s.ServersScheme != "" && !slices.Contains(serverSchemes, s.ServersScheme) {
		return nil, &annotationError{
			Annotation: asWritten(annotations, "service.serversscheme"),
			Err:        fmt.Errorf("%s is not one of %s", excerpt.Quote(s.ServersScheme), strings.Join(serverSchemes, ", ")),
		}
	}
	if s.Sticky != nil && s.Sticky.Cookie != nil {
		c := s.Sticky.Cookie
		if c.SameSite != "" && !slices.Contains(sameSites, strings.ToLower(c.SameSite)) {
			return nil, &annotationError{
				Annotation: asWritten(annotations, "service.sticky.cookie.samesite"),
				Err:        fmt.Errorf("%s is not one of %s", excerpt.Quote(c.SameSite), strings.Join(sameSites, ", ")),
			}
		}
	}
	if err := checkServiceReferences(s, annotations); err != nil {
		return nil, err
	}
	return s, nil
}

// annotationMemo remembers what sets of annotations decoded into. The
// Ingresses (and Services) deployed from one chart or kustomization carry
// the same annotations, and decoding them (by reflection, in the label
// parser) is most of the translation of an annotated Ingress: at 10,000
// Ingresses with three router annotations each, a full render took twice
// as long. A result is shared by every object with the same annotations,
// and never modified (translation copies what it takes of it). The sets
// seen last are kept, two generations of maxAnnotationSets.
type annotationMemo[T any] struct {
	mu     sync.Mutex
	sets   generations[string, annotationResult[T]]
	parsed int // sets decoded so far, for tests
}

type annotationResult[T any] struct {
	value T
	err   error
}

// maxAnnotationSets is how many sets a generation holds before it is rotated.
const maxAnnotationSets = 1024

// parse returns parse(annotations), decoded once for each set of the
// provider's annotations. Objects without any are decoded at once.
func (m *annotationMemo[T]) parse(annotations map[string]string, parse func(map[string]string) (T, error)) (T, error) {
	if !hasAnnotations(annotations) {
		return parse(annotations)
	}
	key := annotationKey(annotations)
	m.mu.Lock()
	r, ok := m.sets.get(key, maxAnnotationSets)
	m.mu.Unlock()
	if ok {
		return r.value, r.err
	}
	r.value, r.err = parse(annotations)
	m.mu.Lock()
	m.parsed++
	m.sets.put(key, r, maxAnnotationSets)
	m.mu.Unlock()
	return r.value, r.err
}

// annotationKey is the provider's annotations of an object, in the order
// of their names, each name and value after its length (so that no value
// can pass for more annotations): what decoding them depends on, errors
// included (they name the annotations as written).
func annotationKey(annotations map[string]string) string {
	return annotationSetKey(annotations, AnnotationPrefix)
}

// annotationSetKey is annotationKey for the annotations under prefix.
func annotationSetKey(annotations map[string]string, prefix string) string {
	return string(appendAnnotationSet(nil, annotations, prefix))
}

// appendAnnotationSet appends to b the key of the annotations under
// prefix: each name and value, by name, with their lengths.
func appendAnnotationSet(b []byte, annotations map[string]string, prefix string) []byte {
	var buf [8]string
	names := buf[:0]
	for name := range annotations {
		if strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		b = binary.AppendUvarint(b, uint64(len(name)))
		b = append(b, name...)
		value := annotations[name]
		b = binary.AppendUvarint(b, uint64(len(value)))
		b = append(b, value...)
	}
	return b
}
