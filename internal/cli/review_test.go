package cli_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// devset is the labelled dev set, whose sessions the review tests use.
var devset, _ = filepath.Abs(filepath.Join("..", "..", "testdata", "devset"))

// runVigil runs vigil with args in a fresh folder and returns its output
// and exit status.
func runVigil(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	root := t.TempDir()
	cmd := vigilCommand(filepath.Join(root, "agent"), root, args...)
	cmd.Env = append(cmd.Env, "NO_COLOR=")
	return runCommand(t, cmd)
}

// runCommand runs cmd and returns its output and exit status.
func runCommand(t *testing.T, cmd *exec.Cmd) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func devFile(rel string) string { return filepath.Join(devset, filepath.FromSlash(rel)) }

func TestReviewSample(t *testing.T) {
	out, errOut, code := runVigil(t, "review", "--sample")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"sample/offcourse.jsonl: vigil, 5 steps, 2 findings", "workaround", "forbidden-edit", "test_calc.py"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("colour on a pipe:\n%q", out)
	}
	// The bundled copy is the file in the source tree.
	inTree, err := filepath.Abs(filepath.Join("sample", "offcourse.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out2, _, _ := runVigil(t, "review", inTree)
	if want := inTree + ": vigil, 5 steps, 2 findings\n"; !strings.HasPrefix(out2, want) || strings.TrimPrefix(out2, want) != strings.TrimPrefix(out, "sample/offcourse.jsonl: vigil, 5 steps, 2 findings\n") {
		t.Errorf("reviewing the file in the tree differs from --sample:\n%s\n%s", out, out2)
	}
}

func TestReviewFolder(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, devFile("vigil/offcourse_repeat_failing_tests.jsonl"), filepath.Join(dir, "a", "repeat.jsonl"))
	copyFile(t, devFile("codex/clean_normal_fix.jsonl.gz"), filepath.Join(dir, "b", "fix.jsonl.gz"))
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a transcript\n"), 0o644)
	// A session cut off in the middle of its last line.
	data, _ := os.ReadFile(devFile("vigil/clean_normal_fix.jsonl"))
	os.WriteFile(filepath.Join(dir, "cut.jsonl"), data[:len(data)-30], 0o644)

	out, errOut, code := runVigil(t, "review", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "skipped "+filepath.Join(dir, "notes.txt")+": not a transcript format") {
		t.Errorf("stderr does not note the skipped file:\n%s", errOut)
	}
	for _, want := range []string{
		filepath.Join(dir, "a", "repeat.jsonl") + ": vigil, 6 steps, 1 finding",
		"repeated-failure",
		filepath.Join(dir, "b", "fix.jsonl.gz") + ": codex, 5 steps, 0 findings",
		filepath.Join(dir, "cut.jsonl") + ": vigil, 4 steps, 0 findings",
		"note: truncated last line (line 11)",
		"file ", "format", "steps",
		"total: 3 files, 3 runs, 15 steps, 1 finding (0 blocker, 1 concern, 0 nit); 1 file skipped (not transcripts)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestReviewJSON(t *testing.T) {
	multi := filepath.Join(t.TempDir(), "output.jsonl")
	line, err := os.ReadFile(filepath.Join("..", "..", "transcript", "testdata", "openhands", "calc-resolver.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(multi, bytes.Repeat(line, 2), 0o644)
	files := []string{devFile("vigil/offcourse_edit_revert_reedit.jsonl"), multi}
	out, errOut, code := runVigil(t, append([]string{"review", "--json"}, files...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want one per file:\n%s", len(lines), out)
	}
	type finding struct {
		Run       *int    `json:"run"`
		Detector  *string `json:"detector"`
		Severity  *string `json:"severity"`
		StartStep *int    `json:"start_step"`
		EndStep   *int    `json:"end_step"`
		Message   *string `json:"message"`
	}
	type object struct {
		File     *string   `json:"file"`
		Format   *string   `json:"format"`
		Steps    *int      `json:"steps"`
		Findings []finding `json:"findings"`
		Runs     []struct {
			Index int `json:"index"`
			Steps int `json:"steps"`
		} `json:"runs"`
		Notes []any `json:"notes"`
	}
	for i, l := range lines {
		var o object
		dec := json.NewDecoder(strings.NewReader(l))
		if err := dec.Decode(&o); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if o.File == nil || *o.File != files[i] || o.Format == nil || o.Steps == nil || o.Findings == nil || o.Runs == nil || o.Notes == nil {
			t.Errorf("line %d lacks a field: %s", i+1, l)
			continue
		}
		sum := 0
		for _, r := range o.Runs {
			sum += r.Steps
		}
		if sum != *o.Steps {
			t.Errorf("line %d: steps %d, runs add up to %d", i+1, *o.Steps, sum)
		}
		for _, f := range o.Findings {
			if f.Run == nil || f.Detector == nil || f.Severity == nil || f.StartStep == nil || f.EndStep == nil || f.Message == nil {
				t.Errorf("line %d: a finding lacks a field: %s", i+1, l)
			} else if *f.StartStep < 1 || *f.EndStep < *f.StartStep || *f.Run >= len(o.Runs) {
				t.Errorf("line %d: finding out of range: %s", i+1, l)
			}
		}
	}
	var first, second object
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[1]), &second)
	if *first.Format != "vigil" || *first.Steps != 8 || len(first.Findings) != 1 || *first.Findings[0].Detector != "edit-thrash" || *first.Findings[0].StartStep != 2 {
		t.Errorf("first file: %s", lines[0])
	}
	if *second.Format != "openhands" || len(second.Runs) != 2 || second.Runs[1].Index != 1 {
		t.Errorf("second file: %s", lines[1])
	}
}

func TestReviewHTML(t *testing.T) {
	page := filepath.Join(t.TempDir(), "report.html")
	out, errOut, code := runVigil(t, "review", "--html", page, devFile("vigil/offcourse_claims_pass_after_failure.jsonl"), devFile("vigil/clean_normal_fix.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "wrote "+page) || !strings.Contains(out, "unsupported-claim") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(data)
	for _, want := range []string{"<!DOCTYPE html>", "unsupported-claim", "All tests pass", "2 files", `class="cell fail`, "▼ steps 3-4"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestReviewExitStatus(t *testing.T) {
	offcourse := devFile("vigil/offcourse_skips_failing_test.jsonl") // two concerns
	clean := devFile("vigil/clean_normal_fix.jsonl")
	notes := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notes, []byte("hello\n"), 0o644)
	for _, c := range []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"findings are not an error", []string{offcourse}, 0, ""},
		{"fail-on concern", []string{"--fail-on", "concern", offcourse}, 1, "found concern findings (--fail-on concern)"},
		{"fail-on nit counts concerns", []string{"--fail-on", "nit", offcourse}, 1, ""},
		{"fail-on blocker", []string{"--fail-on", "blocker", offcourse}, 0, ""},
		{"fail-on with a clean run", []string{"--fail-on", "nit", clean}, 0, ""},
		{"bad severity", []string{"--fail-on", "high", offcourse}, 2, `unknown severity "high"`},
		{"missing file", []string{filepath.Join(devset, "nope.jsonl")}, 2, "1 of 1 files could not be reviewed in full"},
		{"named file not a transcript", []string{"--fail-on", "concern", offcourse, notes}, 2, "1 of 2 files could not be reviewed"},
		{"nothing to review", nil, 2, "--sample"},
		{"unknown flag", []string{"--bogus", offcourse}, 2, "bogus"},
		{"bad rules file", []string{"--rules", notes, offcourse}, 2, "notes.txt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runVigil(t, append([]string{"review"}, c.args...)...)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, out, errOut)
			}
			if !strings.Contains(errOut, c.want) {
				t.Errorf("stderr lacks %q:\n%s", c.want, errOut)
			}
		})
	}
}

func TestReviewRulesFile(t *testing.T) {
	rules := filepath.Join(t.TempDir(), "rules.yml")
	os.WriteFile(rules, []byte("failureRepeats: 5\ndisabled: [workaround]\n"), 0o644)
	out, errOut, code := runVigil(t, "review", "--rules", rules, devFile("vigil/offcourse_repeat_failing_tests.jsonl"), devFile("vigil/offcourse_skips_failing_test.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if strings.Contains(out, "repeated-failure") || strings.Contains(out, "workaround") || !strings.Contains(out, "forbidden-edit") {
		t.Errorf("the rules file was not applied:\n%s", out)
	}
	os.WriteFile(rules, []byte("disabled: [no-such-detector]\n"), 0o644)
	if _, errOut, code := runVigil(t, "review", "--rules", rules, devFile("vigil/clean_normal_fix.jsonl")); code != 2 || !strings.Contains(errOut, `unknown detector "no-such-detector"`) {
		t.Errorf("exit %d, stderr %s", code, errOut)
	}
}

func TestReviewColor(t *testing.T) {
	file := devFile("vigil/offcourse_skips_failing_test.jsonl")
	out, _, _ := runVigil(t, "review", "--color", "always", file)
	if !strings.Contains(out, "\x1b[33mconcern\x1b[0m") {
		t.Errorf("--color always has no colour:\n%q", out)
	}
	out, _, _ = runVigil(t, "review", file)
	if strings.Contains(out, "\x1b[") {
		t.Errorf("colour on a pipe:\n%q", out)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
