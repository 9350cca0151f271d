package cli_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// twoProjectsScript scripts one short run in each project, each with
// its own model and words, and a concern about each project's failing
// run.
const twoProjectsScript = `rules:
  - name: advisor-alpha
    model: adv
    match: ["Alpha one."]
    steps:
      - tool_calls: [{name: advise, arguments: {note: "ADVICE-ALPHA fail.sh failed in alpha", severity: concern}}]
      - text: Noted.
  - name: advisor-beta
    model: adv
    match: ["Beta one."]
    steps:
      - tool_calls: [{name: advise, arguments: {note: "ADVICE-BETA fail.sh failed in beta", severity: concern}}]
      - text: Noted.
  - name: advisor-quiet
    model: adv
    repeat: true
    steps: [{text: "Nothing to add."}]
  - name: alpha
    model: pi-fake-1
    steps:
      - text: Alpha one.
        tool_calls: [{name: bash, arguments: {command: "sh fail.sh"}}]
      - text: Alpha gives up.
  - name: beta
    model: pi-fake-2
    steps:
      - text: Beta one.
        tool_calls: [{name: bash, arguments: {command: "sh fail.sh"}}]
      - text: Beta gives up.
`

// TestPiTwoProjects: the user's extension holds nothing of the project
// it was attached from. pi runs in two other projects at the same time;
// each session gets its own sidecar, which follows that session's file
// (whose header names the project it runs in) with the installed
// vigil-hook, and each project's concern reaches only that project's
// next request.
func TestPiTwoProjects(t *testing.T) {
	bin := piAgent(t, piCurrent)
	s := newAttached(t, twoProjectsScript)
	s.configurePi(t, "pi")
	s.vigilCmd(t, []string{pathWith(bin)}, "attach", "pi", "--command", builtVigilHook(t))
	projects := map[string]string{"pi-fake-1": filepath.Join(s.root, "alpha"), "pi-fake-2": filepath.Join(s.root, "beta")}
	var wg sync.WaitGroup
	errs := make(chan error, len(projects))
	for model, dir := range projects {
		write(t, filepath.Join(dir, "fail.sh"), "echo 'check.c:12: error' >&2\nexit 1\n")
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.runPiIn(t, "pi", bin, dir, model, "Make ./fail.sh pass."); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("pi: %v\n%s", err, s.logs(t))
	}
	for model, c := range map[string]struct{ mine, other string }{
		"pi-fake-1": {"ADVICE-ALPHA", "ADVICE-BETA"},
		"pi-fake-2": {"ADVICE-BETA", "ADVICE-ALPHA"},
	} {
		bodies := s.primary(model)
		if len(bodies) != 2 || firstWith(bodies, c.mine) != 1 || firstWith(bodies, c.other) >= 0 {
			t.Errorf("%s: %d requests; %s first in request %d (want 2), %s in %d (want none)\n%s", model, len(bodies), c.mine, firstWith(bodies, c.mine)+1, c.other, firstWith(bodies, c.other)+1, s.logs(t))
		}
	}
	// Each sidecar's log says which session file it watches.
	watching := regexp.MustCompile(`watching (\S+\.jsonl)`)
	got := map[string]bool{}
	for _, m := range watching.FindAllStringSubmatch(s.logs(t), -1) {
		f, err := os.Open(m[1])
		if err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(f).ReadString('\n')
		f.Close()
		var header struct{ Cwd string }
		if err := json.Unmarshal([]byte(line), &header); err != nil {
			t.Fatalf("%s: %v", m[1], err)
		}
		got[header.Cwd] = true
	}
	real := func(dir string) string {
		r, err := filepath.EvalSymlinks(dir)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if len(got) != 2 || !got[real(projects["pi-fake-1"])] || !got[real(projects["pi-fake-2"])] {
		t.Errorf("the sidecars watch the sessions of %v, want one in each of %v\n%s", got, projects, s.logs(t))
	}
	if n := strings.Count(s.logs(t), "stopped: "); n != 2 {
		t.Errorf("%d sidecars stopped, want 2\n%s", n, s.logs(t))
	}
}
