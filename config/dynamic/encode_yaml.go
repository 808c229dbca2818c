package dynamic

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
)

// YAMLEncoder encodes configurations one after another as YAML, the text
// MarshalYAML writes, keeping the text of each router, service and
// certificate as JSONEncoder does, for the same reasons: MarshalYAML
// takes 2 seconds and 1.8 GB at 10,000 services of 19 servers (the YAML
// library keeps every event of a document until its end), and after a
// change of one load balancer the encoder writes one service and copies
// the rest. The routers and services are written entry by entry, each
// encoded by MarshalYAML at its place (inside the maps that lead to it,
// whose lines are left out), in the order the YAML library gives the keys
// of a map (yamlKeyCompare). A
// configuration must not be modified after it was encoded. The zero value
// is ready; an encoder is not safe for concurrent use.
type YAMLEncoder struct {
	texts textCache
}

// Encode returns the YAML text of c.
func (e *YAMLEncoder) Encode(c *Configuration) ([]byte, error) {
	// Sections that hold nothing are left out (Configuration.MarshalJSON).
	if c == nil || c.HTTP.empty() && c.TLS.empty() {
		return MarshalYAML(c)
	}
	out := e.texts.begin()
	if err := e.configuration(out, c); err != nil {
		*e = YAMLEncoder{}
		return nil, err
	}
	e.texts.end(out)
	return out.Bytes(), nil
}

func (e *YAMLEncoder) configuration(out *bytes.Buffer, c *Configuration) error {
	gen := e.texts.gen
	if h := c.HTTP; !h.empty() {
		out.WriteString("http:\n")
		// The fields in the order the YAML library writes them.
		for _, f := range []struct {
			present bool
			write   func() error
		}{
			{len(h.Middlewares) > 0, func() error { return yamlNested(out, map[string]any{"middlewares": h.Middlewares}, "http") }},
			{len(h.Routers) > 0, func() error {
				out.WriteString("  routers:\n")
				return writeSection(gen, out, &e.texts.routersSection, h.Routers, e.texts.routers, yamlKeyCompare, "", yamlSectionEntry[Router]("routers"))
			}},
			{len(h.ServersTransports) > 0, func() error { return yamlNested(out, map[string]any{"serversTransports": h.ServersTransports}, "http") }},
			{len(h.Services) > 0, func() error {
				out.WriteString("  services:\n")
				return writeSection(gen, out, &e.texts.servicesSection, h.Services, e.texts.services, yamlKeyCompare, "", yamlSectionEntry[Service]("services"))
			}},
		} {
			if !f.present {
				continue
			}
			if err := f.write(); err != nil {
				return err
			}
		}
	}
	if t := c.TCP; !t.empty() {
		if err := yamlNested(out, map[string]any{"tcp": t}); err != nil {
			return err
		}
	}
	if t := c.TLS; !t.empty() {
		out.WriteString("tls:\n")
		if len(t.Certificates) > 0 {
			out.WriteString("  certificates:\n")
			for _, cert := range t.Certificates {
				if err := writeItem(gen, out, e.texts.certs, cert, yamlListItem); err != nil {
					return err
				}
			}
		}
		// After certificates, as the YAML library orders the keys.
		if len(t.Options) > 0 {
			if err := yamlNested(out, map[string]any{"options": t.Options}, "tls"); err != nil {
				return err
			}
		}
	}
	return nil
}

// yamlSectionEntry writes an entry of http.<section>.
func yamlSectionEntry[T any](section string) func(out *bytes.Buffer, key string, v *T) error {
	return func(out *bytes.Buffer, key string, v *T) error {
		return yamlNested(out, map[string]any{key: v}, "http", section)
	}
}

// yamlListItem writes a certificate of tls.certificates.
func yamlListItem(out *bytes.Buffer, cert *CertAndStores) error {
	return yamlNested(out, []any{cert}, "tls", "certificates")
}

// yamlNested writes the text of v at its place below the keys path (each
// key a map of one entry), as MarshalYAML writes it there: MarshalYAML's
// text of v inside those maps, without their lines. Written where it
// goes, a scalar is indented (and broken, after a line or paragraph
// separator) as it is in the whole configuration.
func yamlNested(out *bytes.Buffer, v any, path ...string) error {
	for i := len(path) - 1; i >= 0; i-- {
		v = map[string]any{path[i]: v}
	}
	text, err := MarshalYAML(v)
	if err != nil {
		return err
	}
	for i, key := range path {
		line := strings.Repeat("  ", i) + key + ":\n"
		rest, ok := bytes.CutPrefix(text, []byte(line))
		if !ok {
			return fmt.Errorf("yaml: the text of %s does not start with %q", strings.Join(path, "."), line)
		}
		text = rest
	}
	out.Write(text)
	return nil
}

// yamlKeyCompare orders the keys of a map as the YAML library
// (go.yaml.in/yaml/v3) writes them, which is not the order of bytes:
// runs of digits compare as numbers ("r2" before "r10"), and where the
// keys first differ, a letter comes before a digit or other character
// when a digit came just before, after it otherwise.
func yamlKeyCompare(a, b string) int {
	switch {
	case a == b:
		return 0
	case yamlKeyLess(a, b):
		return -1
	default:
		return 1
	}
}

func yamlKeyLess(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	afterDigit := false
	n := min(len(ra), len(rb))
	i := 0
	for i < n && ra[i] == rb[i] {
		afterDigit = unicode.IsDigit(ra[i])
		i++
	}
	if i == n {
		return len(ra) < len(rb)
	}
	x, y := ra[i], rb[i]
	xLetter, yLetter := unicode.IsLetter(x), unicode.IsLetter(y)
	switch {
	case xLetter && yLetter:
		return x < y
	case xLetter != yLetter:
		if afterDigit {
			return xLetter
		}
		return yLetter
	}
	// Neither is a letter: the runs of digits from here, as numbers. A
	// zero that continues a number that is not all zeros counts (the
	// run 10 against 1x compares 10 with 1...).
	var nx, ny int64
	if x == '0' || y == '0' {
		for j := i - 1; j >= 0 && unicode.IsDigit(ra[j]); j-- {
			if ra[j] != '0' {
				nx, ny = 1, 1
				break
			}
		}
	}
	ex, ey := i, i
	for ; ex < len(ra) && unicode.IsDigit(ra[ex]); ex++ {
		nx = nx*10 + int64(ra[ex]-'0')
	}
	for ; ey < len(rb) && unicode.IsDigit(rb[ey]); ey++ {
		ny = ny*10 + int64(rb[ey]-'0')
	}
	switch {
	case nx != ny:
		return nx < ny
	case ex != ey:
		return ex < ey
	}
	return x < y
}
