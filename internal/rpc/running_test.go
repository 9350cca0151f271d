package rpc

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/agent"
)

// lateApp's prompt says idle and then, before it returns, waits for
// finish: the bookkeeping after a turn's last event.
type lateApp struct {
	fakeApp
	finish chan struct{}
}

func (a *lateApp) Prompt(ctx context.Context, m string) error {
	a.record("prompt " + m)
	a.emit(agent.Event{Type: agent.EventIdle})
	<-a.finish
	return nil
}

// TestRunningAfterIdle: once a turn said idle, Running waits for it to
// finish and reports false, so that a command a client sends after idle
// (/new) is not refused as "a turn is running" (it was, now and then).
func TestRunningAfterIdle(t *testing.T) {
	app := &lateApp{fakeApp: fakeApp{release: make(chan struct{})}, finish: make(chan struct{})}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := NewServer(app, inR, outW)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background()); outW.Close() }()
	lines := make(chan string, 16)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := outR.Read(buf)
			if n > 0 {
				lines <- string(buf[:n])
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	if _, err := io.WriteString(inW, `{"type":"prompt","id":"1","message":"go"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	// The idle event has been written once its line is read.
	for l := range lines {
		if strings.Contains(l, `"type":"idle"`) {
			break
		}
	}
	running := make(chan bool, 1)
	go func() { running <- srv.Running() }()
	close(app.finish)
	if <-running {
		t.Error("Running reported a turn that had said idle")
	}
	inW.Close()
	for range lines {
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}
