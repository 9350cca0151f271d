package rules

import (
	"fmt"
	"testing"
)

func TestSameReply(t *testing.T) {
	sleep := func(text string) st { return say(text, sh("sleep 30", "", false)) }
	n := 0
	tail := func(text string) st {
		// A log that moves on.
		n++
		return say(text, sh("sleep 30; tail -5 build.log", fmt.Sprint([]string{"fetch", "compile", "link", "test", "pack", "sign"}[n%6]), false))
	}
	runCases(t, "repeated-reply", []detectorCase{
		{"waiting, again and again", []st{say("Waiting."), say("Waiting..."), say("waiting"), say("Waiting!"), say("WAITING.")}, []int{3, 5}},
		{"a sleep that shows nothing is other detectors' (polling, loop)", []st{sleep("Waiting."), sleep("Waiting..."), sleep("waiting"), sleep("Waiting."), sleep("Waiting.")}, nil},
		{"numbers and case do not make it new", []st{say("Build 1 of 3 still running."), say("build 2 of 3 still running"), say("Build 3 of 3 still running.")}, []int{3}},
		{"the same words over a log that moves on", []st{tail("Waiting for the build."), tail("Waiting for the build."), tail("Waiting for the build."), tail("Waiting for the build.")}, nil},
		{"the same words before real work", []st{
			say("Now let me run the test again:", sh("python t.py", "E1", true)), say("Now let me run the test again:", sh("python t.py", "E2", true)),
			say("Now let me run the test again:", sh("python t.py", "E3", true)),
		}, nil},
		{"different replies", []st{say("Let me read the file."), say("Now the tests."), say("Let me read the file.")}, nil},
		{"work between the replies", []st{
			say("Let me try again.", tool("edit", map[string]any{"path": "a.py", "old_text": "1", "new_text": "2"}, "ok", false)),
			say("Let me try again.", tool("edit", map[string]any{"path": "a.py", "old_text": "2", "new_text": "3"}, "ok", false)),
			say("Let me try again.", tool("edit", map[string]any{"path": "a.py", "old_text": "3", "new_text": "4"}, "ok", false)),
		}, nil},
		{"empty replies are not restated decisions", []st{do(sh("ls", "a", false)), do(sh("ls b", "b", false)), do(sh("ls c", "c", false))}, nil},
	})
}
