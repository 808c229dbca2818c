package dynamic

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
)

// JSONEncoder encodes configurations one after another as compact JSON:
// the text encoding/json writes with HTML escaping off (keys sorted, a
// newline after). It keeps the text of each router, service and
// certificate, and takes it again for the very same pointer in the next
// configuration; it keeps the text of the routers and services sections
// too, and takes it again for the very same map. A provider that keeps the
// pointers of what did not change (as sliceway's does) and never modifies
// a configuration it sent gets, after a change of one load balancer among
// 10,000, the text of one service encoded and the rest copied, where
// encoding/json writes all of it again (60 ms and 19 MB here). A
// configuration must not be modified after it was encoded. The zero value
// is ready; an encoder is not safe for concurrent use.
type JSONEncoder struct {
	gen      uint32
	routers  fragments[*Router]
	services fragments[*Service]
	certs    fragments[*CertAndStores]
	// The text of the last routers and services sections, and their maps.
	routersSection, servicesSection section
	size                            int // of the last text

	scratch bytes.Buffer
	enc     *json.Encoder
}

// fragments are the texts of values, by pointer, with the generation
// (encoding) that last took them.
type fragments[T comparable] map[T]fragment

type fragment struct {
	key  string // for the values of a map: the key the text starts with
	text []byte
	gen  uint32
}

type section struct {
	m    reflect.Value // the map, compared by identity
	keys []string      // its keys, sorted
	text []byte
}

// Encode returns the JSON text of c.
func (e *JSONEncoder) Encode(c *Configuration) ([]byte, error) {
	if e.enc == nil {
		e.enc = json.NewEncoder(&e.scratch)
		e.enc.SetEscapeHTML(false)
		e.routers = fragments[*Router]{}
		e.services = fragments[*Service]{}
		e.certs = fragments[*CertAndStores]{}
	}
	e.gen++
	var out bytes.Buffer
	out.Grow(e.size + e.size/8)
	if err := e.configuration(&out, c); err != nil {
		// Nothing kept can be wrong, but start afresh all the same.
		*e = JSONEncoder{}
		return nil, err
	}
	e.routers.sweep(e.gen)
	e.services.sweep(e.gen)
	e.certs.sweep(e.gen)
	out.WriteByte('\n')
	e.size = out.Len()
	return out.Bytes(), nil
}

func (f fragments[T]) sweep(gen uint32) {
	maps.DeleteFunc(f, func(_ T, fr fragment) bool { return fr.gen != gen })
}

func (e *JSONEncoder) configuration(out *bytes.Buffer, c *Configuration) error {
	if c == nil {
		out.WriteString("null")
		return nil
	}
	out.WriteByte('{')
	first := true
	if c.HTTP != nil {
		first = false
		out.WriteString(`"http":`)
		if err := e.http(out, c.HTTP); err != nil {
			return err
		}
	}
	if c.TLS != nil {
		if !first {
			out.WriteByte(',')
		}
		out.WriteString(`"tls":{`)
		if len(c.TLS.Certificates) > 0 {
			out.WriteString(`"certificates":[`)
			for i, cert := range c.TLS.Certificates {
				if i > 0 {
					out.WriteByte(',')
				}
				if err := take(e, out, e.certs, cert); err != nil {
					return err
				}
			}
			out.WriteByte(']')
		}
		out.WriteByte('}')
	}
	out.WriteByte('}')
	return nil
}

func (e *JSONEncoder) http(out *bytes.Buffer, h *HTTPConfiguration) error {
	out.WriteByte('{')
	first := true
	field := func(name string) {
		if !first {
			out.WriteByte(',')
		}
		first = false
		out.WriteString(name)
	}
	if len(h.Routers) > 0 {
		field(`"routers":`)
		if err := mapSection(e, out, &e.routersSection, h.Routers, e.routers); err != nil {
			return err
		}
	}
	if len(h.Services) > 0 {
		field(`"services":`)
		if err := mapSection(e, out, &e.servicesSection, h.Services, e.services); err != nil {
			return err
		}
	}
	if len(h.Middlewares) > 0 {
		field(`"middlewares":`)
		if err := e.value(out, h.Middlewares); err != nil {
			return err
		}
	}
	if len(h.ServersTransports) > 0 {
		field(`"serversTransports":`)
		if err := e.value(out, h.ServersTransports); err != nil {
			return err
		}
	}
	out.WriteByte('}')
	return nil
}

// mapSection writes m, a map of routers or services, keys sorted: the text
// of the last one when m is that very map, else the text of each entry
// kept by its value's pointer (under the same key), or encoded.
func mapSection[T any](e *JSONEncoder, out *bytes.Buffer, last *section, m map[string]*T, texts fragments[*T]) error {
	id := reflect.ValueOf(m)
	if last.m.IsValid() && last.m.UnsafePointer() == id.UnsafePointer() {
		// The same map: the same keys and pointers. Mark them as taken.
		for _, v := range m {
			if fr, ok := texts[v]; ok {
				fr.gen = e.gen
				texts[v] = fr
			}
		}
		out.Write(last.text)
		return nil
	}
	// Mostly a changed map has the keys of the last one (a load balancer
	// replaced), and they need no sorting.
	keys := last.keys
	if len(keys) != len(m) || slices.ContainsFunc(keys, func(k string) bool { _, ok := m[k]; return !ok }) {
		keys = slices.Sorted(maps.Keys(m))
	}
	start := out.Len()
	out.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			out.WriteByte(',')
		}
		v := m[k]
		if v == nil {
			if err := e.value(out, k); err != nil {
				return err
			}
			out.WriteString(":null")
			continue
		}
		fr, ok := texts[v]
		if ok && fr.key == k {
			out.Write(fr.text)
		} else {
			from := out.Len()
			if err := e.value(out, k); err != nil {
				return err
			}
			out.WriteByte(':')
			if err := e.value(out, v); err != nil {
				return err
			}
			fr = fragment{key: k, text: slices.Clone(out.Bytes()[from:])}
		}
		fr.gen = e.gen
		texts[v] = fr
	}
	out.WriteByte('}')
	// The text is never written to once returned: the section can point
	// into it.
	*last = section{m: id, keys: keys, text: out.Bytes()[start:out.Len():out.Len()]}
	return nil
}

// take writes the text of v, an element of a list: kept, or encoded and kept.
func take[T any](e *JSONEncoder, out *bytes.Buffer, texts fragments[*T], v *T) error {
	if v == nil {
		out.WriteString("null")
		return nil
	}
	fr, ok := texts[v]
	if !ok {
		start := out.Len()
		if err := e.value(out, v); err != nil {
			return err
		}
		fr.text = slices.Clone(out.Bytes()[start:])
	} else {
		out.Write(fr.text)
	}
	fr.gen = e.gen
	texts[v] = fr
	return nil
}

// value writes v as encoding/json does, without the newline.
func (e *JSONEncoder) value(out *bytes.Buffer, v any) error {
	e.scratch.Reset()
	if err := e.enc.Encode(v); err != nil {
		return err
	}
	out.Write(bytes.TrimSuffix(e.scratch.Bytes(), []byte{'\n'}))
	return nil
}
