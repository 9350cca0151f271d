package advisor

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/vigil-dev/vigil/llm"
)

type memRecorder struct {
	mu   sync.Mutex
	msgs []llm.Message
	use  []llm.Usage
}

func (m *memRecorder) Record(msg llm.Message, u llm.Usage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.msgs = append(m.msgs, msg)
	m.use = append(m.use, u)
}

func (m *memRecorder) roles() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, msg := range m.msgs {
		out = append(out, string(msg.Role))
	}
	return strings.Join(out, ",")
}

func TestRecorderGetsFinalMessagesOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		host := &fakeHost{}
		rec := &memRecorder{}
		// ContinueAfterAdvise: a failure after a delivered note needs a
		// call after it.
		r, m := startBlockingWith(t, host, func(o *Options) { o.Recorder = rec; o.ContinueAfterAdvise = true })
		defer r.Stop()

		// A review that fails before delivering anything is never recorded;
		// its retry is.
		r.Notify(host.step("STEP-1"))
		<-m.calls
		m.replies <- fakeReply{err: errors.New("boom")}
		<-m.calls
		m.replies <- fakeReply{text: "ok"}
		synctest.Wait()
		if got := rec.roles(); got != "user,assistant" {
			t.Fatalf("after a failed and a good review: %s, want the update and the reply once", got)
		}
		if !strings.HasPrefix(rec.msgs[0].Text(), "### Session update") || rec.use[1].Output != 2 {
			t.Errorf("recorded %q with usage %+v", rec.msgs[0].Text(), rec.use[1])
		}

		// A review that fails after delivering a note keeps what it
		// delivered, then the continuation.
		r.Notify(host.step("STEP-2"))
		<-m.calls
		m.replies <- fakeReply{advise: "Stop rerunning the failing build without reading it."}
		<-m.calls
		m.replies <- fakeReply{err: errors.New("reset by peer")}
		<-m.calls
		m.replies <- fakeReply{text: "done"}
		synctest.Wait()
		if got := rec.roles(); got != "user,assistant,user,assistant,user,assistant" {
			t.Errorf("recorded %s", got)
		}

		// A reset does not unrecord anything, and the next review records
		// its fresh context.
		r.Notify(Event{Kind: EventHistoryRewritten})
		r.Notify(host.step("STEP-3"))
		<-m.calls
		m.replies <- fakeReply{text: "ok"}
		synctest.Wait()
		if got := rec.roles(); got != "user,assistant,user,assistant,user,assistant,user,assistant" {
			t.Errorf("after a reset: %s", got)
		}
	})
}
