package rules

import (
	"fmt"
	"testing"
)

func TestScanSource(t *testing.T) {
	code := `import os, sys
import numpy as np
from django.conf import settings
from . import local
    from astropy.modeling import models
const x = require('left-pad');
with open('django/db/models/query.py', 'r') as f:
    src = f.read()
with open('django/db/models/query.py', 'w') as f:
    f.write(src.replace("a", "b"))
print("see test_output.txt and /tmp/x.py")
`
	f := scanSource(code, "fix.py")
	if got := fmt.Sprint(f.imports); got != "[os sys numpy django astropy left-pad]" {
		t.Errorf("imports = %s", got)
	}
	if !f.writes || fmt.Sprint(f.targets) != "[django/db/models/query.py]" {
		t.Errorf("writes %v targets %v", f.writes, f.targets)
	}
	if f := scanSource("print(open('a.py').read())", "x.py"); f.writes {
		t.Error("a script that only reads writes")
	}
	if f := scanCode("notes.md", "import os"); len(f.imports) != 0 {
		t.Error("a markdown file has imports")
	}
}

func TestParseApplyPatch(t *testing.T) {
	got := parseApplyPatch("*** Begin Patch\n*** Update File: a.py\n@@ def f():\n-    return 1\n+    return 2\n     pass\n*** Update File: b.py\n*** Move to: c.py\n-x\n*** Delete File: d.py\n*** Add File: e.py\n+hello\n*** End Patch\n")
	want := []Edit{
		{Path: "a.py", Op: EditReplace, Old: "    return 1\n", New: "    return 2\n"},
		{Path: "c.py", Op: EditReplace, Old: "x\n"},
		{Path: "d.py", Op: EditDelete},
		{Path: "e.py", Op: EditWrite, New: "hello\n"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestFileKey(t *testing.T) {
	for in, want := range map[string]string{
		"./a/b.py":         "a/b.py",
		"/testbed/a/b.py":  "a/b.py",
		"a//b/../b.py":     "a/b.py",
		"/etc/hosts":       "/etc/hosts",
		"/workspace/x.go":  "x.go",
		"":                 "",
		"/repo/./sub/c.go": "sub/c.go",
	} {
		if got := fileKey(in); got != want {
			t.Errorf("fileKey(%q) = %q, want %q", in, got, want)
		}
	}
}
