package hook

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRouter(t *testing.T) {
	dir := testDir(t)
	serve(t, dir, "s1", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"Stop"`) {
			w.Write([]byte(`{"decision":"block","reason":"r"}`))
			return
		}
		http.Error(w, "boom", 500)
	})
	var logged []string
	secret := strings.Repeat("ab", 24)
	mux := http.NewServeMux()
	mux.Handle("POST "+Pattern, &Router{Dir: dir, Secret: secret, Logf: func(f string, a ...any) { logged = append(logged, f) }})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	post := func(path, body string) (int, string) {
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post("/hook/"+secret+"/claude-code", stopEvent); code != 200 || body != `{"decision":"block","reason":"r"}` {
		t.Fatalf("forwarded: %d %q", code, body)
	}
	// Failing open: the sidecar's error is logged, the agent gets an
	// empty success.
	post2 := strings.Replace(stopEvent, "Stop", "PostToolUse", 1)
	if code, body := post("/hook/"+secret+"/claude-code", post2); code != 200 || body != "" || len(logged) != 1 {
		t.Fatalf("broken sidecar: %d %q, %d log lines", code, body, len(logged))
	}
	for _, path := range []string{"/hook/" + strings.Repeat("cd", 24) + "/claude-code", "/hook/" + secret + "/aider", "/hook/" + secret[:10] + "/claude-code"} {
		if code, _ := post(path, stopEvent); code != 404 {
			t.Errorf("%s: %d, want 404", path, code)
		}
	}
	resp, err := http.Get(srv.URL + "/hook/" + secret + "/claude-code")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == 200 {
		t.Fatal("GET answered")
	}
}
