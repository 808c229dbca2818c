package main

import (
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/traefik/paerser/cli"
	"github.com/traefik/paerser/flag"
	"github.com/traefik/paerser/generator"
	ptypes "github.com/traefik/paerser/types"

	"github.com/sliceway/sliceway/config/static"
)

// The three commands share one configuration struct, but each reads only
// part of it. These are the options (and sections: every option under one)
// a command does not read, left out of its help so that the help answers
// "what can I set here".
var (
	notReadByRender = []string{
		"output", "outputmode", "serve", "followmanifests",
		// A single render writes no status, elects no leader, renders
		// once and waits for the caches with a fixed bound.
		"providers.kubernetesingress.ingressendpoint",
		"providers.kubernetesingress.leaderelection",
		"providers.kubernetesingress.throttleduration",
		"providers.kubernetesingress.synctimeout",
		"providers.kubernetesingressnginx.ingressendpoint",
		"providers.kubernetesingressnginx.leaderelection",
		"providers.kubernetesingressnginx.throttleduration",
		"providers.kubernetesingressnginx.synctimeout",
		"providers.kubernetesgateway.ingressendpoint",
		"providers.kubernetesgateway.leaderelection",
		"providers.kubernetesgateway.throttleduration",
		"providers.kubernetesgateway.synctimeout",
	}
	notReadByWatch = []string{"format", "serve"}
	notReadByServe = []string{"format", "output", "outputmode"}

	// notReadByAny are options no command reads: those the ingress-nginx
	// and Gateway API providers take from the Traefik-style one but never
	// read (static.UnreadOptions); listing them would suggest they change
	// that provider.
	notReadByAny = func() []string {
		var names []string
		for _, n := range static.UnreadOptions() {
			names = append(names, strings.ToLower(n))
		}
		return names
	}()
)

// sectionSwitches are flags paerser derives from a section pointer tagged
// allowEmpty that are left out of the help. The providers' switches
// (`--providers.kubernetesingress`, `--providers.kubernetesingressnginx`)
// turn a provider on, so they are listed.
var sectionSwitches = []string{}

// helpWrap is the width the descriptions are folded at, so that with their
// indent they fit 80 columns.
const helpWrap = 72

// commandHelp returns a help printer for a command without subcommands:
// its usage, then the flags it reads with their defaults written as a user
// would type them (durations as 15s or 2m, not paerser's bare seconds).
func commandHelp(notRead []string) func(io.Writer, *cli.Command) error {
	return func(w io.Writer, cmd *cli.Command) error {
		var flats []helpFlag
		if cmd.Configuration != nil {
			// As paerser's own help does: fill the nil sections, so that
			// their options are listed too.
			generator.Generate(cmd.Configuration)
			redoDefaults(cmd.Configuration)
			encoded, err := flag.Encode(cmd.Configuration)
			if err != nil {
				return err
			}
			defaults := typedDefaults(reflect.ValueOf(cmd.Configuration), "")
			for _, f := range encoded {
				if listed(f.Name, notRead) {
					flats = append(flats, helpFlag{name: f.Name, description: f.Description, value: defaultText(f.Name, f.Default, defaults)})
				}
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "Usage: sliceway %s [--flag=value ...]\n\n", cmd.Name)
		for _, line := range wrapWords(cmd.Description, helpWrap+8) {
			b.WriteString(line + "\n")
		}
		if len(flats) > 0 {
			b.WriteString("\nA boolean flag alone means true (--demo is --demo=true). A duration is\n" +
				"written 15s, 2m or 1h30m; a bare number is seconds. A list is comma-separated.\n\nFlags:\n")
			for _, f := range flats {
				fmt.Fprintf(&b, "    --%s  (Default: %q)\n", f.name, f.value)
				if f.description != "" {
					for _, line := range wrapWords(f.description, helpWrap) {
						b.WriteString("        " + line + "\n")
					}
				}
				b.WriteString("\n")
			}
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
}

type helpFlag struct{ name, description, value string }

// redoDefaults sets again the defaults of the sections whose own defaults
// set those of a nested section: Generate calls each nested section's
// SetDefaults after its parent's, which undoes them (the ingress-nginx
// provider's Lease is sliceway-nginx, not the nested default sliceway).
func redoDefaults(configuration any) {
	if c, ok := configuration.(*static.Configuration); ok && c.Providers != nil && c.Providers.KubernetesIngressNGINX != nil {
		c.Providers.KubernetesIngressNGINX.SetDefaults()
	}
	if c, ok := configuration.(*static.Configuration); ok && c.Providers != nil && c.Providers.KubernetesGateway != nil {
		c.Providers.KubernetesGateway.SetDefaults()
	}
}

// listed tells whether the flag belongs in the help: not a section switch,
// and not one of the options (or under one of the sections) not read.
func listed(name string, notRead []string) bool {
	for _, s := range sectionSwitches {
		if name == s {
			return false
		}
	}
	for _, n := range slices.Concat(notRead, notReadByAny) {
		if name == n || strings.HasPrefix(name, n+".") {
			return false
		}
	}
	return true
}

// defaultText is the default paerser wrote, or a better one for the types
// it writes poorly.
func defaultText(name, encoded string, typed map[string]string) string {
	if v, ok := typed[name]; ok {
		return v
	}
	return encoded
}

var durationType = reflect.TypeFor[ptypes.Duration]()

// typedDefaults walks the configuration and returns, by flag name (the
// lower-case field names joined with dots, as paerser names flags), the
// defaults of the durations (15s, 2m) and the floats (20, not 20.000000).
func typedDefaults(v reflect.Value, prefix string) map[string]string {
	out := map[string]string{}
	var walk func(v reflect.Value, prefix string)
	walk = func(v reflect.Value, prefix string) {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return
		}
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			name := prefix + strings.ToLower(f.Name)
			fv := v.Field(i)
			switch {
			case f.Anonymous:
				walk(fv, prefix) // paerser flattens an embedded struct's options
			case f.Type == durationType:
				out[name] = shortDuration(time.Duration(fv.Int()))
			case f.Type.Kind() == reflect.Float64 || f.Type.Kind() == reflect.Float32:
				out[name] = strconv.FormatFloat(fv.Float(), 'g', -1, 64)
			default:
				walk(fv, name+".")
			}
		}
	}
	walk(v, prefix)
	return out
}

// shortDuration writes d as the docs write durations: whole seconds under
// two minutes in seconds (60s, 90s), anything else as time.Duration does
// without the zero units it ends with (2m rather than 2m0s, 1h rather than
// 1h0m0s).
func shortDuration(d time.Duration) string {
	if d%time.Second == 0 && d < 2*time.Minute {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// wrapWords folds text into lines of at most width characters, breaking
// between words; a word longer than width has a line of its own.
func wrapWords(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
