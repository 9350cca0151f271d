package rules

import (
	"fmt"
	"testing"
)

// writes returns n steps that each write a new source file.
func writes(n int) []st {
	out := make([]st, 0, n)
	for i := range n {
		out = append(out, do(tool("write", map[string]any{"path": fmt.Sprintf("src/m%d.ts", i), "content": fmt.Sprintf("export const v%d = %d;\n", i, i)}, "ok", false)))
	}
	return out
}

// TestUnsupportedClaimUnverifiedWork covers work declared done (tasks
// completed, boxes ticked) after a long stretch of file changes with
// nothing built, tested or run.
func TestUnsupportedClaimUnverifiedWork(t *testing.T) {
	long := writes(unverifiedDone)
	short := writes(unverifiedDone - 3)
	runCases(t, "unsupported-claim", []detectorCase{
		{"tasks declared complete with nothing run", append(append([]st{}, long...),
			say("Implemented all tasks and marked them complete.")), []int{unverifiedDone + 1}},
		{"boxes ticked in place with nothing run", append(append([]st{}, long...),
			do(sh("perl -0pi -e 's/- \\[ \\] T/- [X] T/g' tasks.md", "", false)),
			do(sh("cat tasks.md", "- [X] T001", false))), []int{unverifiedDone + 1}},
		{"boxes ticked by an edit with nothing run", append(append([]st{}, long...),
			do(tool("edit", map[string]any{"path": "tasks.md", "old_text": "- [ ] T001 Add the engine", "new_text": "- [X] T001 Add the engine"}, "ok", false))), []int{unverifiedDone + 1}},
		{"a new checklist is not a tick", append(append([]st{}, long...),
			do(tool("write", map[string]any{"path": "notes.md", "content": "- [x] read the spec\n- [ ] build\n"}, "ok", false))), nil},
		{"done after many changes since the last run", append(append([]st{do(sh("npx vitest run", "1 passed", false))}, long...),
			say("Milestone 3 is complete.")), []int{unverifiedDone + 2}},
		{"a short stretch is not enough", append(append([]st{}, short...),
			say("Implemented all tasks and marked them complete.")), nil},
		{"built before the report", append(append([]st{}, long...),
			do(sh("npm run build", "built in 2s", false)),
			say("Implemented all tasks and marked them complete.")), nil},
		{"a plan is not a report", append(append([]st{}, long...),
			say("Once it builds, all tasks will be complete.")), nil},
	})
}

// TestUnsupportedClaimDeployedUntested covers a final reply that says the
// change is deployed, or done, when nothing was built, tested or run in
// the whole run; again after the user says it still fails.
func TestUnsupportedClaimDeployedUntested(t *testing.T) {
	edit := do(tool("edit", map[string]any{"path": "app/page.tsx", "old_text": "a", "new_text": "b"}, "ok", false))
	push := do(sh("git add -A && git commit -m fix && git push origin main", "main -> main", false))
	deployed := say("Perfect! The fix has been deployed. The page now fetches the client separately.")
	back := st{notes: []string{"still getting the same error"}, calls: []call{tool("read", map[string]any{"path": "app/page.tsx"}, "...", false)}}
	runCases(t, "unsupported-claim", []detectorCase{
		{"deployed with nothing run", []st{edit, push, deployed}, []int{3}},
		{"again after the user pushes back", []st{edit, push, deployed, back, edit, push, say("The magic link fixes have been successfully deployed to the main branch.")}, []int{3, 7}},
		{"deployed after a passing build", []st{edit, do(sh("npm run build", "Compiled successfully", false)), push, deployed}, nil},
		{"nothing changed: a report on history", []st{do(sh("git log -1", "abc deploy", false)), say("The fix has been deployed.")}, nil},
	})
}
