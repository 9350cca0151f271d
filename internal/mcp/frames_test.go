package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// wire is a server under Serve, driven line by line as an agent drives
// `vigil mcp` over its stdio.
type wire struct {
	t    testing.TB
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error // Serve's result
	next int        // the next request id
}

// serveWire runs Serve with ask over pipes until the test ends, and
// initializes the session.
func serveWire(t testing.TB, ctx context.Context, ask func(context.Context, string) (string, error)) *wire {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &wire{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<16), done: make(chan error, 1), next: 100}
	go func() {
		err := Serve(ctx, "test", ask, inR, outW)
		// A server that ended ends the test's reads: it answers nothing
		// more.
		ended := fmt.Errorf("the server ended (Serve returned %v)", err)
		outW.CloseWithError(ended)
		inR.CloseWithError(ended)
		w.done <- err
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	w.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}}`)
	if got := w.recv(); got["id"] != float64(1) || got["result"] == nil {
		t.Fatalf("initialize answered %v", got)
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return w
}

func (w *wire) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		w.t.Fatalf("write to the server: %v", err)
	}
}

// recv reads the server's next message.
func (w *wire) recv() map[string]any {
	w.t.Helper()
	line, err := w.out.ReadBytes('\n')
	if err != nil {
		w.t.Fatalf("read from the server: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		w.t.Fatalf("the server wrote %q: %v", line, err)
	}
	return m
}

// ping checks that the server still answers a request.
func (w *wire) ping() {
	w.t.Helper()
	w.next++
	w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, w.next))
	if got := w.recv(); got["id"] != float64(w.next) || got["error"] != nil {
		w.t.Fatalf("ping %d answered %v", w.next, got)
	}
}

// wantError checks that the server's next message is a JSON-RPC error
// with code and id (nil for null) whose message holds text.
func (w *wire) wantError(code int, id any, text string) {
	w.t.Helper()
	got := w.recv()
	e, _ := got["error"].(map[string]any)
	if e == nil || e["code"] != float64(code) || got["id"] != id || !strings.Contains(fmt.Sprint(e["message"]), text) {
		w.t.Errorf("got %v, want error %d with id %v saying %q", got, code, id, text)
	}
}

// Issue 28: one bad frame (not JSON, a batch, an id that is an object, a
// wrong version, trailing data) used to end `vigil mcp`, and with it the
// agent's ask_advisor for the rest of its session. Each now gets a
// JSON-RPC error (-32700 parse error, -32600 invalid request) and the
// server goes on: a ping after each is answered, and so is ask_advisor
// at the end. Blank lines are skipped, and CRLF ends a line as LF does.
func TestBadFramesGetErrors(t *testing.T) {
	w := serveWire(t, context.Background(), func(_ context.Context, q string) (string, error) { return "Answer: " + q, nil })
	for _, tt := range []struct {
		name, line string
		code       int
		id         any
		text       string
	}{
		{"not JSON", `this is not json`, -32700, nil, "parse error"},
		{"cut JSON", `{"jsonrpc":"2.0","id":3,"method":"pi`, -32700, nil, "parse error"},
		{"trailing data", `{"jsonrpc":"2.0","id":4,"method":"ping"} {"x":1}`, -32700, nil, "parse error"},
		{"batch", `[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"ping"}]`, -32600, nil, "batch"},
		{"empty batch", `[]`, -32600, nil, "batch"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, nil, "invalid request"},
		{"array id", `{"jsonrpc":"2.0","id":[7],"method":"ping"}`, -32600, nil, "invalid request"},
		{"wrong version", `{"jsonrpc":"1.0","id":8,"method":"ping"}`, -32600, float64(8), "invalid request"},
		{"no version", `{"id":"nine","method":"ping"}`, -32600, "nine", "invalid request"},
		{"method not a string", `{"jsonrpc":"2.0","id":10,"method":42}`, -32600, float64(10), "invalid request"},
		{"a string", `"ping"`, -32600, nil, "invalid request"},
		{"a number", `42`, -32600, nil, "invalid request"},
		{"null", `null`, -32600, nil, "invalid request"},
		{"empty object", `{}`, -32600, nil, "invalid request"},
		{"response without id", `{"jsonrpc":"2.0","result":{}}`, -32600, nil, "invalid request"},
		{"id spelt ID", `{"jsonrpc":"2.0","ID":15,"Method":"ping"}`, -32600, nil, "invalid request"},
		{"nested too deep", `{"jsonrpc":"2.0","id":16,"method":"ping","params":` + strings.Repeat(`{"a":`, 1500) + `1` + strings.Repeat(`}`, 1500) + `}`, -32600, float64(16), "nesting depth"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w.t = t
			w.send(tt.line)
			w.wantError(tt.code, tt.id, tt.text)
			w.ping()
		})
	}
	w.t = t
	w.send("")
	w.send("   \t")
	w.send(`{"jsonrpc":"2.0","id":11,"method":"ping"}` + "\r")
	if got := w.recv(); got["id"] != float64(11) || got["error"] != nil {
		t.Fatalf("after blank lines, a CRLF ping answered %v", got)
	}
	w.send(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"ask_advisor","arguments":{"question":"Still there?"}}}`)
	got := w.recv()
	if b, _ := json.Marshal(got); got["id"] != float64(12) || !strings.Contains(string(b), "Answer: Still there?") {
		t.Errorf("ask_advisor answered %s", b)
	}
}

// A frame longer than maxFrame (60 MB here, on a line of its own) gets an
// error without being held in memory: the server reads past it to its
// newline, answers, and goes on.
func TestHugeFrameIsSkipped(t *testing.T) {
	w := serveWire(t, context.Background(), func(_ context.Context, q string) (string, error) { return "ok", nil })
	const huge = 60 << 20
	head := []byte(`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"ask_advisor","arguments":{"question":"`)
	body := []byte(strings.Repeat("a", 1<<20))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	wrote := make(chan error, 1)
	go func() {
		_, err := w.in.Write(head)
		for n := 0; n < huge && err == nil; n += len(body) {
			_, err = w.in.Write(body)
		}
		if err == nil {
			_, err = io.WriteString(w.in, `"}}}`+"\n")
		}
		wrote <- err
	}()
	w.wantError(-32600, nil, "too large")
	if err := <-wrote; err != nil {
		t.Fatalf("writing the frame: %v", err)
	}
	runtime.ReadMemStats(&after)
	grew := after.TotalAlloc - before.TotalAlloc
	t.Logf("skipping the frame allocated %d KiB", grew>>10)
	if grew > 3*maxFrame {
		t.Errorf("skipping a %d MB frame allocated %d MB, want it bounded by the %d MB a frame may hold", huge>>20, grew>>20, maxFrame>>20)
	}
	w.ping()
}

