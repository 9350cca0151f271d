package sidecar

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// consultingAdvisor is a fakeAdvisor that answers questions.
type consultingAdvisor struct {
	*fakeAdvisor
	f *fakeFollower
	// polled is how many times the transcript had been read when each
	// question came.
	polled []int
	err    error
}

func (c *consultingAdvisor) Consult(_ context.Context, q string) (string, error) {
	c.f.mu.Lock()
	c.polled = append(c.polled, c.f.pollCall)
	c.f.mu.Unlock()
	if c.err != nil {
		return "", c.err
	}
	return "Answer to: " + q, nil
}

// serveTest serves sc on a socket of a fresh folder until the test ends.
func serveTest(t *testing.T, sc *Sidecar) (Dir, Key) {
	t.Helper()
	dir := shortDir(t)
	key := Key{Agent: AgentClaudeCode, Session: "s1"}
	ready := &readyPipe{c: make(chan byte, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, sc, ServeOptions{Dir: dir, Info: Info{Key: key}, Ready: ready})
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	<-ready.c
	return dir, key
}

// POST /consult: the question reaches the advisor after the transcript
// was read, the answer comes back; an advisor that cannot answer, or no
// sidecar at all, is unavailable at once.
func TestConsultOverTheSocket(t *testing.T) {
	sc, f, fa := newTest(t, Options{})
	ca := &consultingAdvisor{fakeAdvisor: fa, f: f}
	sc.o.Advisor = ca
	dir, key := serveTest(t, sc)
	answer, err := Ask(t.Context(), dir.Socket(key), "Is it safe?")
	if err != nil || answer != "Answer to: Is it safe?" {
		t.Fatalf("Ask = %q, %v", answer, err)
	}
	if len(ca.polled) != 1 || ca.polled[0] == 0 {
		t.Errorf("the transcript was not read before the question (polls %v)", ca.polled)
	}
	ca.err = errors.New("advisor: consult: no answer within 2m0s")
	if _, err := Ask(t.Context(), dir.Socket(key), "Again?"); err == nil || errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "no answer within") {
		t.Errorf("a failed consult: %v", err)
	}
	if st := sc.Stats(); st.Consults != 1 || st.ConsultFailures != 1 {
		t.Errorf("stats %+v", st)
	}
	sc.o.Advisor = fa // no Consult
	if _, err := Ask(t.Context(), dir.Socket(key), "Anyone?"); !errors.Is(err, ErrUnavailable) {
		t.Errorf("an advisor that cannot answer: %v", err)
	}
	start := time.Now()
	if _, err := Ask(t.Context(), dir.Socket(Key{Agent: AgentCodex, Session: "none"}), "Anyone?"); !errors.Is(err, ErrUnavailable) {
		t.Errorf("no sidecar: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("no sidecar took %v to say so", d)
	}
}

// ForAgent finds the sidecar of an agent's process, the newest of those
// that watch it, and none for another process or another start.
func TestForAgent(t *testing.T) {
	dir := shortDir(t)
	now := time.Now()
	me := ProcOf(os.Getpid())
	for i, in := range []Info{
		{Key: Key{Agent: AgentClaudeCode, Session: "old"}, PID: os.Getpid(), AgentPID: me.PID, AgentStart: me.Start, Started: now.Add(-time.Hour)},
		{Key: Key{Agent: AgentClaudeCode, Session: "new"}, PID: os.Getpid(), AgentPID: me.PID, AgentStart: me.Start, Started: now},
		{Key: Key{Agent: AgentCodex, Session: "other"}, PID: os.Getpid(), AgentPID: me.PID + 1, Started: now.Add(time.Hour)},
	} {
		in.Socket = dir.Socket(in.Key)
		if err := dir.WriteInfo(in); err != nil {
			t.Fatal(i, err)
		}
	}
	if in, ok := dir.ForAgent(me); !ok || in.Session != "new" {
		t.Errorf("ForAgent(me) = %+v, %v; want the newest", in, ok)
	}
	if _, ok := dir.ForAgent(Proc{PID: me.PID, Start: me.Start + 1}); ok && me.Start != 0 {
		t.Error("found a sidecar of another process with the same id")
	}
	if _, ok := dir.ForAgent(Proc{}); ok {
		t.Error("found a sidecar for no process")
	}
}
