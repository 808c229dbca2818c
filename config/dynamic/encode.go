package dynamic

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// JSONEncoder encodes configurations one after another as compact JSON:
// the text encoding/json writes with HTML escaping off (keys sorted, a
// newline after). It keeps the text of each router, service and
// certificate, and takes it again for the very same pointer in the next
// configuration, and the order of the keys of the routers and services
// maps, sorted again only when they change. A provider that keeps the
// pointers of what did not change (as sliceway's does) and never modifies
// a configuration it sent gets, after a change of one load balancer among
// 10,000, the text of one service encoded and the rest copied, where
// encoding/json writes all of it again (45 ms and 11.6 MB here). A
// configuration must not be modified after it was encoded. The zero value
// is ready; an encoder is not safe for concurrent use.
type JSONEncoder struct {
	texts   textCache
	scratch bytes.Buffer
	enc     *json.Encoder
}

// textCache is what an encoder keeps of the configurations it encoded.
type textCache struct {
	gen      uint32 // of the current encoding
	routers  fragments[*Router]
	services fragments[*Service]
	certs    fragments[*CertAndStores]
	// The last routers and services maps, and their keys in order.
	routersSection, servicesSection section
	size                            int // of the last text
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
	keys []string      // its keys, in order
}

// begin starts an encoding: the buffer to write it in.
func (c *textCache) begin() *bytes.Buffer {
	if c.routers == nil {
		c.routers = fragments[*Router]{}
		c.services = fragments[*Service]{}
		c.certs = fragments[*CertAndStores]{}
	}
	c.gen++
	out := &bytes.Buffer{}
	out.Grow(c.size + c.size/8)
	return out
}

// end finishes an encoding: what it did not take is forgotten.
func (c *textCache) end(out *bytes.Buffer) {
	c.routers.sweep(c.gen)
	c.services.sweep(c.gen)
	c.certs.sweep(c.gen)
	c.size = out.Len()
}

func (f fragments[T]) sweep(gen uint32) {
	maps.DeleteFunc(f, func(_ T, fr fragment) bool { return fr.gen != gen })
}

// writeSection writes the entries of m, a map of routers or services, in
// the order of cmp (strings.Compare for encoding/json's order), sep between them: the text of each entry kept by its
// value's pointer (under the same key), or written by entry and kept.
// The keys are sorted again only when they changed: mostly a new map is
// the last one (nothing changed) or has its keys (a load balancer
// replaced).
func writeSection[T any](gen uint32, out *bytes.Buffer, last *section, m map[string]*T, texts fragments[*T],
	cmp func(a, b string) int, sep string, entry func(out *bytes.Buffer, key string, v *T) error) error {
	id := reflect.ValueOf(m)
	keys := last.keys
	same := last.m.IsValid() && last.m.UnsafePointer() == id.UnsafePointer()
	if !same && (len(keys) != len(m) || slices.ContainsFunc(keys, func(k string) bool { _, ok := m[k]; return !ok })) {
		keys = slices.SortedFunc(maps.Keys(m), cmp)
	}
	for i, k := range keys {
		if i > 0 {
			out.WriteString(sep)
		}
		v := m[k]
		fr, ok := texts[v]
		if ok && fr.key == k {
			out.Write(fr.text)
		} else {
			from := out.Len()
			if err := entry(out, k, v); err != nil {
				return err
			}
			fr = fragment{key: k, text: slices.Clone(out.Bytes()[from:])}
		}
		if v != nil {
			fr.gen = gen
			texts[v] = fr
		}
	}
	// Only the map and its keys are kept: a text of the section would be
	// the same bytes again, or hold on to an old output.
	*last = section{m: id, keys: keys}
	return nil
}

// writeItem writes v, an item of a list: its text kept, or written by item
// and kept.
func writeItem[T any](gen uint32, out *bytes.Buffer, texts fragments[*T], v *T, item func(out *bytes.Buffer, v *T) error) error {
	fr, ok := texts[v]
	if ok {
		out.Write(fr.text)
	} else {
		start := out.Len()
		if err := item(out, v); err != nil {
			return err
		}
		fr.text = slices.Clone(out.Bytes()[start:])
	}
	if v != nil {
		fr.gen = gen
		texts[v] = fr
	}
	return nil
}

// Encode returns the JSON text of c.
func (e *JSONEncoder) Encode(c *Configuration) ([]byte, error) {
	if e.enc == nil {
		e.enc = json.NewEncoder(&e.scratch)
		e.enc.SetEscapeHTML(false)
	}
	out := e.texts.begin()
	if err := e.configuration(out, c); err != nil {
		// Nothing kept can be wrong, but start afresh all the same.
		*e = JSONEncoder{}
		return nil, err
	}
	out.WriteByte('\n')
	e.texts.end(out)
	return out.Bytes(), nil
}

func (e *JSONEncoder) configuration(out *bytes.Buffer, c *Configuration) error {
	if c == nil {
		out.WriteString("null")
		return nil
	}
	// Sections that hold nothing are left out (Configuration.MarshalJSON).
	out.WriteByte('{')
	if !c.HTTP.empty() {
		out.WriteString(`"http":`)
		if err := e.http(out, c.HTTP); err != nil {
			return err
		}
	}
	// The TCP routers are few (a host's passthrough each): written again
	// each time.
	if !c.TCP.empty() {
		if !c.HTTP.empty() {
			out.WriteByte(',')
		}
		out.WriteString(`"tcp":`)
		if err := e.value(out, c.TCP); err != nil {
			return err
		}
	}
	if !c.TLS.empty() {
		if !c.HTTP.empty() || !c.TCP.empty() {
			out.WriteByte(',')
		}
		out.WriteString(`"tls":{`)
		if len(c.TLS.Certificates) > 0 {
			out.WriteString(`"certificates":[`)
			for i, cert := range c.TLS.Certificates {
				if i > 0 {
					out.WriteByte(',')
				}
				if err := writeItem(e.texts.gen, out, e.texts.certs, cert, writeValue[*CertAndStores](e)); err != nil {
					return err
				}
			}
			out.WriteByte(']')
		}
		// Options are few (one per host that asks for client
		// certificates): written again each time.
		if len(c.TLS.Options) > 0 {
			if len(c.TLS.Certificates) > 0 {
				out.WriteByte(',')
			}
			out.WriteString(`"options":`)
			if err := e.value(out, c.TLS.Options); err != nil {
				return err
			}
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
		field(`"routers":{`)
		if err := writeSection(e.texts.gen, out, &e.texts.routersSection, h.Routers, e.texts.routers, strings.Compare, ",", writeEntry[Router](e)); err != nil {
			return err
		}
		out.WriteByte('}')
	}
	if len(h.Services) > 0 {
		field(`"services":{`)
		if err := writeSection(e.texts.gen, out, &e.texts.servicesSection, h.Services, e.texts.services, strings.Compare, ",", writeEntry[Service](e)); err != nil {
			return err
		}
		out.WriteByte('}')
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

// writeEntry writes "key":value.
func writeEntry[T any](e *JSONEncoder) func(out *bytes.Buffer, key string, v *T) error {
	return func(out *bytes.Buffer, key string, v *T) error {
		if err := e.value(out, key); err != nil {
			return err
		}
		out.WriteByte(':')
		return e.value(out, v)
	}
}

// writeValue writes v.
func writeValue[T any](e *JSONEncoder) func(out *bytes.Buffer, v T) error {
	return func(out *bytes.Buffer, v T) error { return e.value(out, v) }
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
