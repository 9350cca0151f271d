package rules

import (
	"slices"
	"testing"
)

// TestArgvWordsStayWords checks that a command given as an argv list is
// read word for word: a patch passed as one word to apply_patch is an edit
// of the files it names, and its <tags> are no redirections (Codex's older
// shell tool takes ["apply_patch", "*** Begin Patch…"]).
func TestArgvWordsStayWords(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: apps/web/sitemap.xml\n+<url><changefreq>monthly</changefreq><priority>0.5</priority></url>\n+it's here; a | b & c\n*** End Patch"
	a := act1("shell", map[string]any{"command": []string{"apply_patch", patch}}, "Success. Updated the following files:\nA apps/web/sitemap.xml", false)
	var paths []string
	for _, e := range a.Edits {
		paths = append(paths, e.Path)
	}
	if a.Kind != KindEdit || !slices.Equal(paths, []string{"apps/web/sitemap.xml"}) {
		t.Errorf("apply_patch as an argv word: kind %v, edits of %q; want an edit of apps/web/sitemap.xml only", a.Kind, paths)
	}
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"ls", "-la"}, "ls -la"},
		{[]string{"git", "commit", "-m", "fix: it's done"}, `git commit -m 'fix: it'\''s done'`},
		{[]string{"echo", "a > b"}, "echo 'a > b'"},
		{[]string{"printf", ""}, "printf ''"},
	} {
		if got := joinArgv(c.argv); got != c.want {
			t.Errorf("joinArgv(%q) = %q, want %q", c.argv, got, c.want)
		}
	}
}

// TestPowerShellReads checks that PowerShell's reading and searching
// cmdlets are reads and searches, in any case, so that reading several
// files with Get-Content is no command that "ends the same way".
func TestPowerShellReads(t *testing.T) {
	for _, c := range []struct {
		cmd  []string
		kind Kind
	}{
		{[]string{"Get-Content", "-TotalCount", "200", "src/a.ts"}, KindRead},
		{[]string{"get-childitem", "-Recurse", "src"}, KindRead},
		{[]string{"Select-String", "-Path", "src/*.ts", "-Pattern", "foo"}, KindSearch},
		{[]string{"Remove-Item", "a.txt"}, KindShell},
	} {
		if a := act1("shell", map[string]any{"command": c.cmd}, "x", false); a.Kind != c.kind {
			t.Errorf("%q: kind %v, want %v", c.cmd, a.Kind, c.kind)
		}
	}
	reads := func(file string) st {
		return do(tool("shell", map[string]any{"command": []string{"Get-Content", "-TotalCount", "200", file}}, "  }\n}", false))
	}
	runCases(t, "same-result", []detectorCase{
		{"three files read with Get-Content", []st{reads("a.ts"), reads("b.ts"), reads("c.ts")}, nil},
	})
}
