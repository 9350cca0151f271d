package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookdConfig: the first attach --http chooses a loopback address
// and a secret and keeps them (0600); later ones reuse them; a damaged
// file is an error naming it, never silently replaced.
func TestHookdConfig(t *testing.T) {
	dir := t.TempDir()
	if _, ok, err := loadHookd(dir); ok || err != nil {
		t.Fatalf("no file: ok %v err %v", ok, err)
	}
	c, err := ensureHookdConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.Addr, "127.0.0.1:") || len(c.Secret) < 32 {
		t.Fatalf("config %+v", c)
	}
	if got := c.URL("claude-code"); got != "http://"+c.Addr+"/hook/"+c.Secret+"/claude-code" {
		t.Fatalf("URL %s", got)
	}
	fi, err := os.Stat(hookdFile(dir))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("hookd.json: %v, mode %v", err, fi.Mode().Perm())
	}
	again, err := ensureHookdConfig(dir)
	if err != nil || again != c {
		t.Fatalf("second ensure: %+v, %v; want the same %+v", again, err, c)
	}
	for _, bad := range []string{`{`, `{"addr":"127.0.0.1:1","secret":"short"}`, `{"secret":"` + strings.Repeat("a", 40) + `"}`} {
		os.WriteFile(hookdFile(dir), []byte(bad), 0o600)
		if _, err := ensureHookdConfig(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "hookd.json")) {
			t.Errorf("%s: err %v", bad, err)
		}
		if b, _ := os.ReadFile(hookdFile(dir)); string(b) != bad {
			t.Errorf("%s: the damaged file was replaced", bad)
		}
	}
}
