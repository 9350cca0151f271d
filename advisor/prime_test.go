package advisor

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// startBlockingWith is startBlocking with options and a host prepared
// before the runtime starts.
func startBlockingWith(t *testing.T, host *fakeHost, mod func(*Options)) (*Runtime, *blockingModel) {
	t.Helper()
	m := newBlockingModel()
	opts := Options{Model: m, Host: host}
	if mod != nil {
		mod(&opts)
	}
	r, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	r.Start(t.Context())
	return r, m
}

// allText is every text a request sends, joined.
func allText(req llm.Request) string {
	var sb strings.Builder
	for _, m := range req.Messages {
		sb.WriteString(m.Text())
		sb.WriteString("\n")
	}
	return sb.String()
}

func TestRuntimeStartAtEndSkipsEarlierHistory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		host := &fakeHost{}
		host.step("OLD-before-the-advisor")
		r, m := startBlockingWith(t, host, func(o *Options) { o.Start = StartAtEnd })
		defer r.Stop()
		synctest.Wait() // the start point is taken before the next step
		r.Notify(host.step("NEW-after-enabling"))
		req := <-m.calls
		m.replies <- fakeReply{text: "ok"}
		text := allText(req)
		if !strings.Contains(text, "NEW-after-enabling") || strings.Contains(text, "OLD-before") {
			t.Errorf("first update = %q, want the new step only", text)
		}
	})
}

func TestRuntimeStartPrimedReplaysABoundedTail(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		host := &fakeHost{}
		for i := range 200 {
			host.step(strings.Repeat("x", 400) + " OLD-" + string(rune('A'+i%26)) + "-" + strings.Repeat("y", 3) + strconv.Itoa(i))
		}
		r, m := startBlockingWith(t, host, func(o *Options) { o.Start = StartPrimed; o.PrimeTokens = 2000 })
		defer r.Stop()
		synctest.Wait()
		if s := r.Status(); s.Reviews != 0 || s.Pending {
			t.Fatalf("a primed start reviewed before any step: %+v", s)
		}
		r.Notify(host.step("NEW-step"))
		req := <-m.calls
		m.replies <- fakeReply{text: "ok"}
		text := allText(req)
		if !strings.Contains(text, "NEW-step") || !strings.Contains(text, "yyy199") {
			t.Errorf("primed update lacks the new step or the latest old one")
		}
		if strings.Contains(text, "yyy0\n") || strings.Contains(text, "yyy100") {
			t.Errorf("primed update replays old history beyond the budget")
		}
		if n := len(text) / 4; n > 2000+200 {
			t.Errorf("primed update is about %d tokens, want about the 2000 budget", n)
		}
	})
}

func TestRuntimeRewriteResetsAndPrimesFromTheView(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		host := &fakeHost{}
		r, m := startBlockingWith(t, host, nil)
		defer r.Stop()
		r.Notify(host.step("STEP-A"))
		<-m.calls
		m.replies <- fakeReply{text: "ok"}
		r.Notify(host.step("STEP-B"))
		<-m.calls
		m.replies <- fakeReply{text: "ok"}
		synctest.Wait()

		// A compaction: the primary now sees a summary and STEP-B.
		host.mu.Lock()
		host.entries = append(host.entries, session.Entry{ID: "c", Body: &session.Compaction{Summary: "SUMMARY-of-A"}})
		host.viewFrom = 1
		host.entries = append(host.entries[:1], host.entries[2], host.entries[1]) // summary first, then kept B
		host.mu.Unlock()
		r.Notify(Event{Kind: EventHistoryRewritten})
		synctest.Wait()
		if s := r.Status(); s.ContextMessages != 0 || s.Resets != 1 {
			t.Errorf("after a rewrite: %+v, want an empty context and one reset", s)
		}
		r.Notify(host.step("STEP-C"))
		req := <-m.calls
		m.replies <- fakeReply{text: "ok"}
		if len(req.Messages) != 1 {
			t.Fatalf("first request after the reset has %d messages, want 1", len(req.Messages))
		}
		text := allText(req)
		for _, want := range []string{"SUMMARY-of-A", "STEP-B", "STEP-C"} {
			if !strings.Contains(text, want) {
				t.Errorf("re-primed update lacks %s: %q", want, text)
			}
		}
		if strings.Contains(text, "STEP-A") {
			t.Errorf("re-primed update replays what the compaction replaced: %q", text)
		}
	})
}

