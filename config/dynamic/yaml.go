package dynamic

import (
	"bytes"
	"encoding/json"
	"strconv"

	yaml "go.yaml.in/yaml/v3"
)

// MarshalYAML encodes v (a Configuration, usually) as YAML with the JSON
// field names, keys sorted. It goes through JSON for the names, then writes
// YAML itself rather than converting the JSON text, so that keys of any
// length (a router named after a long path) are written correctly.
func MarshalYAML(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(numbers(generic)); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// numbers turns json.Number values into int64 or float64, so YAML writes
// them as numbers.
func numbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = numbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = numbers(e)
		}
	case json.Number:
		if i, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return i
		}
		if f, err := t.Float64(); err == nil {
			return f
		}
		return string(t)
	}
	return v
}
