package attach

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeAgent installs a fake agent the way npm does: PREFIX/node_modules/
// PKG/package.json naming its version, its command in the package's
// dist/, and a link to it in node_modules/.bin, the folder returned.
func fakeAgent(t *testing.T, a Agent, pkg, version string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "node_modules")
	dir := filepath.Join(root, filepath.FromSlash(pkg))
	writeFile(t, filepath.Join(dir, "package.json"), `{"name": "`+pkg+`", "version": "`+version+`", "bin": {"`+string(a)+`": "dist/cli.js"}}`)
	writeFile(t, filepath.Join(dir, "dist", "cli.js"), "#!/bin/sh\nexit 1\n")
	if err := os.Chmod(filepath.Join(dir, "dist", "cli.js"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", filepath.FromSlash(pkg), "dist", "cli.js"), filepath.Join(bin, string(a))); err != nil {
		t.Fatal(err)
	}
	return bin
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFindAgent: the version comes from the package.json of the npm
// package the command on PATH belongs to (pi under either name, omp),
// the first on PATH winning; a command of no known package is asked
// with --version; none on PATH is an error.
func TestFindAgent(t *testing.T) {
	ctx := context.Background()
	cur := fakeAgent(t, Pi, "@earendil-works/pi-coding-agent", "1.6.0")
	old := fakeAgent(t, Pi, "@mariozechner/pi-coding-agent", "0.73.1")
	omp := fakeAgent(t, Omp, "@oh-my-pi/pi-coding-agent", "18.2.3")
	// Another package's command of the same name says its version.
	standalone := t.TempDir()
	writeFile(t, filepath.Join(standalone, "pi"), "#!/bin/sh\necho 'pi version v2.1.0-beta.1'\n")
	os.Chmod(filepath.Join(standalone, "pi"), 0o755)
	list := func(dirs ...string) string { return strings.Join(dirs, string(os.PathListSeparator)) }
	for _, c := range []struct {
		agent       Agent
		path        string
		bin, ver    string
		errContains string
	}{
		{Pi, list(t.TempDir(), cur, old), filepath.Join(cur, "pi"), "1.6.0", ""},
		{Pi, list(old, cur), filepath.Join(old, "pi"), "0.73.1", ""},
		{Omp, list(cur, omp), filepath.Join(omp, "omp"), "18.2.3", ""},
		{Pi, list(standalone), filepath.Join(standalone, "pi"), "2.1.0-beta.1", ""},
		{Omp, list(cur, old), "", "", "no omp on PATH"},
	} {
		in := FindAgent(ctx, c.agent, c.path)
		if in.Binary != c.bin || in.Version != c.ver || (c.errContains == "") != (in.Err == nil) || in.Err != nil && !strings.Contains(in.Err.Error(), c.errContains) {
			t.Errorf("FindAgent(%s, %s) = %+v, want %s %s %q", c.agent, c.path, in, c.bin, c.ver, c.errContains)
		}
	}
}

// TestVersionProblem: a pi or omp outside the versions the extension
// speaks is named, with the way out; one inside, or unknown, is not.
func TestVersionProblem(t *testing.T) {
	for _, c := range []struct {
		agent   Agent
		version string
		want    string
	}{
		{Pi, "0.73.1", ""},
		{Pi, "0.65.0", ""},
		{Pi, "1.6.0", ""},
		{Pi, "1.99.3", ""},
		{Pi, "", ""},
		{Pi, "nonsense", ""},
		{Pi, "0.64.9", "pi 0.64.9 (/bin/pi) is older than vigil's extension supports (0.65 or later)"},
		{Pi, "2.0.0", "pi 2.0.0 (/bin/pi) is newer than vigil's extension knows (tested up to 1.6.0)"},
		{Pi, "2.0.0-rc.1", "newer"},
		{Omp, "18.2.3", ""},
		{Omp, "17.9.0", "omp 17.9.0 (/bin/omp) is older"},
		{Omp, "19.0.1", "omp 19.0.1 (/bin/omp) is newer than vigil's extension knows (tested up to 18.2.3)"},
	} {
		got := VersionProblem(AgentInstall{Agent: c.agent, Binary: "/bin/" + string(c.agent), Version: c.version})
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("VersionProblem(%s %s) = %q, want %q", c.agent, c.version, got, c.want)
		}
	}
}