func TestRuntimeDeliveredNoteSurvivesAFailedReview(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		host := &fakeHost{}
		// The failure comes in the call after the note, which a review
		// ending with its advise call would not make.
		r, m := startBlockingWith(t, host, func(o *Options) { o.ContinueAfterAdvise = true })
		defer r.Stop()
		r.Notify(host.step("STEP-1"))
		<-m.calls
		m.replies <- fakeReply{advise: "Read the failing test's output before rerunning it."}
		<-m.calls // the advisor is told its note went out, then fails
		m.replies <- fakeReply{err: errors.New("connection reset")}
		req := <-m.calls // the retry, a second later
		last := req.Messages[len(req.Messages)-1]
		if len(last.Content) == 0 || last.Content[0].Type != llm.BlockToolResult {
			t.Errorf("the retry does not continue from the delivered note's result: last message %+v", last)
		}
		if n := strings.Count(allText(req), "### Session update"); n != 1 {
			t.Errorf("the retry holds %d updates, want the one already shown", n)
		}
		m.replies <- fakeReply{text: "done"}
		synctest.Wait()
		host.mu.Lock()
		steers := len(host.steers)
		host.mu.Unlock()
		if steers != 1 {
			t.Errorf("%d steers, want the note delivered once", steers)
		}
		if s := r.Status(); s.Reviews != 1 || s.Failures != 1 || s.Backlog != 0 {
			t.Errorf("status %+v", s)
		}

		// The next step is reviewed as a new update after the finished one.
		r.Notify(host.step("STEP-2"))
		req = <-m.calls
		m.replies <- fakeReply{text: "ok"}
		if !strings.Contains(lastUserText(req), "STEP-2") || strings.Contains(lastUserText(req), "STEP-1") {
			t.Errorf("next update = %q", lastUserText(req))
		}
	})
}

func TestRuntimeUndeliveredNoteIsNotRemembered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		host := &fakeHost{steerErr: errors.New("agent gone")}
		r, m := startBlockingWith(t, host, nil)
		defer r.Stop()
		const note = "Stop editing the generated file; change the template instead."
		r.Notify(host.step("STEP-1"))
		<-m.calls
		m.replies <- fakeReply{advise: note}
		req := <-m.calls
		if got := lastText(req); !strings.Contains(got, "Not delivered") {
			t.Errorf("the advisor is told %q, want that the note was not delivered", got)
		}
		m.replies <- fakeReply{text: "ok"}
		synctest.Wait()

		host.mu.Lock()
		host.steerErr = nil
		host.mu.Unlock()
		r.Notify(host.step("STEP-2"))
		<-m.calls
		m.replies <- fakeReply{advise: note} // delivered: the review ends
		synctest.Wait()
		host.mu.Lock()
		defer host.mu.Unlock()
		if len(host.steers) != 1 {
			t.Errorf("the note sent again after a failed delivery was dropped: %d steers", len(host.steers))
		}
	})
}

// lastText is the text of the last message's first tool result, or its
// text.
func lastText(req llm.Request) string {
	last := req.Messages[len(req.Messages)-1]
	for _, b := range last.Content {
		if b.Type == llm.BlockToolResult {
			return llm.Message{Content: b.Content}.Text()
		}
	}
	return last.Text()
}

func TestRuntimeSetModelRebinds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		host := &fakeHost{}
		r, first := startBlockingWith(t, host, nil)
		defer r.Stop()
		r.Notify(host.step("STEP-1"))
		<-first.calls
		first.replies <- fakeReply{text: "ok"}
		synctest.Wait()

		second := newBlockingModel()
		r.SetModel(second, "fake/second")
		r.Notify(host.step("STEP-2"))
		req := <-second.calls
		second.replies <- fakeReply{text: "ok"}
		if len(req.Messages) != 3 {
			t.Errorf("the new model got %d messages, want the kept context plus the update", len(req.Messages))
		}
	})
}

func TestTranscriptDumps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		host := &fakeHost{}
		r, m := startBlockingWith(t, host, nil)
		defer r.Stop()
		if got := r.Transcript().Compact(); !strings.Contains(got, "no history") {
			t.Errorf("empty compact dump = %q", got)
		}
		r.Notify(host.step("STEP-1"))
		<-m.calls
		m.replies <- fakeReply{advise: "Pin the dependency version in go.mod."} // the review ends with it
		synctest.Wait()
		tr := r.Transcript()
		compact := tr.Compact()
		for _, want := range []string{"## user", "## assistant", "advise(concern: Pin the dependency version in go.mod.) ⇒ ok"} {
			if !strings.Contains(compact, want) {
				t.Errorf("compact dump lacks %q:\n%s", want, compact)
			}
		}
		if strings.Contains(compact, "## System Prompt") {
			t.Errorf("compact dump shows the system prompt")
		}
		raw := tr.Raw("fake/adv")
		for _, want := range []string{"## System Prompt", "Model: fake/adv", "## Available Tools", "- advise:", "Pin the dependency version"} {
			if !strings.Contains(raw, want) {
				t.Errorf("raw dump lacks %q", want)
			}
		}
	})
}

func TestStatusContextTokens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		host := &fakeHost{}
		r, m := startBlockingWith(t, host, nil)
		defer r.Stop()
		r.Notify(host.step("STEP-1"))
		<-m.calls
		m.replies <- fakeReply{text: "ok"} // reports 10 in + 2 out
		synctest.Wait()
		if got := r.Status().ContextTokens; got != 12 {
			t.Errorf("ContextTokens = %d, want the 12 the provider reported", got)
		}
	})
}
