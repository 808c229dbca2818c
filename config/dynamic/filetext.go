package dynamic

import "bytes"

// FileProviderText returns text (YAML, as YAMLEncoder writes it) as a file
// for Traefik's file provider, which reads every file as a Go template
// (text/template, with Sprig's functions) before it decodes it. A "{{"
// anywhere in a configuration (an Ingress path, an annotation) would be
// an action there: one that does not parse makes Traefik refuse the whole
// file and keep its old routes, and one that does runs, so that a path
// such as /{{env `AWS_SECRET_ACCESS_KEY`}} would put the proxy's
// environment in a rule. Each "{{" is written as the action {{"{{"}},
// which gives it back: the template yields text, byte for byte. Text
// without "{{" is returned as it is.
func FileProviderText(text []byte) []byte {
	if !bytes.Contains(text, []byte("{{")) {
		return text
	}
	return bytes.ReplaceAll(text, []byte("{{"), []byte(`{{"{{"}}`))
}
