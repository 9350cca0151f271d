package sidecar

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestAwaitChange: a sidecar that cannot advise stops when one of its
// settings files is written, appears or goes, so that the next hook
// starts one that reads them again; it does not for a file left alone.
func TestAwaitChange(t *testing.T) {
	dir := t.TempDir()
	kept, edited, added := filepath.Join(dir, "kept.yml"), filepath.Join(dir, "edited.yml"), filepath.Join(dir, "added.yml")
	for _, f := range []string{kept, edited} {
		if err := os.WriteFile(f, []byte("advisor: [[["), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		change func() error
		want   string
	}{
		{"edited", func() error { return os.WriteFile(edited, []byte("advisor: {}\n# fixed\n"), 0o600) }, edited},
		{"appeared", func() error { return os.WriteFile(added, []byte("x: 1\n"), 0o600) }, added},
		{"removed", func() error { return os.Remove(edited) }, edited},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan string, 1)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			started := make(chan struct{})
			go func() {
				got <- AwaitChange(ctx, []string{kept, edited, added}, time.Millisecond, started)
			}()
			<-started // it has seen the files as they are
			if err := tc.change(); err != nil {
				t.Fatal(err)
			}
			select {
			case f := <-got:
				if f != tc.want {
					t.Fatalf("changed %q, want %q", f, tc.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no change seen")
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan string, 1)
	go func() { done <- AwaitChange(ctx, []string{kept}, time.Millisecond, nil) }()
	cancel()
	if f := <-done; f != "" {
		t.Fatalf("reported %q, which nobody touched", f)
	}
}
