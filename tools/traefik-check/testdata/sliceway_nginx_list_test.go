package ingressnginx

// This file is copied into Traefik's pkg/provider/kubernetes/ingress-nginx
// by tools/traefik-check/run; it is not part of sliceway's build. It reads
// the list of the cases of Traefik's table that differ on purpose
// (tools/traefik-check/testdata/nginx-table-differences.txt, named by
// SLICEWAY_NGINX_DIFFERENCES) and checks that each entry's link names a
// section of the migration guide (SLICEWAY_NGINX_GUIDE) that exists. The
// check of Traefik's Ingress provider's tables uses it too (run copies it
// into that package), with its own list and documents.

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// slicewayListed is one entry of the list: why the case differs, and
// where the guide says so.
type slicewayListed struct {
	file   string // the list's base name, for messages
	line   int
	reason string
	link   string // docs/migrating-from-ingress-nginx.md#anchor
}

// slicewayGuidePath is the guide's path as the links write it.
const slicewayGuidePath = "docs/migrating-from-ingress-nginx.md"

// readSlicewayList reads the list: one case a line, "desc | reason |
// link", where desc is the case's desc in Traefik's table (with " #2" for
// the second case of the same desc), blank lines and lines starting with
// # aside. A link is one of docs (paths as the links write them, the
// migration guide when none is given) with a #section.
func readSlicewayList(name string, docs ...string) (map[string]slicewayListed, error) {
	if len(docs) == 0 {
		docs = []string{slicewayGuidePath}
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	list := map[string]slicewayListed{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, " | ")
		if len(parts) != 3 {
			return nil, fmt.Errorf("%s:%d: want \"desc | reason | link\", got %q", name, n, line)
		}
		desc, reason, link := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1]), strings.TrimSpace(parts[2])
		doc, _, _ := strings.Cut(link, "#")
		if reason == "" || !strings.Contains(link, "#") || !slices.Contains(docs, doc) {
			return nil, fmt.Errorf("%s:%d: %q needs a reason and a link to one of %s with #<section>", name, n, desc, strings.Join(docs, ", "))
		}
		if prev, ok := list[desc]; ok {
			return nil, fmt.Errorf("%s:%d: %q is listed already on line %d", name, n, desc, prev.line)
		}
		list[desc] = slicewayListed{file: filepath.Base(name), line: n, reason: reason, link: link}
	}
	return list, sc.Err()
}

// slicewayAnchors are the anchors GitHub gives the headings of a Markdown
// file: the heading's text in lower case, backticks and other punctuation
// dropped, spaces made hyphens; a repeated one gets -1, -2, ...
func slicewayAnchors(name string) (map[string]bool, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	anchors := map[string]bool{}
	seen := map[string]int{}
	inFence := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors, nil
}

// checkSlicewayListLinks fails for each entry whose link names no
// section of the guide.
func checkSlicewayListLinks(t *testing.T, list map[string]slicewayListed, guide string) {
	t.Helper()
	checkSlicewayListDocs(t, list, map[string]string{slicewayGuidePath: guide})
}

// checkSlicewayListDocs fails for each entry whose link names no section
// of its document; files maps each document, as the links write it, to
// its file.
func checkSlicewayListDocs(t *testing.T, list map[string]slicewayListed, files map[string]string) {
	t.Helper()
	anchors := map[string]map[string]bool{}
	for doc, file := range files {
		a, err := slicewayAnchors(file)
		if err != nil {
			t.Fatalf("the documents the list links to: %v", err)
		}
		anchors[doc] = a
	}
	for desc, l := range list {
		doc, anchor, _ := strings.Cut(l.link, "#")
		if !anchors[doc][anchor] {
			t.Errorf("%s:%d: %q links to %s, which is no section of %s", l.file, l.line, desc, l.link, doc)
		}
	}
}