// Issue 28: SIGTERM (ctx's end) during a pending consult ended `vigil
// mcp` only when the consult did, or when the CLI's grace after the
// signal ran out. The consult is cancelled now, and Serve returns at
// once. The consult here would answer after an hour of (the bubble's)
// time: waiting for it would show as an hour between the cancel and the
// return.
func TestCancelEndsAPendingConsult(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		asked, ended := make(chan struct{}), make(chan error, 1)
		w := serveWire(t, ctx, func(ctx context.Context, q string) (string, error) {
			close(asked)
			select {
			case <-ctx.Done():
				ended <- context.Cause(ctx)
				return "", ctx.Err()
			case <-time.After(time.Hour):
				ended <- nil
				return "a late answer", nil
			}
		})
		w.send(`{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"ask_advisor","arguments":{"question":"Slow?"}}}`)
		<-asked
		// The server's answer to the call (the consult cancelled) is read
		// as an agent would; nothing waits for it.
		go io.Copy(io.Discard, w.out)
		start := time.Now()
		cancel()
		err := <-w.done
		if took := time.Since(start); took != 0 {
			t.Errorf("Serve returned %v after the cancel, want at once", took)
		}
		if err != nil {
			t.Errorf("Serve = %v, want nil after ctx ended", err)
		}
		if err := <-ended; err == nil {
			t.Error("the consult was not cancelled: it answered")
		}
		w.in.Close()
	})
}

// FuzzFrameGuard: whatever the input, every frame the guard passes on is
// one JSON-RPC message on a line of its own, every answer is a JSON-RPC
// error, and no line longer than the bound gets through.
func FuzzFrameGuard(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
		"not json\n[]\n{}\n\r\n",
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}` + "\n" + `[{"jsonrpc":"2.0","id":5,"method":"ping"}]`,
		`{"jsonrpc":"1.0","id":"x","method":"ping"} {"x":1}` + "\n" + strings.Repeat("a", 300) + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var answers strings.Builder
		g := newFrameGuard(strings.NewReader(string(data)), &answers, 256)
		passed, err := io.ReadAll(g)
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(string(passed)) {
			frame := strings.TrimSuffix(line, "\n")
			if len(frame) > 256 || strings.ContainsAny(frame, "\n") || !strings.HasSuffix(line, "\n") {
				t.Fatalf("passed %q", line)
			}
			if _, err := jsonrpc.DecodeMessage([]byte(frame)); err != nil {
				t.Fatalf("passed %q: %v", frame, err)
			}
		}
		for line := range strings.Lines(answers.String()) {
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *jsonrpc.Error  `json:"error"`
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil || m.JSONRPC != "2.0" || m.Error == nil || len(m.ID) == 0 {
				t.Fatalf("answered %q", line)
			}
			if c := m.Error.Code; c != jsonrpc.CodeParseError && c != jsonrpc.CodeInvalidRequest {
				t.Fatalf("answered %q", line)
			}
		}
	})
}
