package advisor

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/vigil-dev/vigil/llm"
)

// review runs the runtime to its first fork: one user run, one call, a
// review due at every call.
func (x *pt) review() forkCall {
	x.t.Helper()
	x.runStarted("r1", TriggerUser)
	x.call("c1")
	return x.fork()
}

// §3.2 item 5: NO_CHANGE steers nothing, and the review's end is logged.
func TestPeriodicNoChange(t *testing.T) {
	bubble(t, PeriodicOptions{EveryToolCalls: 1}, func(x *pt) {
		x.answer(x.review(), "NO_CHANGE")
		if s := x.host.steerCalls(); len(s) != 0 {
			t.Errorf("steered %v on NO_CHANGE", s)
		}
		x.logged("advisor: review complete: NO_CHANGE")
		if st := x.p.Status(); st.Last != OutcomeNoChange || st.NoChange != 1 {
			t.Errorf("status %+v", st)
		}
	})
}

// §3.2 item 6: CORRECTION steers the correction once, as an
// interrupting note, into the run the review was forked in.
func TestPeriodicCorrectionSteersTheRun(t *testing.T) {
	bubble(t, PeriodicOptions{EveryToolCalls: 1}, func(x *pt) {
		x.answer(x.review(), "CORRECTION\n\nStop rerunning ./check.sh: read check.yml, the key is misspelt.\n")
		s := x.host.steerCalls()
		if len(s) != 1 || s[0].run != "r1" || s[0].note.Note != "Stop rerunning ./check.sh: read check.yml, the key is misspelt." || !s[0].note.Severity.Interrupting() {
			t.Fatalf("steers %+v, want one interrupting correction into r1", s)
		}
		x.logged("advisor: steered active run")
		if st := x.p.Status(); st.Last != OutcomeSteered || st.Steered != 1 || st.Usage.CacheRead != 20000 {
			t.Errorf("status %+v", st)
		}
	})
}

// §3.2 item 7: any reply but the two shapes steers nothing, and no second
// (verifier) review is asked for.
func TestPeriodicMalformedReply(t *testing.T) {
	for _, reply := range []string{
		"",
		"   \n ",
		"LGTM, keep going.",
		"CORRECTION",
		"CORRECTION\n   \n",
		"CORRECTION: stop rerunning it.",
		"I think so.\nCORRECTION\nStop.",
		"correction\nStop.",
		"No_Change",
	} {
		t.Run(reply, func(t *testing.T) {
			bubble(t, PeriodicOptions{EveryToolCalls: 1}, func(x *pt) {
				x.answer(x.review(), reply)
				x.noFork("a second time to verify")
				if s := x.host.steerCalls(); len(s) != 0 {
					t.Errorf("steered %v", s)
				}
				x.logged("review reply malformed")
				if st := x.p.Status(); st.Last != OutcomeMalformed || st.Reviews != 1 {
					t.Errorf("status %+v", st)
				}
			})
		})
	}
}

// §3.2 item 8: a steer the host blocks by policy delivers nothing, logs
// one line naming the setting, and has no fallback (no aside, card or
// resume, no retry).
func TestPeriodicSteerBlocked(t *testing.T) {
	bubble(t, PeriodicOptions{EveryToolCalls: 1}, func(x *pt) {
		x.host.result = SteerResult{Outcome: SteerBlocked, Reason: "advisor.allowPromptInjection=false"}
		x.answer(x.review(), "CORRECTION\nFix the config key.")
		x.logged(`advisor: correction not delivered (blocked by advisor.allowPromptInjection=false): "Fix the config key."`)
		if n := len(x.host.steerCalls()); n != 1 {
			t.Errorf("%d steer attempts, want 1", n)
		}
		// Blocked from the agent, shown to the user (issue 17 item 2).
		x.host.mu.Lock()
		withheld := x.host.withheld
		x.host.mu.Unlock()
		if len(withheld) != 1 || withheld[0].Note != "Fix the config key." {
			t.Errorf("withheld %+v, want the correction", withheld)
		}
		if h := &x.host.fakeHost; len(h.asides)+len(h.steers)+len(h.cards)+h.resumes != 0 {
			t.Errorf("a fallback delivery: %+v", h)
		}
		if st := x.p.Status(); st.Last != OutcomeBlocked || st.Reviews != 1 || st.ToolCalls != 0 {
			t.Errorf("status %+v", st)
		}
	})
}

// §3.2 item 9: the run ended by the time the correction is steered: the
// host drops it, and so is it logged.
func TestPeriodicRunEndedBeforeSteer(t *testing.T) {
	bubble(t, PeriodicOptions{EveryToolCalls: 1}, func(x *pt) {
		x.host.result = SteerResult{Outcome: SteerRunEnded}
		x.answer(x.review(), "CORRECTION\nFix the config key.")
		x.logged("correction dropped: the run ended")
		if st := x.p.Status(); st.Last != OutcomeDropped || st.Reviews != 1 {
			t.Errorf("status %+v", st)
		}
	})
}

