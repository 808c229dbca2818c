package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/config/static"
)

// Emptying, deleting or making unreadable serve.tokenFile revokes the
// token it held: within the reload interval no request passes with it
// (401 for every token request, counted as token_file_unusable), an
// error names the file, once; a valid token written again is taken.
func TestServeTokenFileFailsClosed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		unusable func(t *testing.T, file string)
		reason   string // in the log
	}{
		{"emptied", func(t *testing.T, file string) { require.NoError(t, os.WriteFile(file, []byte(" \n"), 0o600)) }, "the file is empty"},
		{"deleted", func(t *testing.T, file string) { require.NoError(t, os.Remove(file)) }, "no such file or directory"},
		// Unreadable as root too: a directory in its place (a mount gone
		// wrong); permissions do not stop root.
		{"unreadable", func(t *testing.T, file string) {
			require.NoError(t, os.Remove(file))
			require.NoError(t, os.Mkdir(file, 0o700))
		}, "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "token")
			require.NoError(t, os.WriteFile(file, []byte("old-token\n"), 0o600))
			var log liveBuffer
			m := newMetrics()
			creds, err := newCredentials(&static.Serve{TokenFile: file}, m.denied, zerolog.New(&log))
			require.NoError(t, err)
			srv := httptest.NewServer(creds.guard(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("secret")) })))
			defer srv.Close()
			get := func(token string) int {
				t.Helper()
				code, _, _, err := httpGetHeader(srv.URL, "Authorization", "Bearer "+token)
				require.NoError(t, err)
				return code
			}
			require.Equal(t, http.StatusOK, get("old-token"))

			tc.unusable(t, file)
			require.Eventually(t, func() bool { return get("old-token") == http.StatusUnauthorized }, 3*time.Second, 50*time.Millisecond,
				"the old token is revoked")
			for range 3 {
				assert.Equal(t, http.StatusUnauthorized, get("old-token"))
				assert.Equal(t, http.StatusUnauthorized, get(""), "no token")
			}
			assert.Equal(t, 7.0, counterValue(t, m.denied.WithLabelValues(deniedTokenUnusable)), "every request after the revocation")
			assert.Contains(t, log.String(), tc.reason)
			assert.Contains(t, log.String(), file, "the error names the file")
			assert.Equal(t, 1, strings.Count(log.String(), "serve.tokenFile cannot be used"), "said once")

			if tc.name == "unreadable" {
				require.NoError(t, os.Remove(file))
			}
			require.NoError(t, os.WriteFile(file, []byte("new-token"), 0o600))
			require.Eventually(t, func() bool { return get("new-token") == http.StatusOK }, 3*time.Second, 50*time.Millisecond,
				"a valid token written again is taken")
			assert.Equal(t, http.StatusUnauthorized, get("old-token"))
			assert.Contains(t, log.String(), "serve.tokenFile read again")
		})
	}
}

func httpGetHeader(url string, header ...string) (int, string, http.Header, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, "", nil, err
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	_ = res.Body.Close()
	return res.StatusCode, "", res.Header, nil
}
