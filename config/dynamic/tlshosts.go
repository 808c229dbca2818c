package dynamic

import "strings"

// TLSHosts are the host names of the Host matchers of the router's rule,
// in lower case: those Traefik chooses a connection's TLS options by when
// the router has TLS (HostRegexp and HostSNI choose none). Strings in the
// rule are quoted with backquotes or double quotes.
func (r *Router) TLSHosts() []string {
	rule := r.Rule
	var hosts []string
	for i := 0; i < len(rule); {
		c := rule[i]
		switch {
		case c == '`' || c == '"':
			_, next := ruleString(rule, i)
			i = next
		case isRuleIdent(c):
			j := i
			for j < len(rule) && isRuleIdent(rule[j]) {
				j++
			}
			word := rule[i:j]
			i = j
			if word != "Host" {
				continue
			}
			for i < len(rule) && rule[i] == ' ' {
				i++
			}
			if i >= len(rule) || rule[i] != '(' {
				continue
			}
			i++
			for i < len(rule) {
				for i < len(rule) && (rule[i] == ' ' || rule[i] == ',') {
					i++
				}
				if i >= len(rule) || (rule[i] != '`' && rule[i] != '"') {
					break
				}
				var s string
				s, i = ruleString(rule, i)
				hosts = append(hosts, strings.ToLower(s))
			}
		default:
			i++
		}
	}
	return hosts
}

// ruleString reads the string literal at rule[i] (its quote): its text
// and where the rule goes on after it.
func ruleString(rule string, i int) (string, int) {
	quote := rule[i]
	var b strings.Builder
	for j := i + 1; j < len(rule); j++ {
		switch c := rule[j]; {
		case c == quote:
			return b.String(), j + 1
		case c == '\\' && quote == '"' && j+1 < len(rule):
			j++
			b.WriteByte(rule[j])
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), len(rule)
}

func isRuleIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