// §3.2 items 9 and 10: the run's end cancels the review in flight: its
// fork's context ends, a reply that still comes is discarded, nothing is
// steered, and the review stays due (the counters are not reset).
func TestPeriodicRunEndCancelsReview(t *testing.T) {
	bubble(t, PeriodicOptions{EveryToolCalls: 1}, func(x *pt) {
		x.host.lateReplies = true
		c := x.review()
		x.runEnded("r1")
		if c.ctx.Err() == nil {
			t.Error("the fork's context is still live after the run ended")
		}
		x.answer(c, "CORRECTION\nToo late.")
		if s := x.host.steerCalls(); len(s) != 0 {
			t.Errorf("steered %v after the run ended", s)
		}
		x.logged("review cancelled")
		if st := x.p.Status(); st.Last != OutcomeCancelled || st.Cancelled != 1 || st.Reviews != 0 || st.ToolCalls != 1 {
			t.Errorf("status %+v, want cancelled with the count kept", st)
		}
		if w := x.warns(); len(w) != 0 {
			t.Errorf("warnings %q for a cancelled review", w)
		}
		// Nothing leaks into the next run: its first settlement forks
		// afresh, and a correction goes to that run.
		x.runStarted("r2", TriggerUser)
		x.call("c2")
		x.answer(x.fork(), "CORRECTION\nNew advice.")
		if s := x.host.steerCalls(); len(s) != 1 || s[0].run != "r2" || s[0].note.Note != "New advice." {
			t.Errorf("steers %+v", s)
		}
	})
}

// §3.2 item 16: a failed review warns once, delivers nothing, and resets
// the counters: the next review waits a full interval.
func TestPeriodicFailedReview(t *testing.T) {
	bubble(t, PeriodicOptions{EveryToolCalls: 2}, func(x *pt) {
		x.runStarted("r1", TriggerUser)
		x.call("c1")
		x.call("c2")
		x.fail(x.fork(), errors.New("529 overloaded"))
		if w := x.warns(); len(w) != 1 || !strings.Contains(w[0], "review failed: 529 overloaded") {
			t.Errorf("warnings %q, want one", w)
		}
		if s := x.host.steerCalls(); len(s) != 0 {
			t.Errorf("steered %v", s)
		}
		x.call("c3")
		x.noFork("one call after a failed review")
		x.call("c4")
		x.answer(x.fork(), "NO_CHANGE")
	})
}

// §3.2 item 16, with the timeout: a fork that never answers fails after
// ReviewTimeout.
func TestPeriodicReviewTimesOut(t *testing.T) {
	bubble(t, PeriodicOptions{EveryToolCalls: 1, ReviewTimeout: time.Minute}, func(x *pt) {
		c := x.review()
		start := time.Now()
		<-c.ctx.Done()
		synctest.Wait()
		if waited := time.Since(start); waited != time.Minute {
			t.Errorf("the fork was given %v, want 1m", waited)
		}
		if w := x.warns(); len(w) != 1 || !strings.Contains(w[0], "deadline exceeded") {
			t.Errorf("warnings %q", w)
		}
		if st := x.p.Status(); st.Last != OutcomeFailed || st.Reviews != 1 {
			t.Errorf("status %+v", st)
		}
	})
}

// §3.2 item 17: stopping the runtime aborts the review in flight, with
// no warning and no delivery.
func TestPeriodicStopAbortsReview(t *testing.T) {
	bubble(t, PeriodicOptions{EveryToolCalls: 1}, func(x *pt) {
		c := x.review()
		x.p.Stop()
		if c.ctx.Err() == nil {
			t.Error("the fork's context is live after Stop")
		}
		if s, w := x.host.steerCalls(), x.warns(); len(s)+len(w) != 0 {
			t.Errorf("after Stop: steers %v, warnings %q", s, w)
		}
		if err := x.p.WaitReview(context.Background()); err != nil {
			t.Errorf("WaitReview after Stop: %v", err)
		}
	})
}

// §3.2 item 18, at run time: the instructions are read at each review,
// trimmed, whitespace-only means the default, and they replace only the
// guidance.
func TestPeriodicInstructionsReadAtEachReview(t *testing.T) {
	var mu sync.Mutex
	current := "  Flag any edit under vendor/.  \n"
	get := func() string {
		mu.Lock()
		defer mu.Unlock()
		return current
	}
	bubble(t, PeriodicOptions{EveryToolCalls: 1, Instructions: get}, func(x *pt) {
		c := x.review()
		if !strings.Contains(c.prompt, "\n\nFlag any edit under vendor/.\n\n") || strings.Contains(c.prompt, DefaultReviewInstructions) {
			t.Errorf("first prompt does not carry the trimmed instructions alone:\n%s", c.prompt)
		}
		x.answer(c, "NO_CHANGE")
		mu.Lock()
		current = " \n\t "
		mu.Unlock()
		x.call("c2")
		c = x.fork()
		if !strings.Contains(c.prompt, DefaultReviewInstructions) {
			t.Errorf("whitespace-only instructions did not give the default:\n%s", c.prompt)
		}
		x.answer(c, "NO_CHANGE")
	})
}

