package cli_test

import (
	"bytes"
	"encoding/json"
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
	code, ran := exitStatus(err)
	if !ran {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func devFile(rel string) string { return filepath.Join(devset, filepath.FromSlash(rel)) }

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
