package attach

import (
	"os"
	"path/filepath"
	"testing"
)

// TestExcludeFromGit: a project file holding the user's vigil path is
// listed in the repository's .git/info/exclude (once), and the line goes
// again on detach, leaving the user's own lines; outside a repository
// nothing is written. A linked work tree's exclude is the common one.
func TestExcludeFromGit(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	os.MkdirAll(filepath.Join(repo, ".git", "info"), 0o755)
	exclude := filepath.Join(repo, ".git", "info", "exclude")
	mine := "# git ls-files --others --exclude-from=.git/info/exclude\n*.log\n"
	os.WriteFile(exclude, []byte(mine), 0o644)
	file := filepath.Join(repo, ".claude", "settings.local.json")
	for range 2 {
		if _, err := ExcludeFromGit(file); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(exclude)
	if want := mine + excludeMark + "\n/.claude/settings.local.json\n"; string(b) != want {
		t.Errorf("exclude:\n%s\nwant:\n%s", b, want)
	}
	if got, err := UnexcludeFromGit(file); err != nil || got != exclude {
		t.Errorf("UnexcludeFromGit = %q, %v", got, err)
	}
	if b, _ := os.ReadFile(exclude); string(b) != mine {
		t.Errorf("after unexclude:\n%s\nwant:\n%s", b, mine)
	}

	// A linked work tree: .git is a file naming its git folder, whose
	// commondir is the main repository's.
	wt := filepath.Join(root, "wt")
	gd := filepath.Join(repo, ".git", "worktrees", "wt")
	os.MkdirAll(gd, 0o755)
	os.MkdirAll(wt, 0o755)
	os.WriteFile(filepath.Join(gd, "commondir"), []byte("../..\n"), 0o644)
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+gd+"\n"), 0o644)
	if got, err := ExcludeFromGit(filepath.Join(wt, ".pi", "extensions", "vigil.ts")); err != nil || got != exclude {
		t.Errorf("work tree: %q, %v; want %s", got, err, exclude)
	}

	// No repository: nothing written.
	plain := filepath.Join(root, "plain", ".claude", "settings.local.json")
	if got, err := ExcludeFromGit(plain); got != "" || err != nil {
		t.Errorf("outside a repository: %q, %v", got, err)
	}
}
