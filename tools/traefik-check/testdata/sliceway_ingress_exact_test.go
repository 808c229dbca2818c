package ingress

// This file is copied into Traefik's pkg/provider/kubernetes/ingress by
// tools/traefik-check/run; it is not part of sliceway's build. It compares
// two dynamic configurations exactly, as the JSON Traefik's HTTP provider
// would read (every field both write), and says where they differ.
//
// Two things are normalised before, and nothing else:
//   - an empty map or list is the same as none (Traefik's provider writes
//     empty sections, sliceway leaves them out; neither configures
//     anything);
//   - a fenced server's weight of 0: sliceway writes fenced servers with
//     weight 0 so that Traefik's file and HTTP providers, which drop
//     `fenced`, keep new requests away from them too, where Traefik's own
//     provider writes `fenced` alone (docs/translation.md, "Servers from
//     EndpointSlices").

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/traefik/traefik/v3/pkg/config/dynamic"
)

// slicewayExactDiffs lists the differences of ours from theirs, one line
// for each value that differs (a path into the configuration, both values).
func slicewayExactDiffs(theirs, ours *dynamic.Configuration) []string {
	a, b := slicewayTree(theirs), slicewayTree(ours)
	var diffs []string
	slicewayTreeDiff("", 0, a, b, &diffs)
	return diffs
}

// slicewayTree is the configuration as generic JSON, normalised.
func slicewayTree(conf *dynamic.Configuration) any {
	text, err := json.Marshal(conf)
	if err != nil {
		return fmt.Sprintf("not JSON: %v", err)
	}
	var tree any
	if err := json.Unmarshal(text, &tree); err != nil {
		return fmt.Sprintf("not JSON: %v", err)
	}
	slicewayFencedWeight(tree)
	return slicewayPrune(tree)
}

// slicewayFencedWeight drops the weight 0 of every fenced server.
func slicewayFencedWeight(tree any) {
	root, _ := tree.(map[string]any)
	http, _ := root["http"].(map[string]any)
	services, _ := http["services"].(map[string]any)
	for _, svc := range services {
		lb, _ := svc.(map[string]any)["loadBalancer"].(map[string]any)
		servers, _ := lb["servers"].([]any)
		for _, s := range servers {
			server, _ := s.(map[string]any)
			if server["fenced"] == true && server["weight"] == float64(0) {
				delete(server, "weight")
			}
		}
	}
}

// slicewayPrune leaves out empty maps and lists, and nulls, at every
// depth; nil when nothing is left.
func slicewayPrune(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if x = slicewayPrune(x); x == nil {
				delete(v, k)
			} else {
				v[k] = x
			}
		}
		if len(v) == 0 {
			return nil
		}
	case []any:
		var kept []any
		for _, x := range v {
			if x = slicewayPrune(x); x != nil {
				kept = append(kept, x)
			}
		}
		if len(kept) == 0 {
			return nil
		}
		return kept
	}
	return v
}

// slicewayTreeDiff appends a line for each place a and b differ: the
// keys of maps one by one, lists element by element when they are as
// long, any other value whole. Down to the routers, services, ... of a
// section (depth 3), a missing map counts as an empty one, so that each
// missing router is a line of its own.
func slicewayTreeDiff(path string, depth int, a, b any, diffs *[]string) {
	if reflect.DeepEqual(a, b) {
		return
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if depth < 3 && (aok && b == nil || bok && a == nil) {
		aok, bok = true, true
	}
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			slicewayTreeDiff(slicewayJoin(path, k), depth+1, am[k], bm[k], diffs)
		}
		return
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok && len(al) == len(bl) {
		for i := range al {
			slicewayTreeDiff(fmt.Sprintf("%s[%d]", path, i), depth+1, al[i], bl[i], diffs)
		}
		return
	}
	*diffs = append(*diffs, fmt.Sprintf("%s: Traefik %s | sliceway %s", path, slicewayValue(a), slicewayValue(b)))
}

func slicewayJoin(path, key string) string {
	if strings.ContainsAny(key, ".[] ") {
		key = fmt.Sprintf("%q", key)
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// slicewayValue is a value as JSON, long ones (certificates) cut short.
func slicewayValue(v any) string {
	if v == nil {
		return "none"
	}
	text, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	const most = 300
	if len(text) > most {
		return fmt.Sprintf("%s... (%d bytes)", text[:most], len(text))
	}
	return string(text)
}
