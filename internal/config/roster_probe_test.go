package config_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/config"
)

// loadUserRoster writes data as the agent folder's WATCHDOG.yml and loads
// the roster from it alone.
func loadUserRoster(t *testing.T, data string) (*config.Roster, string) {
	t.Helper()
	agent := t.TempDir()
	path := filepath.Join(agent, "WATCHDOG.yml")
	writeFile(t, path, data)
	r, err := config.LoadRoster(config.RosterOptions{AgentDir: agent})
	if err != nil {
		t.Fatal(err)
	}
	return r, path
}

func hasWarning(r *config.Roster, parts ...string) bool {
	for _, w := range r.Warnings {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(w, p)
		}
		if ok {
			return true
		}
	}
	return false
}

// An advisor whose name is empty is named by its place, not by an empty
// name ("advisor  has no name").
func TestRosterEmptyNameSaysWhereAndWhat(t *testing.T) {
	r, path := loadUserRoster(t, "advisors:\n  - name: \"\"\n    model: x/y\n  - name:\n")
	if len(r.Advisors) != 0 {
		t.Errorf("advisors %+v, want none", r.Advisors)
	}
	for _, w := range r.Warnings {
		if strings.Contains(w, "  ") {
			t.Errorf("warning %q has an empty name in it", w)
		}
	}
	for _, line := range []int{2, 4} {
		if !hasWarning(r, fmt.Sprintf("%s:%d: ", path, line), "empty name", "left out") {
			t.Errorf("no warning names %s:%d and the empty name:\n%s", path, line, strings.Join(r.Warnings, "\n"))
		}
	}
}

