package main

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"

	"github.com/sliceway/sliceway/config/static"
)

// given is an option as a source gives it.
type given struct {
	option
	where  string // as the source wrote it, for errors: --demo=yes, SLICEWAY_DEMO=yes, demo: yes in FILE
	value  string
	scalar bool // one value, not a list or a section's options
}

// readFlags reads args as paerser's flag parser does: --name=value,
// --name alone for a boolean or a section (true), --name value for the
// others. Where paerser would misread them it refuses them, naming the
// flag: an unknown flag (paerser takes the next argument for its value,
// or says "flag needs an argument"), a flag without its value, and an
// argument after the flags, which paerser drops without a word
// (`--demo false` is --demo=true and a lost "false").
func readFlags(args []string) ([]given, error) {
	var out []given
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			// paerser stops there and drops the rest.
			if i+1 < len(args) {
				return nil, fmt.Errorf("unexpected argument %q after --: every setting is a flag, --name=value", args[i+1])
			}
			break
		}
		if len(arg) < 2 || arg[0] != '-' {
			if n := len(out); n > 0 && out[n-1].takesNoValue() && !strings.Contains(args[i-1], "=") {
				return nil, fmt.Errorf("unexpected argument %q after %s: give its value after = (%s=%s)", arg, args[i-1], args[i-1], arg)
			}
			return nil, fmt.Errorf("unexpected argument %q: every setting is a flag, --name=value", arg)
		}
		name := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
		if name == "" || name[0] == '-' || name[0] == '=' {
			return nil, fmt.Errorf("bad flag syntax: %s", arg)
		}
		name, value, hasValue := strings.Cut(name, "=")
		o, ok := lookupOption(strings.Split(name, "."))
		if !ok {
			return nil, fmt.Errorf("unknown flag --%s%s", name, didYouMean(name, knownFlags, "--"))
		}
		switch {
		case hasValue:
		case o.takesNoValue():
			value = "true"
		case i+1 < len(args):
			i++
			value = args[i]
		default:
			return nil, fmt.Errorf("flag --%s needs a value: --%s=VALUE", name, name)
		}
		out = append(out, given{option: o, where: "--" + name + "=" + value, value: value, scalar: true})
	}
	return out, nil
}

// readEnv reads the SLICEWAY_* variables of environ as paerser does
// (SLICEWAY_PROVIDERS_KUBERNETESINGRESS_INGRESSCLASS is
// providers.kubernetesIngress.ingressClass). Those that name no option
// are left to paerser, which names them.
func readEnv(environ []string) []given {
	var out []given
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(strings.ToUpper(k), envPrefix) {
			continue
		}
		if o, ok := lookupOption(strings.Split(strings.ToLower(k[len(envPrefix):]), "_")); ok {
			out = append(out, given{option: o, where: kv, value: v, scalar: true})
		}
	}
	return out
}

// readFile reads the options of a configuration file, decoded as
// paerser decodes it (TOML, or YAML 1.2 for .yaml, .yml and .json, in
// which yes is a string). A file paerser cannot read gives nothing here:
// paerser says why.
func readFile(file string) []given {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	tree := map[string]any{}
	switch strings.ToLower(filepath.Ext(file)) {
	case ".toml":
		err = toml.Unmarshal(data, &tree)
	default:
		err = yaml.Unmarshal(data, &tree)
	}
	if err != nil {
		return nil
	}
	var out []given
	var walk func(m map[string]any, keys []string)
	walk = func(m map[string]any, keys []string) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			path := append(slices.Clip(keys), k)
			o, ok := lookupOption(path)
			if !ok {
				continue // paerser names it
			}
			g := given{option: o, where: strings.Join(path, ".") + " in " + file}
			switch v := m[k].(type) {
			case nil: // paerser skips it
			case map[string]any:
				if o.isSwitch() {
					out = append(out, g)
				}
				walk(v, path)
			case []any:
				out = append(out, g)
			default:
				g.value, g.scalar = scalarText(v), true
				g.where = fmt.Sprintf("%s: %s in %s", strings.Join(path, "."), g.value, file)
				out = append(out, g)
			}
		}
	}
	walk(tree, nil)
	return out
}

// scalarText is a file's value as paerser writes it before reading it
// into its field.
func scalarText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 6, 64), ".000000")
	}
	return fmt.Sprint(v)
}

// checkValues refuses a boolean's value that is not one (paerser
// would say only "strconv.ParseBool: parsing ...: invalid syntax"), and
// a provider switch's value other than true or false: paerser turns the
// provider off for any value but true, so --providers.kubernetesingressnginx=yes
// (or 1, or on) would run without it and say nothing.
func checkValues(list []given) error {
	var errs []error
	for _, g := range list {
		if !g.scalar {
			continue
		}
		switch {
		case g.isSwitch():
			if g.value != "" && !strings.EqualFold(g.value, "true") && !strings.EqualFold(g.value, "false") {
				errs = append(errs, fmt.Errorf("%s: %s is true (the provider runs) or false, not %q", g.where, g.name, g.value))
			}
		case g.isBool():
			if _, err := strconv.ParseBool(g.value); err != nil {
				errs = append(errs, fmt.Errorf("%s: %s is true or false, not %q", g.where, g.name, g.value))
			}
		}
	}
	return errors.Join(errs...)
}

// switchedOff are the providers (their names under providers) whose
// switch the source gives false, the last word winning: EnableDefault
// must not turn one of them back on.
func switchedOff(list []given) []string {
	var off []string
	for _, g := range list {
		if !g.isSwitch() || !g.scalar {
			continue
		}
		name := g.name[strings.LastIndex(g.name, ".")+1:]
		off = slices.DeleteFunc(off, func(n string) bool { return n == name })
		if strings.EqualFold(g.value, "false") {
			off = append(off, name)
		}
	}
	return off
}

// unreadOptions are the options the source gives that the ingress-nginx
// or the Gateway API provider takes but never reads, in the docs'
// spelling.
func unreadOptions(list []given) []string {
	var unread []string
	for _, g := range list {
		for _, name := range static.UnreadOptions() {
			if g.name == name && !slices.Contains(unread, name) {
				unread = append(unread, name)
			}
		}
	}
	return unread
}
