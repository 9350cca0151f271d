package tools

import (
	"strings"
	"testing"
)

// With Options.Redact, read and grep show each line too long to show
// whole rewritten before it is cut, and grep still matches the file's own
// text; lines shown whole are the caller's to redact with the whole
// output (where a secret that spans lines is seen whole); without it
// they show the file as it is.
func TestRedactRewritesLinesBeforeTheCut(t *testing.T) {
	secret := "SECRET" + strings.Repeat("z", 30)
	hide := func(s string) string { return strings.ReplaceAll(s, secret, "[hidden]") }
	long := strings.Repeat("x", readLineBytes-10) + " " + secret + " tail"
	files := map[string]string{"a.txt": "key " + secret + "\n" + long + "\n"}

	s, root := newSession(t, Options{Redact: hide})
	writeFiles(t, root, files)
	res := mustRun(t, s, "read", map[string]any{"path": "a.txt"})
	text := res.Text()
	if strings.Count(text, "SECRETzz") != 1 {
		t.Errorf("read shows the secret of the long line or a piece of it:\n%.200s", text[len(text)-200:])
	}
	wantText(t, res, "1\tkey "+secret, "[hidden] … [line truncated: ")
	res = mustRun(t, s, "search", map[string]any{"pattern": "SECRETz+", "path": "a.txt"})
	wantText(t, res, "a.txt:1:key "+secret, "a.txt:2:")
	if strings.Count(res.Text(), "SECRETzz") != 1 {
		t.Errorf("search shows the secret of the long line:\n%s", res.Text())
	}

	plain, root := newSession(t, Options{})
	writeFiles(t, root, files)
	wantText(t, mustRun(t, plain, "read", map[string]any{"path": "a.txt"}), "1\tkey "+secret)
}