// A second YAML document in WATCHDOG.yml is refused, as in config.yml,
// with the file and the line where it starts; the file is left out.
func TestRosterSecondDocumentRefused(t *testing.T) {
	r, path := loadUserRoster(t, "advisors:\n  - name: a\n---\ninstructions: hidden\nadvisors:\n  - name: b\n")
	if len(r.Advisors) != 0 || r.Instructions != "" {
		t.Errorf("roster %+v, want the file left out", r)
	}
	if !hasWarning(r, path+":3: ", "more than one YAML document") {
		t.Errorf("warnings do not name %s:3 and the second document:\n%s", path, strings.Join(r.Warnings, "\n"))
	}
	// config.yml says where its second document starts too.
	_, err := config.Parse("config.yml", []byte("advisor:\n  enabled: true\n---\nadvisor:\n  enabled: false\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "config.yml:3:") {
		t.Errorf("config.yml with two documents: %v, want an error at config.yml:3", err)
	}
}

// A byte-order mark does not make the first key unknown.
func TestRosterByteOrderMark(t *testing.T) {
	r, _ := loadUserRoster(t, "\uFEFFinstructions: Be brief.\nadvisors:\n  - name: a\n")
	if len(r.Warnings) != 0 || r.Instructions != "Be brief." || len(r.Advisors) != 1 {
		t.Errorf("roster %+v", r)
	}
}

// tools: names the advisor's read-only tools (read, grep, find, and
// omp's glob for find); a name that gives no tool (ls, a typo) leaves the
// advisor out with the file and line, instead of silently narrowing it.
func TestRosterToolNames(t *testing.T) {
	r, path := loadUserRoster(t, "advisors:\n  - name: a\n    tools: [read, grep]\n  - name: b\n    tools:\n      - read\n      - ls\n  - name: c\n    tools: [glob, find, search]\n")
	var got []string
	for _, a := range r.Advisors {
		got = append(got, a.Name+"="+strings.Join(a.Tools, ","))
	}
	if want := []string{"a=read,grep", "c=glob,find,search"}; !slices.Equal(got, want) {
		t.Errorf("advisors %q, want %q", got, want)
	}
	if !hasWarning(r, path+":7: ", "advisor b", "ls", "left out") {
		t.Errorf("no warning names %s:7 and ls:\n%s", path, strings.Join(r.Warnings, "\n"))
	}
}

// Instructions in WATCHDOG.yml are cut at the size WATCHDOG.md is cut
// at, with a note the advisor reads and a warning naming file and line.
func TestRosterInstructionsCapped(t *testing.T) {
	big := strings.Repeat("x", 100<<10)
	r, path := loadUserRoster(t, "instructions: "+big+"\nadvisors:\n  - name: a\n    instructions: "+big+"\n")
	if n := len(r.Instructions); n > config.MaxInstructionBytes+200 {
		t.Errorf("shared instructions are %d bytes, want at most %d and a note", n, config.MaxInstructionBytes)
	}
	if !strings.Contains(r.Instructions, "only the first") {
		t.Errorf("the cut shared instructions do not say so: %q", r.Instructions[len(r.Instructions)-100:])
	}
	if len(r.Advisors) != 1 || len(r.Advisors[0].Instructions) > config.MaxInstructionBytes+200 {
		t.Fatalf("advisor a's instructions not cut: %d advisors", len(r.Advisors))
	}
	if !hasWarning(r, path+":1: ", "instructions") || !hasWarning(r, path+":4: ", "advisor a", "instructions") {
		t.Errorf("warnings do not name the cut instructions:\n%s", strings.Join(r.Warnings, "\n"))
	}
}

// An untrusted project's maxNotesPerUpdate does not lift the cap on what
// reaches the agent; it is held back with a warning saying how to trust
// the folder, and applies once the folder is trusted. The held-back
// advisors' warning says the shared instructions still apply.
func TestRosterProjectMaxNotesGuarded(t *testing.T) {
	root := t.TempDir()
	agent, proj := filepath.Join(root, "agent"), filepath.Join(root, "proj")
	writeFile(t, filepath.Join(proj, ".git", "HEAD"), "")
	writeFile(t, filepath.Join(agent, "WATCHDOG.yml"), "maxNotesPerUpdate: 1\nadvisors:\n  - name: mine\n")
	writeFile(t, filepath.Join(proj, "WATCHDOG.yml"), "instructions: Go service.\nmaxNotesPerUpdate: 10\nadvisors:\n  - name: theirs\n")
	r, err := config.LoadRoster(config.RosterOptions{AgentDir: agent, Dir: proj, ProjectRoot: proj})
	if err != nil {
		t.Fatal(err)
	}
	if r.MaxNotesPerUpdate != 1 {
		t.Errorf("maxNotesPerUpdate %d in an untrusted project, want the user's 1", r.MaxNotesPerUpdate)
	}
	file := filepath.Join(proj, "WATCHDOG.yml")
	if !hasWarning(r, file+":2: ", "maxNotesPerUpdate: 10", "not applied", "not trusted", "vigil trust "+proj) {
		t.Errorf("no warning holds back maxNotesPerUpdate:\n%s", strings.Join(r.Warnings, "\n"))
	}
	if !hasWarning(r, "declares advisors theirs", "shared instructions") {
		t.Errorf("the held-back advisors' warning does not say what becomes of the shared instructions:\n%s", strings.Join(r.Warnings, "\n"))
	}
	if r.Instructions != "Go service." {
		t.Errorf("shared instructions %q", r.Instructions)
	}
	r, err = config.LoadRoster(config.RosterOptions{AgentDir: agent, Dir: proj, ProjectRoot: proj, TrustProject: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.MaxNotesPerUpdate != 10 {
		t.Errorf("trusted: maxNotesPerUpdate %d, want the project's 10", r.MaxNotesPerUpdate)
	}
}

// Trust is decided on where a roster file really is: a folder without
// .git entered through a symbolic link inside a trusted project is not
// trusted with it.
func TestRosterTrustFollowsSymlinks(t *testing.T) {
	root := t.TempDir()
	agent, proj, other := filepath.Join(root, "agent"), filepath.Join(root, "proj"), filepath.Join(root, "other")
	writeFile(t, filepath.Join(proj, ".git", "HEAD"), "")
	writeFile(t, filepath.Join(other, "WATCHDOG.yml"), "advisors:\n  - name: stranger\n    model: evil/expensive\n")
	if err := os.Symlink(other, filepath.Join(proj, "link")); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Trust(agent, proj, false); err != nil {
		t.Fatal(err)
	}
	r, err := config.LoadRoster(config.RosterOptions{AgentDir: agent, Dir: filepath.Join(proj, "link"), ProjectRoot: proj})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Advisors) != 0 {
		t.Errorf("advisors %+v of an untrusted folder run because a trusted project links to it", r.Advisors)
	}
	if !hasWarning(r, "stranger", "not trusted") {
		t.Errorf("no warning holds back the linked folder's advisors:\n%s", strings.Join(r.Warnings, "\n"))
	}
}

// A project's WATCHDOG.yml that is a symbolic link out of the project is
// not read, as its imports and the tools would not read it.
func TestRosterSymlinkOutOfProject(t *testing.T) {
	root := t.TempDir()
	agent, proj := filepath.Join(root, "agent"), filepath.Join(root, "proj")
	writeFile(t, filepath.Join(proj, ".git", "HEAD"), "")
	private := filepath.Join(root, "private.yml")
	writeFile(t, private, "instructions: the user's private text\n")
	link := filepath.Join(proj, "WATCHDOG.yml")
	if err := os.Symlink(private, link); err != nil {
		t.Fatal(err)
	}
	r, err := config.LoadRoster(config.RosterOptions{AgentDir: agent, Dir: proj, ProjectRoot: proj})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Instructions, "private") {
		t.Errorf("instructions %q came from outside the project", r.Instructions)
	}
	if !hasWarning(r, link, "outside the project") {
		t.Errorf("no warning names the link:\n%s", strings.Join(r.Warnings, "\n"))
	}
}
