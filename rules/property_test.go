package rules

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/transcript"
)

// randomRun makes a run of n steps drawn from a small vocabulary of
// commands, outputs and edits, so that repeats, failures, reverts and
// claims all happen by chance.
func randomRun(r *rand.Rand, n int) []transcript.Step {
	cmds := []string{"python -m pytest -q", "cat a.py", "git status", "python repro.py", "ls", "grep -rn foo .", "make", "pip install x",
		"git stash", "git checkout -- a.py", "git reset --hard", "npm run dev &", "pkill -9 node", "echo Successfully updated a.py", "sleep 5"}
	outs := []string{"ok", "FAILED (failures=1)", "Traceback (most recent call last):\nValueError: bad", "No module named 'numpy'", "1 passed", ""}
	texts := []string{"", "Let me look.", "All tests pass.", "The issue is fixed.", "While I am here, more.", "It has the same issue.",
		"Waiting.", "I have fixed the bug.", "===== 3 passed in 0.1s ====="}
	files := []string{"a.py", "b.py", "tests/test_a.py", "fix.patch"}
	var specs []st
	for i := 0; i < n; i++ {
		s := st{text: texts[r.IntN(len(texts))]}
		if i == 0 {
			s.notes = []string{"Fix the bug. Do not modify the tests."}
		} else if r.IntN(15) == 0 {
			s.notes = []string{"Try another way."}
		}
		for k := r.IntN(3); k > 0; k-- {
			switch r.IntN(5) {
			case 0, 1:
				s.calls = append(s.calls, sh(cmds[r.IntN(len(cmds))], outs[r.IntN(len(outs))], r.IntN(3) == 0))
			case 2:
				f := files[r.IntN(len(files))]
				a, b := fmt.Sprint("v", r.IntN(3)), fmt.Sprint("v", r.IntN(3))
				s.calls = append(s.calls, tool("edit", map[string]any{"path": f, "old_text": a, "new_text": b}, "ok", r.IntN(5) == 0))
			case 3:
				f := files[r.IntN(len(files))]
				s.calls = append(s.calls, sh(fmt.Sprintf("cat > %s << 'EOF'\nv%d\nEOF", f, r.IntN(3)), "", false))
			case 4:
				f := files[r.IntN(len(files))]
				s.calls = append(s.calls, sh("cp "+f+".bak "+f, "", false))
			}
		}
		specs = append(specs, s)
	}
	return build(specs...)
}

// TestEngineProperties checks, over many random runs, what every finding
// must satisfy and that the engine is deterministic.
func TestEngineProperties(t *testing.T) {
	names := map[string]bool{}
	for _, d := range Detectors() {
		names[d.Name] = true
	}
	total := map[string]int{}
	defer func() {
		// The random runs must exercise the detectors for the checks to
		// mean something.
		if len(total) < 5 {
			t.Errorf("random runs triggered only %v", total)
		}
	}()
	for seed := uint64(0); seed < 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 1))
		steps := randomRun(r, 20+r.IntN(100))
		var first []Finding
		for pass := 0; pass < 2; pass++ {
			e := New(Settings{})
			var all []Finding
			seen := map[string]bool{}
			for _, st := range steps {
				for _, f := range e.Observe(st) {
					if f.EndStep != st.N || f.StartStep < 1 || f.StartStep > f.EndStep {
						t.Fatalf("seed %d: step %d: bad range %+v", seed, st.N, f)
					}
					if !names[f.Detector] || f.Severity.Rank() == 0 || f.Message == "" || strings.Contains(f.Message, "\n") {
						t.Fatalf("seed %d: malformed finding %+v", seed, f)
					}
					key := fmt.Sprint(f.Detector, f.StartStep, f.Message)
					if seen[key] {
						t.Fatalf("seed %d: reported twice: %+v", seed, f)
					}
					seen[key] = true
					all = append(all, f)
					if pass == 0 {
						total[f.Detector]++
					}
				}
			}
			if pass == 0 {
				first = all
			} else if !reflect.DeepEqual(first, all) {
				t.Fatalf("seed %d: two engines disagree:\n%v\n%v", seed, first, all)
			}
		}
	}
}

// TestMemoryBounded runs a long run of distinct files and commands and
// checks that the engine's state stays within its bounds.
func TestMemoryBounded(t *testing.T) {
	e := New(Settings{})
	for i := 1; i <= 5000; i++ {
		steps := build(
			do(sh(fmt.Sprintf("cat > f%d.py << 'EOF'\nx = %d\nEOF", i, i), "", false)),
			do(sh(fmt.Sprintf("python f%d.py", i), fmt.Sprint("out ", i), i%2 == 0)),
			do(sh(fmt.Sprintf("sed -n %d,%dp big.py", i, i+9), fmt.Sprint("line ", i), false)),
		)
		for k, st := range steps {
			st.N = 3*(i-1) + k + 1
			e.Observe(st)
		}
	}
	if n := len(e.files.files); n > maxFiles {
		t.Errorf("file tracker holds %d files, bound %d", n, maxFiles)
	}
	for _, d := range e.dets {
		switch d := d.(type) {
		case *repeatedFailure:
			if len(d.runs) > 128 {
				t.Errorf("repeated-failure holds %d commands", len(d.runs))
			}
		case *polling:
			if len(d.reads) > 256 {
				t.Errorf("polling holds %d commands", len(d.reads))
			}
		case *loop:
			if len(d.seen) > 8*e.s.Window+64 {
				t.Errorf("loop holds %d signatures", len(d.seen))
			}
		}
	}
	if len(e.reported) > e.s.Window {
		t.Errorf("engine holds %d reported findings", len(e.reported))
	}
}

func TestResets(t *testing.T) {
	fail := do(sh("make", "E", true))
	steps := build(fail, fail)
	e := New(Settings{})
	for _, st := range steps {
		e.Observe(st)
	}
	// A new run numbered from 1 again starts over: two more failures are
	// not a third.
	for _, st := range build(fail, fail) {
		if got := e.Observe(st); len(got) != 0 {
			t.Errorf("after a new run started, got %v", got)
		}
	}
	// So does a compaction.
	e = New(Settings{})
	e.Observe(steps[0])
	e.Observe(steps[1])
	third := build(fail, fail, fail)[2]
	third.Context = []session.Entry{{Body: &session.Compaction{Summary: "earlier work"}}}
	if got := e.Observe(third); len(got) != 0 {
		t.Errorf("after a compaction, got %v", got)
	}
	e.Reset()
	var got []Finding
	for _, st := range build(fail, fail, fail) {
		got = append(got, e.Observe(st)...)
	}
	if len(got) != 1 {
		t.Errorf("after Reset, three failures gave %v, want one finding", got)
	}
}
