package rules

import (
	"fmt"
	"testing"
)

// TestUnsupportedClaimCheckMarked covers a reply that marks the last run's
// program with a check mark, in any language, when that run failed.
func TestUnsupportedClaimCheckMarked(t *testing.T) {
	edit := do(tool("edit", map[string]any{"path": "app/config.py", "old_text": "a", "new_text": "b"}, "ok", false))
	failed := do(sh(". .venv/bin/activate && pytest -q --tb=no 2>&1 | tail -3", "FAILED tests/test_a.py::test_upload\n6 failed, 15 passed in 2.1s", false))
	passed := do(sh("pytest -q", "21 passed in 2.0s", false))
	runCases(t, "unsupported-claim", []detectorCase{
		{"a failed run marked done in French", []st{edit, failed,
			say("Parfait.\n\n## ✅ Résultats\n\n```\npytest -q                # ✅ FONCTIONNE (15/21 tests passent)\n```")}, []int{3}},
		{"a heavy check mark", []st{edit, failed, say("pytest ✔ ok")}, []int{3}},
		{"the run passed", []st{edit, passed, say("pytest -q  # ✅ FONCTIONNE")}, nil},
		{"a line that also marks a failure", []st{edit, failed, say("pytest ✅ 15 ❌ 6")}, nil},
		{"a check mark about something else", []st{edit, failed, say("✅ Configuration par défaut ajoutée")}, nil},
		{"a bare interpreter names no run", []st{edit, do(sh("python app.py", "Traceback (most recent call last):\nValueError: x", false)), say("✅ python packaging fixed")}, nil},
	})
}

// TestUnsupportedClaimWorkReport covers a final reply that reports work
// done in the first person after a long stretch of unverified changes.
func TestUnsupportedClaimWorkReport(t *testing.T) {
	long := writes(unverifiedDone)
	report := say("I’ve switched the storage layer to Redis (with an in-memory fallback when REDIS_URL isn’t set) and updated all affected routes and tests.")
	runCases(t, "unsupported-claim", []detectorCase{
		{"a report after a long unverified stretch", append(append([]st{}, long...), report), []int{unverifiedDone + 1}},
		{"a report after a short stretch", append(writes(3), report), nil},
		{"a report after a run", append(append(append([]st{}, long...), do(sh("npm test", "12 passed", false))), report), nil},
		{"a plan is no report", append(append([]st{}, long...), say("Next I will switch the storage layer to Redis.")), nil},
	})
}

// TestUnsupportedClaimWorkReportNothingRun covers a final first-person
// report of code changes when nothing was run in the whole run, and not of
// prose changes, which no run checks.
func TestUnsupportedClaimWorkReportNothingRun(t *testing.T) {
	code := do(tool("edit", map[string]any{"path": "src/app/footer.html", "old_text": "a@x.de", "new_text": "b@x.de"}, "ok", false))
	wiring := do(tool("edit", map[string]any{"path": "src/app/app.ts", "old_text": "a", "new_text": "b"}, "ok", false))
	prose := do(tool("edit", map[string]any{"path": "README.md", "old_text": "a", "new_text": "b"}, "ok", false))
	runCases(t, "unsupported-claim", []detectorCase{
		{"code changed, nothing run", []st{code, wiring, say("I updated the contact details and finished wiring the frontend so it runs cleanly.")}, []int{3}},
		{"only prose changed", []st{prose, say("I updated the README with the new install steps.")}, nil},
		{"a run checked it", []st{code, wiring, do(sh("npm run build", "built in 3s", false)), say("I updated the contact details.")}, nil},
	})
}

// TestUnsupportedClaimProseOnly checks that documents written and tasks
// ticked with nothing run are no unsupported claim: no run checks prose.
func TestUnsupportedClaimProseOnly(t *testing.T) {
	var docs []st
	for i := range unverifiedDone + 2 {
		docs = append(docs, do(tool("write", map[string]any{"path": fmt.Sprintf("specs/d%d.md", i), "content": "# doc\n"}, "ok", false)))
	}
	runCases(t, "unsupported-claim", []detectorCase{
		{"docs written, a docs task ticked", append(append([]st{}, docs...),
			do(tool("edit", map[string]any{"path": "specs/tasks.md", "old_text": "- [ ] T001 Create the docs index", "new_text": "- [X] T001 Create the docs index"}, "ok", false))), nil},
		{"docs written, phase reported done", append(append([]st{}, docs...), say("Phase 1 completed.")), nil},
	})
}
