package rule_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sliceway/sliceway/rule"
)

func TestMatchers(t *testing.T) {
	e := rule.MustParse(`Host("a") && (Path("/p") || !PathPrefix("/p/"))`)
	var got []string
	for _, mt := range rule.Matchers(e) {
		got = append(got, mt.Name+"="+mt.Value)
	}
	assert.Equal(t, []string{"Host=a", "Path=/p", "PathPrefix=/p/"}, got)
	assert.Panics(t, func() { rule.MustParse(`Host(`) })
}

func TestEqual(t *testing.T) {
	a := rule.MustParse(`Host("a") && Path("/")`)
	assert.True(t, rule.Equal(a, rule.MustParse(`host("a")&&Path("/")`)))
	assert.False(t, rule.Equal(a, rule.MustParse(`Host("a") || Path("/")`)))
	assert.False(t, rule.Equal(a, rule.MustParse(`Host("b") && Path("/")`)))
	assert.False(t, rule.Equal(a, rule.MustParse(`Host("a") && PathPrefix("/")`)))
	assert.False(t, rule.Equal(a, rule.MustParse(`Path("/") && Host("a")`)))
	assert.False(t, rule.Equal(rule.MustParse(`!Host("a")`), rule.MustParse(`Host("a")`)))
	assert.True(t, rule.Equal(nil, nil))
	assert.False(t, rule.Equal(a, nil))
	assert.False(t, rule.Equal(nil, a))
}

func TestPriority(t *testing.T) {
	// Traefik's default priority is the length of the rule in bytes.
	assert.Equal(t, 15, rule.Priority(`PathPrefix("/")`))
	assert.Equal(t, len(`Host("a.example") && PathPrefix("/app")`), rule.Priority(`Host("a.example") && PathPrefix("/app")`))
	assert.Equal(t, 14, rule.Priority(`Path("/é€")`), "bytes, not runes")
	assert.Greater(t, rule.Priority(`Host("a") && Path("/p")`), rule.Priority(`Host("a")`))
}

func ExamplePriority() {
	// A router without a priority gets the length of its rule: the more
	// specific rule is tried first.
	fmt.Println(rule.Priority(`Host("a.example") && PathPrefix("/api")`), rule.Priority(`Host("a.example")`))
	// Output:
	// 39 17
}
