package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/config"
)

// Trusting the root of the file system, the home folder (or a folder
// holding it) or a folder that does not exist is refused with the reason;
// nothing is written.
func TestTrustRefusesWhatCannotBeAProject(t *testing.T) {
	root := t.TempDir()
	agent, home := filepath.Join(root, "agent"), filepath.Join(root, "home")
	proj := filepath.Join(home, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "file")
	writeFile(t, file, "")
	for _, tt := range []struct{ dir, want string }{
		{"/", "root of the file system"},
		{home, "home folder"},
		{root, "home folder"},
		{filepath.Join(root, "nonexistent"), "does not exist"},
		{file, "not a folder"},
	} {
		err := config.CheckTrustable(tt.dir, home)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CheckTrustable(%s) = %v, want an error saying %q", tt.dir, err, tt.want)
		}
	}
	if err := config.CheckTrustable(proj, home); err != nil {
		t.Errorf("a project under home: %v", err)
	}
	// Trust itself refuses what it can tell without the home folder.
	for _, dir := range []string{"/", filepath.Join(root, "nonexistent")} {
		if _, err := config.Trust(agent, dir, false); err == nil {
			t.Errorf("Trust(%s) succeeded", dir)
		}
	}
	if folders, _ := config.TrustedFolders(agent); len(folders) != 0 {
		t.Errorf("trusted %q after refusals", folders)
	}
}

// Revoking a folder that is trusted through a folder above it says so,
// and how to stop trusting it, instead of "not trusted".
func TestRevokeUnderTrustedParent(t *testing.T) {
	root := t.TempDir()
	agent, parent := filepath.Join(root, "agent"), filepath.Join(root, "src")
	child := filepath.Join(parent, "proj")
	if err := os.MkdirAll(child, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Trust(agent, parent, false); err != nil {
		t.Fatal(err)
	}
	_, err := config.Trust(agent, child, true)
	if err == nil {
		t.Fatal("revoking a folder that is not listed succeeded")
	}
	for _, w := range []string{child, "stays trusted through " + parent, "vigil trust --revoke " + parent} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	if strings.Contains(err.Error(), "is not trusted") {
		t.Errorf("error %q says the folder is not trusted", err)
	}
	// Listed itself and under a trusted parent: revoking it leaves it
	// trusted, and TrustedThrough says through what.
	if _, err := config.Trust(agent, child, false); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Trust(agent, child, true); err != nil {
		t.Fatal(err)
	}
	if through, err := config.TrustedThrough(agent, child); err != nil || through != parent {
		t.Errorf("TrustedThrough = %q, %v; want %s", through, err, parent)
	}
}
