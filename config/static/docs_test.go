package static

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// optionNames lists the options of a configuration struct as the docs spell
// them: lowerCamel JSON names, nested ones joined with dots.
func optionNames(t reflect.Type, prefix string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			// Embedded options keep their names one level up, as paerser
			// and encoding/json read them.
			names = append(names, optionNames(f.Type, prefix)...)
			continue
		}
		if name == "-" {
			name = strings.ToLower(f.Name[:1]) + f.Name[1:]
		}
		if name == "" {
			continue
		}
		full := prefix + name
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && ft.PkgPath() != "" && !strings.Contains(ft.PkgPath(), "paerser") {
			names = append(names, optionNames(ft, full+".")...)
			continue
		}
		names = append(names, full)
	}
	return names
}

// TestConfigurationReferenceCoversEveryOption keeps docs/configuration.md in
// step with the options structs: every option must be named there, either
// in full (`providers.kubernetesIngress.x` is written `x` in the provider's
// table) or, for a nested one, as `.leaf` after its parent.
func TestConfigurationReferenceCoversEveryOption(t *testing.T) {
	data, err := os.ReadFile("../../docs/configuration.md")
	require.NoError(t, err)
	doc := string(data)
	names := optionNames(reflect.TypeOf(Configuration{}), "")
	require.Contains(t, names, "providers.kubernetesIngress.terminatingEndpoints", "the walk reaches the provider's options")
	for _, name := range names {
		// The ingress-nginx provider's options are the Traefik-style
		// one's (documented in its table) and its own (in its section).
		short := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(name, "providers.kubernetesIngress."), "providers.kubernetesIngressNGINX."), "providers.kubernetesGateway.")
		if name == "configFile" {
			short = "configfile"
		}
		leaf := short[strings.LastIndex(short, ".")+1:]
		documented := strings.Contains(doc, "`"+short+"`") ||
			strings.Contains(doc, "`"+short+"=") ||
			(strings.Contains(short, ".") && strings.Contains(doc, "`."+leaf+"`"))
		assert.True(t, documented, "option %s is not in docs/configuration.md", name)
	}
}
