package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	script := filepath.Join(t.TempDir(), "script.yaml")
	if err := os.WriteFile(script, []byte("rules:\n  - steps: [{text: hello from the cli}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	outR, outW := io.Pipe()
	var stderr strings.Builder
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--script", script, "--log", "-"}, outW, &stderr)
		outW.Close()
	}()

	lines := bufio.NewScanner(outR)
	if !lines.Scan() {
		t.Fatalf("no output; run: %v, stderr %q", <-done, stderr.String())
	}
	url, ok := strings.CutPrefix(lines.Text(), "fakellm listening on ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q", lines.Text())
	}

	resp, err := http.Post(url+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || !strings.Contains(string(body), "hello from the cli") {
		t.Fatalf("reply %d %s (%v)", resp.StatusCode, body, err)
	}
	// The request log follows on stdout.
	if !lines.Scan() || !strings.Contains(lines.Text(), `"path":"/v1/chat/completions"`) {
		t.Errorf("log line %q", lines.Text())
	}

	cancel()
	go io.Copy(io.Discard, outR) // drain anything else until run closes the pipe
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
}

func TestRunErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("rules:\n  - steps: [{txt: hi}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{nil, "usage: fakellm --script FILE"},
		{[]string{"--script", filepath.Join(t.TempDir(), "none.yaml")}, "none.yaml"},
		{[]string{"--script", bad}, "bad.yaml:2:"},
		{[]string{"--nope"}, "flag provided but not defined"},
	}
	for _, tt := range tests {
		var stderr strings.Builder
		err := run(t.Context(), tt.args, io.Discard, &stderr)
		if err == nil || !strings.Contains(err.Error()+stderr.String(), tt.want) {
			t.Errorf("run(%q) = %v (stderr %q), want %q", tt.args, err, stderr.String(), tt.want)
		}
	}
}
