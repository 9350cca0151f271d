package sidecar

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"time"

	"github.com/vigil-dev/vigil/advisor"
)

func TestProcAlive(t *testing.T) {
	self := ProcOf(os.Getpid())
	if !self.Alive() {
		t.Fatalf("%+v: this process is not alive", self)
	}
	if runtime.GOOS == "linux" && self.Start == 0 {
		t.Fatal("no start time read from /proc")
	}
	if runtime.GOOS == "linux" {
		// The same id, another start: the id was given to another
		// process since.
		reused := Proc{PID: self.PID, Start: self.Start + 1}
		if reused.Alive() {
			t.Error("a process with the agent's id but another start time is taken for the agent")
		}
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	if (Proc{PID: cmd.Process.Pid}).Alive() {
		// The id may have been reused at once; unlikely, but not a defect.
		t.Logf("process %d alive again after it exited", cmd.Process.Pid)
	}
	if (Proc{}).Alive() {
		t.Error("the zero Proc is alive")
	}
}

// TestAgentOfSkipsShells: the hook's parent is the agent, or a shell the
// agent ran it with, which ends with the hook; the agent is above it.
func TestAgentOfSkipsShells(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	if got, want := AgentOf(os.Getpid()), ProcOf(os.Getpid()); got != want {
		t.Fatalf("AgentOf(this process) = %+v, want %+v", got, want)
	}
	// The trailing ":" keeps the shell from exec'ing its last command.
	sh := exec.Command("sh", "-c", "read x; :")
	in, err := sh.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Start(); err != nil {
		t.Skip("no sh:", err)
	}
	defer func() { in.Close(); sh.Wait() }()
	if got, want := AgentOf(sh.Process.Pid), ProcOf(os.Getpid()); got != want {
		t.Fatalf("AgentOf(a shell under this process) = %+v, want this process %+v", got, want)
	}
	if got := AgentOf(1); got != (Proc{}) {
		t.Errorf("AgentOf(init) = %+v, want nothing to watch", got)
	}
}

// agentFlag is an Alive the test switches.
type agentFlag struct{ gone atomic.Bool }

func (a *agentFlag) alive(Proc) bool { return !a.gone.Load() }

func TestAgentGoneAndQuietEndsAfterDraining(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logs := &logLines{}
		host := NewHost()
		sc, f, a := newTest(t, Options{Host: host, Logf: logs.logf})
		reviewed := make(chan struct{})
		a.onWait = func(ctx context.Context) error {
			close(reviewed)
			return nil
		}
		flag := &agentFlag{}
		w := AgentWatch{Proc: Proc{PID: 4242, Start: 7}, Alive: flag.alive}
		w.defaults()
		ctx := context.Background()
		// The agent runs: however quiet, the sidecar stays.
		time.Sleep(time.Hour)
		if sc.checkAgent(ctx, w) {
			t.Fatal("ended while the agent runs")
		}
		// The agent went, but its transcript was written just now.
		flag.gone.Store(true)
		f.polls = append(f.polls, stepBatch(1, "go"))
		if sc.checkAgent(ctx, w) {
			t.Fatal("ended while the transcript is not quiet")
		}
		host.Aside(ctx, advisor.Advice{Note: "undelivered"})
		time.Sleep(DefaultQuiet)
		if !sc.checkAgent(ctx, w) {
			t.Fatalf("still running %v after the agent went; log %q", DefaultQuiet, logs.all())
		}
		select {
		case <-reviewed:
		default:
			t.Fatal("ended without waiting for the advisor's backlog")
		}
		select {
		case <-sc.Ended():
		default:
			t.Fatal("Ended not closed")
		}
		if r := sc.EndReason(); !strings.Contains(r, "process 4242") {
			t.Errorf("end reason %q", r)
		}
		if got := logs.with("1 notes undelivered"); len(got) != 1 {
			t.Errorf("logged %q; want the undelivered note counted", logs.all())
		}
	})
}

// TestAgentGoneDrainIsBounded: an advisor that never catches up holds
// the stop DrainWait at most.
func TestAgentGoneDrainIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sc, _, a := newTest(t, Options{})
		a.onWait = func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
		w := AgentWatch{Proc: Proc{PID: 4242}, Alive: func(Proc) bool { return false }}
		w.defaults()
		time.Sleep(DefaultQuiet)
		start := time.Now()
		if !sc.checkAgent(context.Background(), w) {
			t.Fatal("did not end")
		}
		if took := time.Since(start); took != DefaultDrainWait {
			t.Errorf("drained for %v, want %v", took, DefaultDrainWait)
		}
	})
}

// TestServeStopsWhenTheAgentHasGone: Serve records the agent's process,
// keeps serving while it runs, and stops (cleaning up) once it has gone.
func TestServeStopsWhenTheAgentHasGone(t *testing.T) {
	dir := shortDir(t)
	sc, _, _ := newTest(t, Options{})
	key := Key{Agent: AgentCodex, Session: "s1"}
	// Each look at the agent takes the answer the test gives.
	answers := make(chan bool)
	alive := func(Proc) bool { return <-answers }
	tick := make(chan time.Time)
	ready := &readyPipe{c: make(chan byte, 1)}
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), sc, ServeOptions{Dir: dir, Info: Info{Key: key}, Ready: ready,
			Agent: AgentWatch{Proc: Proc{PID: 4242, Start: 99}, Alive: alive, Tick: tick, Quiet: time.Nanosecond}})
	}()
	if b, ok := <-ready.c; !ok || b != 1 {
		t.Fatal("Serve closed Ready without saying it listens")
	}
	if in, ok := dir.ReadInfo(key); !ok || in.AgentPID != 4242 || in.AgentStart != 99 {
		t.Fatalf("ReadInfo = %+v, %v; want the agent's process recorded", in, ok)
	}
	// While the agent runs, it looks and serves on: it takes the next
	// tick.
	tick <- time.Now()
	answers <- true
	tick <- time.Now()
	answers <- true
	select {
	case err := <-done:
		t.Fatalf("Serve returned %v while the agent runs", err)
	default:
	}
	if _, err := os.Stat(dir.Socket(key)); err != nil {
		t.Fatalf("socket gone while the agent runs: %v", err)
	}
	tick <- time.Now()
	answers <- false
	if err := <-done; err != nil {
		t.Fatalf("Serve = %v", err)
	}
	for _, p := range []string{dir.Socket(key), dir.Info(key)} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind", p)
		}
	}
}
