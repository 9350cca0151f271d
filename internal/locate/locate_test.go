package locate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/internal/locate"
	"github.com/vigil-dev/vigil/session"
)

// write makes a file at path (its folders too) with text, changed at the
// given minute past a fixed hour, so that tests can order files.
func write(t *testing.T, path, text string, minute int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 10, minute, 0, 0, time.UTC)
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

func paths(f locate.Found) []string {
	var out []string
	for _, s := range f.Sessions {
		out = append(out, string(s.Agent)+" "+filepath.Base(s.Path))
	}
	return out
}

func equal(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("found\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestClaudeSlug(t *testing.T) {
	for _, c := range []struct{ cwd, want string }{
		{"/home/ana/src/vigil", "-home-ana-src-vigil"},
		{"/private/tmp/p/a_b.c d-e+f@g(h)", "-private-tmp-p-a-b-c-d-e-f-g-h-"},
		{"/home/ana/café", "-home-ana-caf-"},
		{"/home/ana/\U0001F600x", "-home-ana---x"}, // two UTF-16 units, two dashes
		{"/" + strings.Repeat("a", 300), "-" + strings.Repeat("a", 199)},
	} {
		if got := locate.ClaudeSlug(c.cwd); got != c.want {
			t.Errorf("ClaudeSlug(%q) = %q, want %q", c.cwd, got, c.want)
		}
	}
}

func TestPiAndOMPDirs(t *testing.T) {
	if got := locate.PiDir("/home/ana/src/x:y"); got != "--home-ana-src-x-y--" {
		t.Errorf("PiDir = %q", got)
	}
	got := locate.OMPDirs("/home/ana/src/x", "/home/ana", "/tmp")
	equal(t, got, []string{"-src-x", "--home-ana-src-x--"})
	got = locate.OMPDirs("/tmp/rec/omp/work", "/home/ana", "/tmp")
	equal(t, got, []string{"-tmp-rec-omp-work", "--tmp-rec-omp-work--"})
	got = locate.OMPDirs("/home/ana", "/home/ana", "/tmp") // home itself is no relative path
	equal(t, got, []string{"--home-ana--"})
}

// TestClaudeCode: the project's folder under projects/, its .jsonl files
// only (a subagent's folder is not entered), and a file of another
// folder that shares the slug left out by the cwd it records.
func TestClaudeCode(t *testing.T) {
	home := t.TempDir()
	cwd := "/work/my.proj"
	dir := filepath.Join(home, ".claude", "projects", "-work-my-proj")
	write(t, filepath.Join(dir, "a.jsonl"), `{"type":"queue-operation"}`+"\n"+`{"type":"user","cwd":"/work/my.proj"}`+"\n", 1)
	write(t, filepath.Join(dir, "b.jsonl"), `{"type":"user","cwd":"/work/my-proj"}`+"\n", 2) // the same slug
	write(t, filepath.Join(dir, "c.jsonl"), `{"type":"summary"}`+"\n", 3)                    // no cwd: the folder decides
	write(t, filepath.Join(dir, "c", "subagents", "agent-1.jsonl"), `{"cwd":"/work/my.proj"}`+"\n", 4)
	write(t, filepath.Join(dir, "notes.txt"), "x", 5)
	f := locate.Sessions(locate.Env{Home: home, CWD: cwd})
	equal(t, paths(f), []string{"Claude Code c.jsonl", "Claude Code a.jsonl"})
	if len(f.Errs) > 0 {
		t.Errorf("errors: %v", f.Errs)
	}
	if got := f.Summary(); got != "2 sessions of this project: 2 Claude Code" {
		t.Errorf("Summary = %q", got)
	}
}

// TestClaudeConfigDir: CLAUDE_CONFIG_DIR moves the folder.
func TestClaudeConfigDir(t *testing.T) {
	home, conf := t.TempDir(), t.TempDir()
	write(t, filepath.Join(conf, "projects", "-p", "s.jsonl"), `{"cwd":"/p"}`+"\n", 1)
	write(t, filepath.Join(home, ".claude", "projects", "-p", "old.jsonl"), `{"cwd":"/p"}`+"\n", 1)
	env := map[string]string{"CLAUDE_CONFIG_DIR": conf}
	f := locate.Sessions(locate.Env{Home: home, CWD: "/p", Getenv: func(k string) string { return env[k] }})
	equal(t, paths(f), []string{"Claude Code s.jsonl"})
}

// TestClaudeLongSlug: a folder whose name was cut at 200 characters and
// given a hash is found by its first 200.
func TestClaudeLongSlug(t *testing.T) {
	home := t.TempDir()
	cwd := "/" + strings.Repeat("d", 250)
	name := locate.ClaudeSlug(cwd) + "-1x2y3z"
	write(t, filepath.Join(home, ".claude", "projects", name, "s.jsonl"), `{"cwd":"`+cwd+`"}`+"\n", 1)
	f := locate.Sessions(locate.Env{Home: home, CWD: cwd})
	equal(t, paths(f), []string{"Claude Code s.jsonl"})
}

// TestCodex: rollouts are grouped by date; the session_meta line's cwd
// picks the project's, and a rollout that records no cwd is not taken.
func TestCodex(t *testing.T) {
	home := t.TempDir()
	day := filepath.Join(home, ".codex", "sessions", "2026", "11", "30")
	meta := func(cwd string) string {
		return `{"timestamp":"2026-11-30T01:34:30.634Z","type":"session_meta","payload":{"id":"x","base_instructions":{"text":"` + strings.Repeat("i", 100<<10) + `"},"cwd":"` + cwd + `"}}` + "\n"
	}
	write(t, filepath.Join(day, "rollout-2026-11-30T01-34-30-a.jsonl"), meta("/p"), 5)
	write(t, filepath.Join(day, "rollout-2026-11-30T01-40-00-b.jsonl"), meta("/q"), 6)
	write(t, filepath.Join(home, ".codex", "sessions", "2026", "12", "01", "rollout-2026-12-01T00-00-00-c.jsonl"), meta("/p/"), 7)
	write(t, filepath.Join(day, "rollout-2026-11-30T02-00-00-d.jsonl"), `{"type":"response_item"}`+"\n", 8)
	write(t, filepath.Join(day, "other.jsonl"), meta("/p"), 9)
	f := locate.Sessions(locate.Env{Home: home, CWD: "/p"})
	equal(t, paths(f), []string{"Codex rollout-2026-12-01T00-00-00-c.jsonl", "Codex rollout-2026-11-30T01-34-30-a.jsonl"})
}

// TestPiAndOMP: pi's --path-- folder; omp's folder relative to home (its
// title slot comes before the header).
func TestPiAndOMP(t *testing.T) {
	home := t.TempDir()
	cwd := filepath.Join(home, "src", "x")
	write(t, filepath.Join(home, ".pi", "agent", "sessions", locate.PiDir(cwd), "2026_a.jsonl"), `{"type":"session","version":3,"cwd":"`+cwd+`"}`+"\n", 1)
	write(t, filepath.Join(home, ".omp", "agent", "sessions", "-src-x", "2026_b.jsonl"), `{"type":"title","v":1,"title":"","pad":"   "}`+"\n"+`{"type":"session","version":3,"cwd":"`+cwd+`"}`+"\n", 2)
	f := locate.Sessions(locate.Env{Home: home, CWD: cwd, TempDir: "/nonexistent-tmp"})
	equal(t, paths(f), []string{"omp 2026_b.jsonl", "pi 2026_a.jsonl"})
	if got := f.Summary(); got != "2 sessions of this project: 1 pi, 1 omp" {
		t.Errorf("Summary = %q", got)
	}
}

// TestVigil: vigil's own sessions through its manager, without the
// session vigil keeps for an agent it watched.
func TestVigil(t *testing.T) {
	home := t.TempDir()
	cwd := "/work/p"
	m := session.NewManager(filepath.Join(home, ".vigil", "agent", "sessions"), session.Options{})
	own, err := m.New(cwd)
	if err != nil {
		t.Fatal(err)
	}
	own.Close()
	att, err := m.Attached(cwd, "claude-code", "abc", "/x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	att.Close()
	f := locate.Sessions(locate.Env{Home: home, CWD: cwd})
	if len(f.Sessions) != 1 || f.Sessions[0].Path != own.File() || f.Sessions[0].Agent != locate.Vigil {
		t.Errorf("found %v, want only %s", f.Sessions, own.File())
	}
}

// TestNothingFound says where it looked, one folder a line, home as ~.
func TestNothingFound(t *testing.T) {
	home := t.TempDir()
	f := locate.Sessions(locate.Env{Home: home, CWD: "/work/p", TempDir: "/tmp"})
	if len(f.Sessions) != 0 || len(f.Errs) != 0 {
		t.Fatalf("found %v, errors %v", f.Sessions, f.Errs)
	}
	if got := f.Summary(); got != "no sessions of this project" {
		t.Errorf("Summary = %q", got)
	}
	where := f.Where(home)
	for _, want := range []string{
		"  vigil: ~/.vigil/agent/sessions/work-p\n",
		"  Claude Code: ~/.claude/projects/-work-p\n",
		"  Codex: ~/.codex/sessions\n",
		"  pi: ~/.pi/agent/sessions/--work-p--\n",
		"  omp: ~/.omp/agent/sessions/--work-p--\n",
	} {
		if !strings.Contains(where, want) {
			t.Errorf("Where lacks %q:\n%s", want, where)
		}
	}
}

// TestUnreadable: a folder that cannot be listed and a named pipe in a
// project folder are errors that name them; the search goes on.
func TestUnreadable(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".claude", "projects", "-p")
	write(t, filepath.Join(dir, "ok.jsonl"), `{"cwd":"/p"}`+"\n", 1)
	if err := mkfifo(filepath.Join(dir, "pipe.jsonl")); err != nil {
		t.Skip("no named pipes here:", err)
	}
	f := locate.Sessions(locate.Env{Home: home, CWD: "/p"})
	equal(t, paths(f), []string{"Claude Code ok.jsonl"})
	if len(f.Errs) != 1 || !strings.Contains(f.Errs[0].Error(), "pipe.jsonl") || !strings.Contains(f.Errs[0].Error(), "named pipe") {
		t.Errorf("errors = %v, want one naming pipe.jsonl as a named pipe", f.Errs)
	}
}

// TestSymlinkedProject: a project reached through a symbolic link is
// found under both its names, each file once.
func TestSymlinkedProject(t *testing.T) {
	home := t.TempDir()
	real := filepath.Join(home, "real", "p")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, "link")
	if err := os.Symlink(filepath.Join(home, "real"), link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	via := filepath.Join(link, "p")
	write(t, filepath.Join(home, ".claude", "projects", locate.ClaudeSlug(real), "a.jsonl"), `{"cwd":"`+real+`"}`+"\n", 1)
	write(t, filepath.Join(home, ".pi", "agent", "sessions", locate.PiDir(via), "b.jsonl"), `{"type":"session","cwd":"`+via+`"}`+"\n", 2)
	write(t, filepath.Join(home, ".codex", "sessions", "2026", "12", "01", "rollout-c.jsonl"), `{"type":"session_meta","payload":{"cwd":"`+real+`"}}`+"\n", 3)
	f := locate.Sessions(locate.Env{Home: home, CWD: via, TempDir: "/nonexistent-tmp"})
	equal(t, paths(f), []string{"Codex rollout-c.jsonl", "pi b.jsonl", "Claude Code a.jsonl"})
}
