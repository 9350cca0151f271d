package sidecar

import (
	"os"
	"strings"
	"testing"
)

// TestProcTranscriptRefusedOnce is item 11 of issue 28: a transcript
// path under /proc (its files say they are regular and empty, then read
// something) made the sidecar log "the file changed under the follower"
// at every poll for the session's life. It is refused with one clear
// error, logged once however many syncs and hooks follow, and told to
// the first hook only.
func TestProcTranscriptRefusedOnce(t *testing.T) {
	path := "/proc/self/status"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no procfs: %v", err)
	}
	sc, _, logs := newFollowing(t, path, Options{})
	for range 10 {
		sc.Sync()
	}
	sc.Handle(t.Context(), Input{SessionID: "s1", HookEventName: EventPostToolUse})
	first := sc.takeUntold()
	for range 10 {
		sc.Sync()
	}
	if changed := logs.with("changed under"); len(changed) > 0 {
		t.Errorf("logged %d times that the file changed, first %q; want it refused instead", len(changed), changed[0])
	}
	refused := logs.with(path)
	if len(refused) != 1 || !strings.Contains(refused[0], "proc") || !strings.Contains(refused[0], "not followed") {
		t.Errorf("log lines naming %s: %q; want one saying it is on procfs and not followed", path, refused)
	}
	if !strings.Contains(first, path) {
		t.Errorf("the first hook was told %q, want the refusal", first)
	}
	if again := sc.takeUntold(); again != "" {
		t.Errorf("told again: %q", again)
	}
}
