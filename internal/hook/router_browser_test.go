package hook

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vigil-dev/vigil/internal/hookwire"
)

// TestRouterRefusesBrowserRequests is item 7 of issue 28: any web page
// can POST to a loopback port, with a "simple" content type
// (text/plain, form data, none) and an Origin header. hookd answered
// 200 and forwarded the event, so a page that knew the URL could stop a
// live sidecar with a forged SessionEnd or start one on a file of its
// choice. Claude Code sends application/json and no Origin: a request
// with an Origin is refused (403), one that is not JSON too (415), and
// neither reaches the sidecar, whatever the secret.
func TestRouterRefusesBrowserRequests(t *testing.T) {
	dir := testDir(t)
	var reached atomic.Int32
	serve(t, dir, "s1", func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		w.WriteHeader(http.StatusNoContent)
	})
	secret := strings.Repeat("ab", 24)
	var spawned atomic.Int32
	mux := http.NewServeMux()
	mux.Handle("POST "+Pattern, &Router{Dir: dir, Secret: secret, Spawn: func(string) hookwire.Spawner {
		spawned.Add(1)
		return nil
	}})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	url := srv.URL + "/hook/" + secret + "/claude-code"
	end := `{"session_id":"s1","hook_event_name":"SessionEnd","transcript_path":"/t/s1.jsonl","cwd":"/w"}`
	start := `{"session_id":"s2","hook_event_name":"PostToolUse","transcript_path":"/etc/passwd","cwd":"/"}`
	for _, tc := range []struct {
		name, contentType, origin, body string
		want                            int
	}{
		{"text/plain with an Origin", "text/plain;charset=UTF-8", "http://evil.example", end, http.StatusForbidden},
		{"JSON with an Origin", "application/json", "http://evil.example", end, http.StatusForbidden},
		{"null Origin", "application/json", "null", start, http.StatusForbidden},
		{"text/plain", "text/plain", "", end, http.StatusUnsupportedMediaType},
		{"form", "application/x-www-form-urlencoded", "", start, http.StatusUnsupportedMediaType},
		{"multipart", "multipart/form-data; boundary=x", "", end, http.StatusUnsupportedMediaType},
		{"no content type", "", "", end, http.StatusUnsupportedMediaType},
	} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(tc.body))
		if tc.contentType != "" {
			req.Header.Set("Content-Type", tc.contentType)
		}
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("%d refused requests reached the sidecar", n)
	}
	if n := spawned.Load(); n != 0 {
		t.Errorf("%d refused requests asked for a sidecar to be started", n)
	}
	// What Claude Code sends still goes through.
	resp, err := http.Post(url, "application/json; charset=utf-8", strings.NewReader(end))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || reached.Load() != 1 {
		t.Errorf("Claude Code's request: %d, reached the sidecar %d times; want 200, once", resp.StatusCode, reached.Load())
	}
}
