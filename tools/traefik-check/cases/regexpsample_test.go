package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRegexpSample(t *testing.T) {
	for _, tc := range []struct {
		expr, want string
		ok         bool
	}{
		{`(?i)^/v1(/|$)(.*)`, "/v1/", true},
		{`(?i)^/api/v[0-9]+`, "/api/v0", true},
		{`(?:^|;)\s*(?i:canary)=always(?:;|$)`, "canary=always;", true},
		{`^Do[A-Z][a-z]+y$`, "DoAay", true},
		{`^[^/]+$`, "!", true},
		{`^a{3}$`, "aaa", true},
		{`^`, "", true},
		{`a$b`, "", false},
		{`(`, "", false},
	} {
		got, ok := regexpSample(tc.expr)
		assert.Equal(t, tc.ok, ok, tc.expr)
		if tc.ok {
			assert.Equal(t, tc.want, got, tc.expr)
		}
	}
}
