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
// section's entries but routers and services, and the tcp and tls
// sections.
type sections struct {
	HTTP map[string]json.RawMessage `json:"http,omitempty"`
	TCP  json.RawMessage            `json:"tcp,omitempty"`
	TLS  json.RawMessage            `json:"tls,omitempty"`
}

// assembly is the configuration the plugin last handed on, and the
// version serve gave it. Its text is what a full frame said; it is split
// into routers, services and the rest only when deltas come.
type assembly struct {
	version uint64
	text    []byte

	split    bool
	routers  entries
	services entries
	rest     sections
}

// entries are the values of one map of the configuration, each kept as
// its `"name":value` text, so that the whole map is written with one
// bytes.Join: Traefik's interpreter runs the plugin's own loops slowly,
// and a delta then touches only the entries it names.
type entries struct {
	at    map[string]int // an entry's place in texts
	names []string
	texts [][]byte
}

func newEntries(values map[string]json.RawMessage) entries {
	e := entries{at: make(map[string]int, len(values)), names: make([]string, 0, len(values)), texts: make([][]byte, 0, len(values))}
	for name, value := range values {
		e.set(name, value)
	}
	return e
}

func (e *entries) set(name string, value json.RawMessage) {
	quoted, _ := json.Marshal(name) // a string always encodes
	text := make([]byte, 0, len(quoted)+1+len(value))
	text = append(append(append(text, quoted...), ':'), value...)
	if i, ok := e.at[name]; ok {
		e.texts[i] = text
		return
	}
	e.at[name] = len(e.texts)
	e.names = append(e.names, name)
	e.texts = append(e.texts, text)
}

// remove takes the entry out, moving the last one into its place.
func (e *entries) remove(name string) {
	i, ok := e.at[name]
	if !ok {
		return
	}
	last := len(e.texts) - 1
	e.texts[i], e.names[i] = e.texts[last], e.names[last]
	e.at[e.names[i]] = i
	e.texts, e.names = e.texts[:last], e.names[:last]
	delete(e.at, name)
}

// patch applies a delta's values: null removes.
func (e *entries) patch(change map[string]json.RawMessage) {
	for name, value := range change {
		if string(value) == "null" {
			e.remove(name)
		} else {
			e.set(name, value)
		}
	}
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
	a.routers.patch(d.Routers)
	a.services.patch(d.Services)
	if rest != nil {
		delete(rest.HTTP, "routers")
		delete(rest.HTTP, "services")
		a.rest = *rest
	}
	// One assignment each: Yaegi loses a.version in a, b = v, f().
	a.text = a.join()
	a.version = version
	return a.text, nil
}

// splitText splits the text of the last full frame.
func (a *assembly) splitText() error {
	var s sections
	if err := json.Unmarshal(a.text, &s); err != nil {
		return fmt.Errorf("the configuration cannot be read: %w", err)
	}
	var routers, services map[string]json.RawMessage
	if raw, ok := s.HTTP["routers"]; ok {
		if err := json.Unmarshal(raw, &routers); err != nil {
			return fmt.Errorf("the routers cannot be read: %w", err)
		}
		delete(s.HTTP, "routers")
	}
	if raw, ok := s.HTTP["services"]; ok {
		if err := json.Unmarshal(raw, &services); err != nil {
			return fmt.Errorf("the services cannot be read: %w", err)
		}
		delete(s.HTTP, "services")
	}
	a.routers = newEntries(routers)
	a.services = newEntries(services)
	a.rest, a.split = s, true
	return nil
}

// join writes the whole configuration: the sections that hold nothing
// are left out, as serve leaves them out. The held values are valid JSON
// already (encoding/json checked them when it read them), so they are
// copied as they are: encoding/json would check and compact each again,
// which at 10,000 services costs more than all the rest.
func (a *assembly) join() []byte {
	var inner [][]byte
	if len(a.routers.texts) > 0 {
		inner = append(inner, []byte(`"routers":{`), bytes.Join(a.routers.texts, []byte(",")), []byte("}"))
	}
	if len(a.services.texts) > 0 {
		if len(inner) > 0 {
			inner = append(inner, []byte(","))
		}
		inner = append(inner, []byte(`"services":{`), bytes.Join(a.services.texts, []byte(",")), []byte("}"))
	}
	for name, value := range a.rest.HTTP {
		if len(inner) > 0 {
			inner = append(inner, []byte(","))
		}
		quoted, _ := json.Marshal(name)
		inner = append(inner, quoted, []byte(":"), value)
	}
	var whole [][]byte
	if len(inner) > 0 {
		whole = append(whole, []byte(`"http":{`), bytes.Join(inner, nil), []byte("}"))
	}
	if isConfiguration(a.rest.TCP) {
		if len(whole) > 0 {
			whole = append(whole, []byte(","))
		}
		whole = append(whole, []byte(`"tcp":`), a.rest.TCP)
	}
	if isConfiguration(a.rest.TLS) {
		if len(whole) > 0 {
			whole = append(whole, []byte(","))
		}
		whole = append(whole, []byte(`"tls":`), a.rest.TLS)
	}
	return append(append([]byte("{"), bytes.Join(whole, nil)...), '}')
}
