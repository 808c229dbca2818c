package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/rs/zerolog"
	"github.com/traefik/paerser/cli"

	"github.com/sliceway/sliceway/config/static"
)

// configSearchPaths are where a configuration file is looked for when
// --configfile does not name one, each with .toml, .yaml or .yml.
var configSearchPaths = []string{"/etc/sliceway/sliceway", "./sliceway"}

// envPrefix starts the environment variables that configure sliceway.
const envPrefix = "SLICEWAY_"

// configSource records where a command's configuration came from, so that
// the command says it at start.
type configSource struct {
	kind        string // "file", "flags", "environment" or "defaults"
	file        string
	ignoredArgs []string // flags given beside an explicit --configfile
	ignoredEnv  int      // SLICEWAY_* variables beside a file or flags
	unread      []string // options given that no provider reads
}

// loaders is the one resource loader of every command. As in Traefik, one
// source is used: a file (--configfile, else the first found in
// configSearchPaths), else flags, else the environment. A file found by the
// search while flags are given is refused: the flags would be silently
// ignored. An explicit --configfile wins over other flags, as in Traefik,
// and the start says which were ignored.
func loaders(src *configSource) []cli.ResourceLoader {
	return []cli.ResourceLoader{&sourceLoader{src: src}}
}

type sourceLoader struct{ src *configSource }

func (l *sourceLoader) Load(args []string, cmd *cli.Command) (bool, error) {
	// Every flag is checked, those a file makes ignored too: a misspelt
	// one is a mistake whichever source is used.
	flags, err := readFlags(args)
	if err != nil {
		return false, err
	}
	explicit, others := splitConfigFileArgs(args)
	// The file paerser will read, found as it finds it, so that its
	// values are checked before paerser reads them.
	var configFile string
	for _, g := range flags {
		if g.name == "configFile" {
			configFile = g.value
		}
	}
	finder := cli.Finder{BasePaths: configSearchPaths, Extensions: []string{"toml", "yaml", "yml"}}
	if path, err := finder.Find(configFile); err == nil && path != "" && (explicit || len(others) == 0) {
		if err := checkValues(readFile(path)); err != nil {
			return false, err
		}
	}
	file := &cli.FileLoader{ConfigFileFlag: "configfile", BasePaths: configSearchPaths}
	found, err := file.Load(args, cmd)
	if err != nil {
		return false, err
	}
	env := countEnv()
	cfg, _ := cmd.Configuration.(*static.Configuration)
	switch {
	case found && !explicit && len(others) > 0:
		return false, fmt.Errorf("the configuration file %s was found by the default search (%s, .toml, .yaml or .yml), and flags were given too (%s): "+
			"only one source is used; pass --configfile=%s to use the file, or move it away to use the flags",
			file.GetFilename(), strings.Join(configSearchPaths, ", "), strings.Join(others, " "), file.GetFilename())
	case found:
		*l.src = configSource{kind: "file", file: file.GetFilename(), ignoredArgs: others, ignoredEnv: env}
		if cfg != nil {
			if err := setEmptyFromFile(cfg, file.GetFilename()); err != nil {
				return false, err
			}
			l.src.apply(cfg, readFile(file.GetFilename()))
		}
		return true, nil
	}
	if err := checkValues(flags); err != nil {
		return false, err
	}
	if done, err := (&cli.FlagLoader{}).Load(args, cmd); err != nil || done {
		*l.src = configSource{kind: "flags", ignoredEnv: env}
		if cfg != nil && err == nil {
			setEmptyFromFlags(cfg, args)
			l.src.apply(cfg, flags)
		}
		return done, err
	}
	vars := readEnv(os.Environ())
	if err := checkValues(vars); err != nil {
		return false, err
	}
	if done, err := (&cli.EnvLoader{Prefix: envPrefix}).Load(args, cmd); err != nil || done {
		*l.src = configSource{kind: "environment"}
		if cfg != nil && err == nil {
			setEmptyFromEnv(cfg, os.Environ())
			l.src.apply(cfg, vars)
		}
		return done, err
	}
	*l.src = configSource{kind: "defaults"}
	return false, nil
}

// apply takes from the options the source gave what paerser does not
// keep: the providers switched off, and the options no provider reads
// (said at start).
func (s *configSource) apply(cfg *static.Configuration, list []given) {
	if off := switchedOff(list); len(off) > 0 {
		if cfg.Providers == nil {
			cfg.Providers = &static.Providers{}
		}
		for _, name := range off {
			cfg.Providers.SwitchOff(name)
		}
	}
	s.unread = unreadOptions(list)
}

// splitConfigFileArgs tells whether --configfile is among the arguments
// and returns the others.
func splitConfigFileArgs(args []string) (explicit bool, others []string) {
	for i := 0; i < len(args); i++ {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if strings.HasPrefix(args[i], "-") && strings.EqualFold(name, "configfile") {
			explicit = true
			if !hasValue && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
			}
			continue
		}
		others = append(others, args[i])
	}
	return explicit, others
}

func countEnv() int {
	n := 0
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, envPrefix) {
			n++
		}
	}
	return n
}

// newLogger builds the command's logger and says where the configuration
// came from, and what it ignored.
func newLogger(cfg *static.Configuration, src *configSource) (zerolog.Logger, error) {
	logger, err := cfg.Log.NewLogger(os.Stderr)
	if err != nil {
		return logger, err
	}
	if src == nil || src.kind == "" {
		return logger, nil
	}
	// Said once: the fields name the source and the file.
	ev := logger.Info().Str("source", src.kind)
	if src.file != "" {
		ev = ev.Str("file", src.file)
	}
	ev.Msg("configuration read")
	if len(src.ignoredArgs) > 0 {
		logger.Warn().Strs("ignored", src.ignoredArgs).Str("file", src.file).
			Msg("flags given beside --configfile are ignored: the file is the whole configuration")
	}
	if src.ignoredEnv > 0 {
		logger.Warn().Int("variables", src.ignoredEnv).Msgf("%s* environment variables are ignored: the configuration comes from %s", envPrefix, src.describe())
	}
	for _, name := range src.unread {
		provider := "ingress-nginx"
		if strings.HasPrefix(name, static.GatewaySection+".") {
			provider = "Gateway API"
		}
		logger.Warn().Msgf("%s is not read by the %s provider (see docs/configuration.md)", name, provider)
	}
	return logger, nil
}

func (s *configSource) describe() string {
	switch s.kind {
	case "file":
		return "the file " + s.file
	case "defaults":
		return "the defaults (no file, flag or " + envPrefix + "* variable)"
	}
	return s.kind
}
