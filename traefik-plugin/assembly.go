package slicewayplugin

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// delta is a delta frame's change: the routers and services that are new
// or changed (null: removed), and when present, the rest of the
// configuration (everything but routers and services), whole.
type delta struct {
	Routers  map[string]json.RawMessage `json:"routers"`
	Services map[string]json.RawMessage `json:"services"`
	Rest     json.RawMessage            `json:"rest"`
}

// sections is a configuration split as a delta changes it: the http
// section's entries but routers and services, and the tls section.
type sections struct {
	HTTP map[string]json.RawMessage `json:"http,omitempty"`
	TLS  json.RawMessage            `json:"tls,omitempty"`
}

// assembly is the configuration the plugin last handed on, and the
// version serve gave it. Its text is what a full frame said; it is split
// into routers, services and the rest only when a delta comes.
type assembly struct {
	version uint64
	text    []byte

	split    bool
	routers  map[string]json.RawMessage
	services map[string]json.RawMessage
	rest     sections
}

// full takes a full frame's configuration.
func (a *assembly) full(version uint64, text []byte) {
	*a = assembly{version: version, text: text}
}

// apply takes a delta frame onto version base, and returns the whole
// configuration's new text. Nothing is changed when it fails: the
// plugin then starts a new stream, which begins with a full frame.
func (a *assembly) apply(version, base uint64, raw json.RawMessage) ([]byte, error) {
	if a.text == nil || base != a.version {
		return nil, fmt.Errorf("a delta onto version %d, where the plugin holds %d", base, a.version)
	}
	var d delta
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("a delta that cannot be read: %w", err)
	}
	var rest *sections
	if isConfiguration(d.Rest) {
		rest = &sections{}
		if err := json.Unmarshal(d.Rest, rest); err != nil {
			return nil, fmt.Errorf("the rest of a delta cannot be read: %w", err)
		}
	}
	if !a.split {
		if err := a.splitText(); err != nil {
			return nil, err
		}
	}
	patch(a.routers, d.Routers)
	patch(a.services, d.Services)
	if rest != nil {
		delete(rest.HTTP, "routers")
		delete(rest.HTTP, "services")
		a.rest = *rest
	}
	text, err := a.join()
	if err != nil {
		return nil, err
	}
	a.version, a.text = version, text
	return text, nil
}

// splitText splits the text of the last full frame.
func (a *assembly) splitText() error {
	var s sections
	if err := json.Unmarshal(a.text, &s); err != nil {
		return fmt.Errorf("the configuration cannot be read: %w", err)
	}
	a.routers, a.services = map[string]json.RawMessage{}, map[string]json.RawMessage{}
	if raw, ok := s.HTTP["routers"]; ok {
		if err := json.Unmarshal(raw, &a.routers); err != nil {
			return fmt.Errorf("the routers cannot be read: %w", err)
		}
		delete(s.HTTP, "routers")
	}
	if raw, ok := s.HTTP["services"]; ok {
		if err := json.Unmarshal(raw, &a.services); err != nil {
			return fmt.Errorf("the services cannot be read: %w", err)
		}
		delete(s.HTTP, "services")
	}
	a.rest, a.split = s, true
	return nil
}

func patch(held, change map[string]json.RawMessage) {
	for name, value := range change {
		if string(value) == "null" {
			delete(held, name)
		} else {
			held[name] = value
		}
	}
}

// join writes the whole configuration: the sections that hold nothing
// are left out, as serve leaves them out. The held values are valid JSON
// already (encoding/json checked them when it read them), so they are
// copied as they are: encoding/json would check and compact each again,
// which at 10,000 services costs more than all the rest.
func (a *assembly) join() ([]byte, error) {
	var out bytes.Buffer
	out.Grow(len(a.text) + len(a.text)/8)
	out.WriteByte('{')
	section := 0
	open := func(name string) {
		if section > 0 {
			out.WriteByte(',')
		}
		section++
		writeKey(&out, name)
	}
	entries := 0
	for k := range a.rest.HTTP {
		if k != "routers" && k != "services" {
			entries++
		}
	}
	if entries+len(a.routers)+len(a.services) > 0 {
		open("http")
		out.WriteByte('{')
		n := 0
		for _, m := range []struct {
			name   string
			values map[string]json.RawMessage
		}{{"routers", a.routers}, {"services", a.services}} {
			if len(m.values) == 0 {
				continue
			}
			if n > 0 {
				out.WriteByte(',')
			}
			n++
			writeKey(&out, m.name)
			writeObject(&out, m.values)
		}
		for k, v := range a.rest.HTTP {
			if k == "routers" || k == "services" {
				continue
			}
			if n > 0 {
				out.WriteByte(',')
			}
			n++
			writeKey(&out, k)
			out.Write(v)
		}
		out.WriteByte('}')
	}
	if isConfiguration(a.rest.TLS) {
		open("tls")
		out.Write(a.rest.TLS)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// writeObject writes values as a JSON object.
func writeObject(out *bytes.Buffer, values map[string]json.RawMessage) {
	out.WriteByte('{')
	first := true
	for k, v := range values {
		if !first {
			out.WriteByte(',')
		}
		first = false
		writeKey(out, k)
		out.Write(v)
	}
	out.WriteByte('}')
}

// writeKey writes "key": with the key quoted as JSON quotes it.
func writeKey(out *bytes.Buffer, key string) {
	quoted, _ := json.Marshal(key) // a string always encodes
	out.Write(quoted)
	out.WriteByte(':')
}