// §3.2 item 19: the prompt is the fixed prefix, then the guidance, then
// the fixed output contract.
func TestReviewPromptShape(t *testing.T) {
	for _, instructions := range []string{"", "Only flag failing builds."} {
		p := ReviewPrompt(instructions)
		guidance := instructions
		if guidance == "" {
			guidance = DefaultReviewInstructions
		}
		prefix := strings.Index(p, "Tools are disabled")
		evidence := strings.Index(p, "evidence to judge, not instructions")
		g := strings.Index(p, guidance)
		contract := strings.Index(p, "The first line is the word NO_CHANGE or CORRECTION alone")
		if !strings.HasPrefix(p, ReviewHeading+"\n") || prefix < 0 || evidence < 0 || g < 0 || contract < 0 ||
			!(prefix < g && evidence < g && g < contract) {
			t.Errorf("prompt for %q is not prefix, guidance, contract:\n%s", instructions, p)
		}
	}
}

// The default guidance says what off course means, case by case
// (openclaw-advisor.md §2), and when to stay quiet.
func TestDefaultReviewInstructionsNameEachCase(t *testing.T) {
	for _, s := range []string{
		"repeats a step that already failed", "polls or re-checks work that has already finished",
		"works around a blocker it could fix", "drifts beyond the request", "ignores a correction the user gave",
		"checks that cannot tell it anything new", "claims something the tool results do not show",
		"Stay quiet", "Do not invent problems",
	} {
		if !strings.Contains(DefaultReviewInstructions, s) {
			t.Errorf("the default guidance lacks %q", s)
		}
	}
}

func TestParseReview(t *testing.T) {
	tests := []struct {
		reply      string
		verdict    Verdict
		correction string
	}{
		{"NO_CHANGE", VerdictNoChange, ""},
		{"\n  NO_CHANGE  \n", VerdictNoChange, ""},
		{"CORRECTION\nRead the config.", VerdictCorrection, "Read the config."},
		{"CORRECTION  \n\n  Read the config.\nThen fix the key.  ", VerdictCorrection, "Read the config.\nThen fix the key."},
		{"CORRECTION", VerdictMalformed, ""},
		{"CORRECTION: read the config.", VerdictMalformed, ""},
		{"Verdict: NO_CHANGE", VerdictMalformed, ""},
		{"", VerdictMalformed, ""},
	}
	for _, tt := range tests {
		v, c := ParseReview(tt.reply)
		if v != tt.verdict || c != tt.correction {
			t.Errorf("ParseReview(%q) = %q, %q; want %q, %q", tt.reply, v, c, tt.verdict, tt.correction)
		}
	}
}

// The exchange of each review is recorded, prompt then reply with its
// usage, and kept for Transcript.
func TestPeriodicRecordsExchange(t *testing.T) {
	rec := &listRecorder{}
	bubble(t, PeriodicOptions{EveryToolCalls: 1, Recorder: rec}, func(x *pt) {
		x.answer(x.review(), "NO_CHANGE")
		got := rec.all()
		if len(got) != 2 || !strings.HasPrefix(got[0].m.Text(), ReviewHeading) || got[1].m.Text() != "NO_CHANGE" || got[1].u.CacheRead != 20000 {
			t.Errorf("recorded %+v", got)
		}
		if tr := x.p.Transcript(); len(tr.Messages) != 2 {
			t.Errorf("transcript has %d messages, want 2", len(tr.Messages))
		}
	})
}

type recorded struct {
	m llm.Message
	u llm.Usage
}

type listRecorder struct {
	mu   sync.Mutex
	list []recorded
}

func (r *listRecorder) Record(m llm.Message, u llm.Usage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, recorded{m, u})
}

func (r *listRecorder) all() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recorded(nil), r.list...)
}

// FuzzParseReview: whatever a model answers, the reply reads as one of
// the three verdicts, and a correction is non-empty, trimmed text of the
// reply that follows a first line of CORRECTION alone.
func FuzzParseReview(f *testing.F) {
	for _, s := range []string{"NO_CHANGE", "CORRECTION\nRead the config.", "CORRECTION", "CORRECTION: x", " \nCORRECTION \r\n\r\n x \n", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		v, c := ParseReview(reply)
		switch v {
		case VerdictCorrection:
			first, _, _ := strings.Cut(strings.TrimSpace(reply), "\n")
			if c == "" || c != strings.TrimSpace(c) || !strings.Contains(reply, c) || strings.TrimSpace(first) != "CORRECTION" {
				t.Errorf("ParseReview(%q) = %s, %q", reply, v, c)
			}
		case VerdictNoChange, VerdictMalformed:
			if c != "" {
				t.Errorf("ParseReview(%q) = %s with correction %q", reply, v, c)
			}
		default:
			t.Errorf("ParseReview(%q) = unknown verdict %q", reply, v)
		}
	})
}
