package traefike2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// parseReports reads the JSON log of `sliceway render`: its errors and
// warnings about objects, as "field: message" (or the message alone), by
// the object's namespace.
func parseReports(log []byte) map[string][]string {
	out := map[string][]string{}
	lines := bufio.NewScanner(bytes.NewReader(log))
	lines.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for lines.Scan() {
		var l struct {
			Level     string `json:"level"`
			Namespace string `json:"namespace"`
			Field     string `json:"field"`
			Message   string `json:"message"`
		}
		if json.Unmarshal(lines.Bytes(), &l) != nil || l.Namespace == "" || (l.Level != "error" && l.Level != "warn") {
			continue
		}
		text := l.Message
		if l.Field != "" {
			text = l.Field + ": " + text
		}
		out[l.Namespace] = append(out[l.Namespace], text)
	}
	return out
}

// missingReports are the wanted texts that no report about namespace ns
// holds.
func missingReports(reports map[string][]string, ns string, want []string) []string {
	var missing []string
	for _, w := range want {
		if !slices.ContainsFunc(reports[ns], func(r string) bool { return strings.Contains(r, w) }) {
			missing = append(missing, w)
		}
	}
	return missing
}
