package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
	"sigs.k8s.io/yaml"

	"github.com/sliceway/sliceway/config/static"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
)

// An empty list and no list at all mean opposite things for
// crossProviderNamespaces: unset, every namespace may name other
// providers' objects; [], none may. paerser reads an empty list as no
// list from every source (an empty flag value, an empty variable, [] in
// a YAML or TOML file), which would turn "none" into "all" without a
// word; Traefik's own loader does so. After paerser has loaded the
// configuration, the loader looks in the source it used for these
// options given empty, and sets them to an empty list.

// emptyList is a list option whose empty value is not its unset one.
type emptyList struct {
	path []string // as a file spells it: providers, kubernetesIngress, crossProviderNamespaces
	set  func(cfg *static.Configuration)
}

var emptyLists = []emptyList{{
	path: []string{"providers", "kubernetesIngress", "crossProviderNamespaces"},
	set: func(cfg *static.Configuration) {
		if cfg.Providers == nil {
			cfg.Providers = &static.Providers{}
		}
		p := cfg.Providers.KubernetesIngress
		if p == nil {
			// Giving an option of the provider configures it, as paerser
			// does for any other.
			p = &ingress.Provider{}
			p.SetDefaults()
			cfg.Providers.KubernetesIngress = p
		}
		if p.CrossProviderNamespaces == nil {
			p.CrossProviderNamespaces = []string{}
		}
	},
}}

// flagName is the option's flag, without its dashes.
func (e emptyList) flagName() string { return strings.ToLower(strings.Join(e.path, ".")) }

// envName is the option's environment variable.
func (e emptyList) envName() string { return envPrefix + strings.ToUpper(strings.Join(e.path, "_")) }

// setEmptyFromFlags sets the options whose last flag among args has an
// empty value (--name= or --name "").
func setEmptyFromFlags(cfg *static.Configuration, args []string) {
	for _, e := range emptyLists {
		empty := false
		for i := 0; i < len(args); i++ {
			if !strings.HasPrefix(args[i], "-") {
				continue
			}
			name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
			if !strings.EqualFold(name, e.flagName()) {
				continue
			}
			if !hasValue && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				value, hasValue = args[i], true
			}
			empty = hasValue && value == ""
		}
		if empty {
			e.set(cfg)
		}
	}
}

// setEmptyFromEnv sets the options whose variable is set and empty.
func setEmptyFromEnv(cfg *static.Configuration, environ []string) {
	for _, e := range emptyLists {
		for _, kv := range environ {
			if name, value, _ := strings.Cut(kv, "="); strings.EqualFold(name, e.envName()) && value == "" {
				e.set(cfg)
			}
		}
	}
}

// setEmptyFromFile sets the options the file gives as an empty list (or
// an empty string, as an empty flag gives them).
func setEmptyFromFile(cfg *static.Configuration, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var tree map[string]any
	switch strings.ToLower(filepath.Ext(path)) {
	case ".toml":
		err = toml.Unmarshal(data, &tree)
	default: // .yaml, .yml, .json: what paerser reads as YAML
		err = yaml.Unmarshal(data, &tree)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, e := range emptyLists {
		if v, ok := lookupFold(tree, e.path); ok && isEmptyList(v) {
			e.set(cfg)
		}
	}
	return nil
}

// lookupFold is the value at path in a decoded file, its keys matched in
// any case, as paerser matches them.
func lookupFold(tree map[string]any, path []string) (any, bool) {
	var v any = tree
	for _, key := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		found := false
		for k, child := range m {
			if strings.EqualFold(k, key) {
				v, found = child, true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return v, true
}

func isEmptyList(v any) bool {
	switch v := v.(type) {
	case []any:
		return len(v) == 0
	case string:
		return v == ""
	}
	return false
}
