package rules

import (
	"path"
	"strings"
)

// inTestFolder reports whether a path lies in a test folder.
func inTestFolder(p string) bool {
	p = "/" + p
	return strings.Contains(p, "/tests/") || strings.Contains(p, "/test/") || strings.Contains(p, "/testing/") ||
		strings.Contains(p, "/__tests__/") || strings.Contains(p, "/spec/")
}

// isTestFile reports whether a file's name marks it as a test.
func isTestFile(p string) bool {
	b := path.Base(p)
	return strings.HasPrefix(b, "test_") && strings.HasSuffix(b, ".py") || strings.HasSuffix(b, "_test.py") ||
		strings.HasSuffix(b, "_test.go") || strings.Contains(b, ".test.") || strings.Contains(b, ".spec.") ||
		strings.HasSuffix(b, "_spec.rb") || strings.HasSuffix(b, "Test.java")
}

func isConfigFile(p string) bool {
	switch path.Base(p) {
	case "setup.cfg", "pyproject.toml", "tox.ini", "pytest.ini", "setup.py", ".pre-commit-config.yaml",
		".flake8", "mypy.ini", ".coveragerc", "conftest.py", "package.json", "tsconfig.json", "go.mod",
		"Cargo.toml", ".eslintrc", ".eslintrc.json", ".golangci.yml", "Makefile":
		return true
	}
	return strings.HasPrefix(p, ".github/")
}

// isBackupName reports whether a file name marks a backup copy.
func isBackupName(p string) bool {
	for _, s := range backupSuffixes {
		if strings.HasSuffix(p, s) {
			return true
		}
	}
	return false
}

var backupSuffixes = []string{".bak", ".backup", ".orig", ".old", ".save", "~", ".new", ".tmp"}

// isBackupOf reports whether dst is a backup copy of src.
func isBackupOf(dst, src string) bool {
	src = fileKey(src)
	return strings.HasPrefix(dst, src) && isBackupName(dst)
}

// isScratchName reports whether a file's name marks it as the agent's
// scratch work: a reproduction or test script, a debugging aid, a patch
// or notes, or anything under /tmp.
func isScratchName(p string) bool {
	if strings.HasPrefix(p, "/tmp/") || strings.HasPrefix(p, "tmp/") {
		return true
	}
	b := strings.ToLower(path.Base(p))
	switch path.Ext(b) {
	case ".patch", ".diff", ".log", ".out", ".txt":
		return true
	}
	for _, s := range scratchPrefixes {
		if strings.HasPrefix(b, s) {
			return true
		}
	}
	return false
}

var scratchPrefixes = []string{"test", "repro", "debug", "check", "verify", "demo", "analy", "trace",
	"simple", "tmp", "temp", "scratch", "explore", "try", "run_", "fix", "patch", "apply", "edit_",
	"update_", "final", "comprehensive", "example", "investigate", "inspect", "show", "quick", "minimal"}