// TestPiProjectTrust reads pi's decision as pi takes it: the saved answer
// for the folder or the nearest folder above it, else
// defaultProjectTrust ("ask" when unset); a trust store pi would refuse
// is an error naming its FILE:LINE:COL.
func TestPiProjectTrust(t *testing.T) {
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	project := filepath.Join(root, "src", "app")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, trust, settings string
		want                  ProjectTrust
	}{
		{"nothing saved", "", "", TrustAsked},
		{"saved for the folder", `{"` + project + `": true}`, "", Trusted},
		{"saved for a parent", `{"` + root + `": true}`, "", Trusted},
		{"the nearest wins", `{"` + root + `": true, "` + project + `": false}`, "", Distrusted},
		{"null is no decision", `{"` + project + `": null, "` + root + `": false}`, "", Distrusted},
		{"another folder", `{"` + filepath.Join(root, "src", "other") + `": true}`, `{"defaultProjectTrust": "never"}`, TrustNever},
		{"default always", "", `{"defaultProjectTrust": "always", "theme": "dark"}`, Trusted},
		{"default ask", "\uFEFF{}", `{"defaultProjectTrust": "ask"}`, TrustAsked},
	} {
		agentDir := t.TempDir()
		if c.trust != "" {
			writeFile(t, filepath.Join(agentDir, "trust.json"), c.trust)
		}
		if c.settings != "" {
			writeFile(t, filepath.Join(agentDir, "settings.json"), c.settings)
		}
		if got, err := PiProjectTrust(agentDir, project); err != nil || got != c.want {
			t.Errorf("%s: PiProjectTrust = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
	for _, c := range []struct{ file, text, want string }{
		{"trust.json", "{\n  \"/a\": true,\n}", "trust.json:3:1: a comma before '}'"},
		{"trust.json", `{"/a": "yes"}`, "trust.json: not what pi writes"},
		{"trust.json", `[]`, "trust.json: not what pi writes"},
		{"settings.json", `{"defaultProjectTrust": 1}`, "settings.json: not what pi writes"},
	} {
		agentDir := t.TempDir()
		writeFile(t, filepath.Join(agentDir, c.file), c.text)
		if _, err := PiProjectTrust(agentDir, project); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: err = %v, want %q", c.file, c.text, err, c.want)
		}
	}
}

// TestLoadProblems: for a project's extension in pi 0.79 and later (or
// a pi of unknown version), a project pi does not trust is named with
// how to trust it or attach for every project; pi before 0.79, the
// user's folder and omp have no trust to ask; the version problem comes
// first.
func TestLoadProblems(t *testing.T) {
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	project := filepath.Join(root, "app")
	projectExt := filepath.Join(project, ".pi", "extensions", ExtensionName)
	userExt := filepath.Join(root, "home", ".pi", "agent", "extensions", ExtensionName)
	agentDir := filepath.Join(root, "home", ".pi", "agent")
	pi := func(v string) AgentInstall { return AgentInstall{Agent: Pi, Binary: "/bin/pi", Version: v} }
	for _, c := range []struct {
		name  string
		a     Agent
		s     Scope
		file  string
		in    AgentInstall
		wants []string
	}{
		{"current pi, project", Pi, Project, projectExt, pi("1.6.0"), []string{"pi 1.6.0 loads it only once you trust " + project + ": its terminal UI asks, and pi -p (print, JSON and RPC modes) skips it without a word; trust it with /trust in pi or run pi --approve, or attach for every project instead: vigil attach pi"}},
		{"unknown pi, project", Pi, Project, projectExt, AgentInstall{Agent: Pi}, []string{"pi 0.79 and later loads it only once you trust"}},
		{"too new pi, project", Pi, Project, projectExt, pi("2.0.0"), []string{"is newer", "pi 2.0.0 loads it only once you trust"}},
		{"old pi, project", Pi, Project, projectExt, pi("0.78.2"), nil},
		{"current pi, user", Pi, User, userExt, pi("1.6.0"), nil},
		{"omp, project", Omp, Project, filepath.Join(project, ".omp", "extensions", ExtensionName), AgentInstall{Agent: Omp, Version: "18.2.3"}, nil},
		{"too old pi, user", Pi, User, userExt, pi("0.60.0"), []string{"is older"}},
	} {
		got := LoadProblems(c.a, c.s, c.file, c.in, agentDir)
		if len(got) != len(c.wants) {
			t.Errorf("%s: %q, want %d problems", c.name, got, len(c.wants))
			continue
		}
		for i, w := range c.wants {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: problem %d = %q, want %q", c.name, i, got[i], w)
			}
		}
	}
	writeFile(t, filepath.Join(agentDir, "trust.json"), `{"`+project+`": false}`)
	if got := LoadProblems(Pi, Project, projectExt, pi("1.6.0"), agentDir); len(got) != 1 || !strings.Contains(got[0], "pi 1.6.0 will not load it: "+project+" is marked not trusted in "+filepath.Join(agentDir, "trust.json")) {
		t.Errorf("distrusted: %q", got)
	}
	writeFile(t, filepath.Join(agentDir, "trust.json"), `{`)
	if got := LoadProblems(Pi, Project, projectExt, pi("1.6.0"), agentDir); len(got) != 1 || !strings.Contains(got[0], "cannot tell whether pi trusts "+project+": "+filepath.Join(agentDir, "trust.json")+":1:2") {
		t.Errorf("unreadable trust store: %q", got)
	}
}

// FuzzPiProjectTrust: any trust.json either reads as pi's decision or is
// an error that names the file with its line and column (for what is not
// JSON) or says it is not what pi writes; it never panics.
func FuzzPiProjectTrust(f *testing.F) {
	for _, s := range []string{"{}", `{"/a": true}`, `{"/a/b": false, "/a": true}`, `{"/a": null}`, "\uFEFF{}", "[]", `{"/a": 1}`, `{"/a": true,}`, "", "{", "nul"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		agentDir := t.TempDir()
		file := filepath.Join(agentDir, "trust.json")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := PiProjectTrust(agentDir, "/a/b")
		if err == nil {
			if got < Trusted || got > TrustAsked {
				t.Fatalf("decision %v from %q", got, data)
			}
			return
		}
		if msg := err.Error(); !strings.HasPrefix(msg, file+":") {
			t.Fatalf("error does not name the file: %v", err)
		}
	})
}
