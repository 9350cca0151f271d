package tools

import (
	"strings"
	"testing"
)

// With Options.Redact, read and grep show each line rewritten before a
// long one is cut, and grep still matches the file's own text; without
// it they show the file as it is.
func TestRedactRewritesLinesBeforeTheCut(t *testing.T) {
	secret := "SECRET" + strings.Repeat("z", 30)
	hide := func(s string) string { return strings.ReplaceAll(s, secret, "[hidden]") }
	long := strings.Repeat("x", readLineBytes-10) + " " + secret + " tail"
	files := map[string]string{"a.txt": "key " + secret + "\n" + long + "\n"}

	s, root := newSession(t, Options{Redact: hide})
	writeFiles(t, root, files)
	res := mustRun(t, s, "read", map[string]any{"path": "a.txt"})
	text := res.Text()
	if strings.Contains(text, "SECRETzz") {
		t.Errorf("read shows the secret or a piece of it:\n%.200s", text[len(text)-200:])
	}
	wantText(t, res, "1\tkey [hidden]", "[line truncated: ")
	res = mustRun(t, s, "search", map[string]any{"pattern": "SECRETz+", "path": "a.txt"})
	wantText(t, res, "a.txt:1:key [hidden]")
	if strings.Contains(res.Text(), "SECRETzz") {
		t.Errorf("search shows the secret:\n%s", res.Text())
	}

	plain, root := newSession(t, Options{})
	writeFiles(t, root, files)
	wantText(t, mustRun(t, plain, "read", map[string]any{"path": "a.txt"}), "1\tkey "+secret)
}
