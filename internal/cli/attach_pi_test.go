package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakePi puts a pi of version on PATH, installed the way npm does (a
// link in node_modules/.bin to the package's command, beside its
// package.json), with nothing else of the machine's but /usr/bin and
// /bin.
func fakePi(t *testing.T, version string) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "node_modules")
	pkg := filepath.Join(root, "@earendil-works", "pi-coding-agent")
	write(t, filepath.Join(pkg, "package.json"), `{"name": "@earendil-works/pi-coding-agent", "version": "`+version+`"}`)
	write(t, filepath.Join(pkg, "dist", "cli.js"), "#!/bin/sh\nexit 1\n")
	if err := os.Chmod(filepath.Join(pkg, "dist", "cli.js"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../@earendil-works/pi-coding-agent/dist/cli.js", filepath.Join(bin, "pi")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":/usr/bin:/bin")
	t.Setenv("PI_CODING_AGENT_DIR", "")
}

// TestAttachPiMovesTheProjectExtension: `vigil attach pi` writes the
// extension into the user's folder, which pi loads in every project
// without asking to trust it; the one an older vigil wrote into the
// project (listed in .git/info/exclude) moves there, the project's
// folders and the exclude line going with it; a dry run shows both
// changes and writes nothing; detach gives back the home folder as it
// was.
func TestAttachPiMovesTheProjectExtension(t *testing.T) {
	fakePi(t, "1.6.0")
	h := newAttachHome(t)
	projectExt := filepath.Join(h.project, ".pi", "extensions", "vigil.ts")
	userExt := filepath.Join(h.home, ".pi", "agent", "extensions", "vigil.ts")
	exclude := filepath.Join(h.project, ".git", "info", "exclude")
	out, errOut, code := h.run(t, h.sub, "attach", "pi", "--project", h.project, "--command", h.vigil)
	if code != 0 {
		t.Fatalf("attach --project: exit %d: %s", code, errOut)
	}
	wantIn(t, "attach --project", out, projectExt, "pi loads a project's extensions when it runs in "+h.project+" itself", "only in a project you trust")
	wantIn(t, "attach --project warnings", errOut, "vigil: warning: pi 1.6.0 loads it only once you trust "+h.project, "vigil attach pi")
	wantIn(t, "exclude", readString(t, exclude), "/.pi/extensions/vigil.ts")

	before := tree(t, h.project)
	out, _, code = h.run(t, h.sub, "attach", "pi", "--command", h.vigil, "--dry-run")
	if code != 0 {
		t.Fatalf("attach --dry-run: exit %d", code)
	}
	wantIn(t, "dry run", out, "+++ "+userExt, "--- "+projectExt, "dry run:")
	if _, err := os.Stat(userExt); err == nil {
		t.Fatal("the dry run wrote the user's extension")
	}

	out, errOut, code = h.run(t, h.sub, "attach", "pi", "--command", h.vigil)
	if code != 0 || errOut != "" {
		t.Fatalf("attach: exit %d: %s", code, errOut)
	}
	wantIn(t, "attach", out, "vigil attached to pi in "+userExt, "moved:   from "+projectExt, "no longer listed in "+exclude, "every project")
	if _, err := os.Lstat(filepath.Join(h.project, ".pi")); err == nil {
		t.Errorf("the project's .pi folder attach made is still there: %v", before)
	}
	if strings.Contains(readString(t, exclude), "vigil.ts") {
		t.Errorf("the exclude line is still there:\n%s", readString(t, exclude))
	}
	wantIn(t, "the user's extension", readString(t, userExt), `"command":["`+h.vigil+`","hook","pi"]`)

	out, _, _ = h.run(t, h.sub, "attach", "pi", "--command", h.vigil)
	wantIn(t, "attach again", out, "vigil is already attached to pi in "+userExt+": nothing to change")
	out, _, _ = h.run(t, h.sub, "status")
	if !strings.Contains(out, userExt) || strings.Contains(out, "may not be loaded") {
		t.Errorf("status:\n%s", out)
	}

	out, _, code = h.run(t, h.sub, "detach", "pi")
	if code != 0 {
		t.Fatalf("detach: exit %d", code)
	}
	wantIn(t, "detach", out, "vigil detached from pi in "+userExt)
	if _, err := os.Lstat(filepath.Join(h.home, ".pi")); err == nil {
		t.Error("~/.pi, which attach made, is still there after detach")
	}
}

// TestDetachPiRemovesBoth: with vigil attached for every project and for
// the project too (attach says so), `vigil detach pi` removes both;
// --user removes only the user's and --project only the project's.
func TestDetachPiRemovesBoth(t *testing.T) {
	fakePi(t, "0.73.1")
	h := newAttachHome(t)
	projectExt := filepath.Join(h.project, ".pi", "extensions", "vigil.ts")
	userExt := filepath.Join(h.home, ".pi", "agent", "extensions", "vigil.ts")
	attachBoth := func() {
		t.Helper()
		h.run(t, h.project, "attach", "pi", "--command", h.vigil)
		out, errOut, _ := h.run(t, h.project, "attach", "pi", "--project", h.project, "--command", h.vigil)
		wantIn(t, "attach --project", out, "for every project too ("+userExt+")")
		if errOut != "" {
			t.Errorf("pi 0.73.1 asks no trust, yet attach warns: %s", errOut)
		}
	}
	exists := func(f string) bool { _, err := os.Stat(f); return err == nil }
	attachBoth()
	out, _, _ := h.run(t, h.project, "detach", "pi", "--user")
	if exists(userExt) || !exists(projectExt) {
		t.Fatalf("detach --user:\n%s", out)
	}
	h.run(t, h.project, "detach", "pi", "--project", h.project)
	if exists(projectExt) {
		t.Fatal("detach --project left the project's extension")
	}
	attachBoth()
	out, _, _ = h.run(t, h.project, "detach", "pi")
	wantIn(t, "detach", out, "vigil detached from pi in "+userExt, "vigil detached from pi in "+projectExt)
	if exists(userExt) || exists(projectExt) {
		t.Fatalf("detach left an extension:\n%s", out)
	}
	out, _, _ = h.run(t, h.project, "detach", "pi")
	wantIn(t, "detach again", out, "vigil is not attached to pi in "+userExt+": nothing to change")
}

// TestStatusPiNotLoaded: vigil status says when pi may not load vigil's
// extension: a pi newer than the extension knows, older than it
// supports, or (pi 0.79 and later) a project's extension in a project pi
// does not trust, until pi's trust.json trusts it; in text and in
// --json's not_loaded. PI_CODING_AGENT_DIR moves pi's folder, and with
// it the user's extension and the trust store.
func TestStatusPiNotLoaded(t *testing.T) {
	h := newAttachHome(t)
	piDir := filepath.Join(h.home, "pi-agent")
	userExt := filepath.Join(piDir, "extensions", "vigil.ts")
	status := func() []map[string]any {
		t.Helper()
		out, _, code := h.run(t, h.project, "status", "--json")
		if code != 0 {
			t.Fatalf("status: exit %d", code)
		}
		var rep struct{ Attached []map[string]any }
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		var pis []map[string]any
		for _, a := range rep.Attached {
			if a["agent"] == "pi" && a["attached"] == true {
				pis = append(pis, a)
			}
		}
		return pis
	}
	notLoaded := func(a map[string]any) string {
		b, _ := json.Marshal(a["not_loaded"])
		return string(b)
	}

	fakePi(t, "2.1.0")
	t.Setenv("PI_CODING_AGENT_DIR", piDir)
	h.run(t, h.project, "attach", "pi", "--command", h.vigil)
	if _, err := os.Stat(userExt); err != nil {
		t.Fatalf("attach did not write into $PI_CODING_AGENT_DIR: %v", err)
	}
	if pis := status(); len(pis) != 1 || pis[0]["file"] != userExt || !strings.Contains(notLoaded(pis[0]), "pi 2.1.0") || !strings.Contains(notLoaded(pis[0]), "is newer than vigil's extension knows") {
		t.Errorf("pi 2.1.0: %v", pis)
	}
	out, _, _ := h.run(t, h.project, "status")
	wantIn(t, "status", out, "it may not be loaded (below)", "pi, "+userExt+": pi 2.1.0")

	fakePi(t, "0.60.0")
	t.Setenv("PI_CODING_AGENT_DIR", piDir)
	if pis := status(); len(pis) != 1 || !strings.Contains(notLoaded(pis[0]), "is older than vigil's extension supports (0.65 or later)") {
		t.Errorf("pi 0.60.0: %v", pis)
	}

	fakePi(t, "1.6.0")
	t.Setenv("PI_CODING_AGENT_DIR", piDir)
	h.run(t, h.project, "detach", "pi")
	h.run(t, h.project, "attach", "pi", "--project", h.project, "--command", h.vigil)
	if pis := status(); len(pis) != 1 || pis[0]["scope"] != "project" || !strings.Contains(notLoaded(pis[0]), "pi 1.6.0 loads it only once you trust "+h.project) {
		t.Errorf("an untrusted project: %v", pis)
	}
	project, _ := filepath.EvalSymlinks(h.project)
	write(t, filepath.Join(piDir, "trust.json"), `{"`+filepath.Dir(project)+`": true}`)
	if pis := status(); len(pis) != 1 || pis[0]["not_loaded"] != nil {
		t.Errorf("a project pi trusts (its parent folder saved): %v", pis)
	}
}

// TestAttachPiAgentDirInTheProject: with PI_CODING_AGENT_DIR set to the
// project's .pi, the user's extension and the project's are one file:
// attach writes it and moves nothing away.
func TestAttachPiAgentDirInTheProject(t *testing.T) {
	fakePi(t, "1.6.0")
	h := newAttachHome(t)
	t.Setenv("PI_CODING_AGENT_DIR", filepath.Join(h.project, ".pi"))
	ext := filepath.Join(h.project, ".pi", "extensions", "vigil.ts")
	for range 2 {
		out, errOut, code := h.run(t, h.project, "attach", "pi", "--command", h.vigil)
		if code != 0 || strings.Contains(out, "moved") {
			t.Fatalf("attach: exit %d:\n%s%s", code, out, errOut)
		}
		if _, err := os.Stat(ext); err != nil {
			t.Fatalf("attach:\n%s\n%v", out, err)
		}
	}
}
