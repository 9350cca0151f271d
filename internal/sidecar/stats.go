package sidecar

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/vigil-dev/vigil/internal/words"
)

// AskStats asks the sidecar listening on sock for its counters (GET
// /status), waiting at most a second for the answer.
func AskStats(ctx context.Context, sock string) (Stats, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://sidecar/status", nil)
	resp, err := client.Do(req)
	if err != nil {
		return Stats{}, fmt.Errorf("not answering: %w", err)
	}
	defer resp.Body.Close()
	var st Stats
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return st, fmt.Errorf("status: %w", err)
	}
	return st, nil
}

// Activity is the Activity column of `vigil status` for a sidecar.
func (st Stats) Activity() string {
	return fmt.Sprintf("%s, %s, %s (%s), %d withheld", words.Plural(st.Hooks, "hook"), words.Plural(st.Steps, "step"), words.Plural(st.Delivered, "note"), words.Plural(st.Blocks, "Stop block"), st.Withheld)
}
