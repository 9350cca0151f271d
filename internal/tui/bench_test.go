package tui

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// longSession is n entries of a working session: prompts, replies with
// markdown, bash calls and their output.
func longSession(n int) []session.Entry {
	out := make([]session.Entry, 0, n)
	for i := 0; len(out) < n; i++ {
		add := func(b session.Body) {
			if len(out) < n {
				out = append(out, session.Entry{ID: fmt.Sprint(len(out) + 1), Body: b})
			}
		}
		id := fmt.Sprintf("c%d", i)
		switch i % 4 {
		case 0:
			add(&session.Message{Message: llm.UserText(fmt.Sprintf("Step %d: run the tests and fix what fails", i))})
		case 1:
			add(&session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
				llm.ToolCall(id, "bash", json.RawMessage(`{"command":"go test ./..."}`))}}})
			add(&session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{
				llm.ToolResult(id, false, llm.Text(strings.Repeat("ok  \tgithub.com/x/y/pkg\t0.01s\n", 20)))}}})
		default:
			add(&session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text(fmt.Sprintf(
				"## Result %d\n\nThe tests pass. I changed **calc.go**:\n\n- `Add` returns `a + b`\n- a test for negative numbers\n", i))}}})
		}
	}
	return out
}

// BenchmarkOpenSession is opening the UI on a session of 10,000 entries:
// reading it into the transcript and rendering the first frame.
func BenchmarkOpenSession(b *testing.B) {
	entries := longSession(10_000)
	app := &fakeApp{entries: entries, status: sampleStatus()}
	for b.Loop() {
		m := New(app, Options{Env: []string{"NO_COLOR=1"}})
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
		_ = m.View()
	}
}

// BenchmarkKeystroke is a key typed into the editor with a 10,000-entry
// session loaded, to the updated frame; it reports the 50th and 99th
// percentile.
func BenchmarkKeystroke(b *testing.B) {
	app := &fakeApp{entries: longSession(10_000), status: sampleStatus()}
	m := New(app, Options{Env: []string{"NO_COLOR=1"}})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
	_ = m.View()
	var times []time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		r := rune('a' + i%26)
		if i%60 == 59 {
			m.ed.Reset() // keep the input a line long
		}
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		_ = m.View()
		times = append(times, time.Since(start))
	}
	reportPercentiles(b, times)
}

// BenchmarkStreamDeltas streams 20,000 text deltas into replies as the
// agent sends them at 2,000 a second, into sessions of 1,000 and 10,000
// entries: the UI takes a batch per frame (about 33 at 60 frames a
// second) and renders. It reports the time per frame at the 99th
// percentile (under a frame's 16 ms none drops) and the heap the
// streaming added, which must not grow with the session's length.
func BenchmarkStreamDeltas(b *testing.B) {
	for _, n := range []int{1000, 10_000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) { streamDeltas(b, n) })
	}
}

func streamDeltas(b *testing.B, entries int) {
	app := &fakeApp{entries: longSession(entries), status: sampleStatus()}
	const perFrame = 2000 / 60
	words := strings.Fields("The failing test compares the sum with an off-by-one value; **Add** returned a + b + 1 because of the carry. I fixed it and added `TestAddNegative`.")
	var times []time.Duration
	var grew int64
	heap := func() int64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapInuse)
	}
	for b.Loop() {
		m := New(app, Options{Env: []string{"NO_COLOR=1"}})
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
		_ = m.View()
		before := heap()
		sent := 0
		for frame := 0; sent < 20_000; frame++ {
			batch := make(eventsMsg, 0, perFrame+1)
			for range perFrame {
				text := words[sent%len(words)] + " "
				if sent%40 == 39 {
					text += "\n\n"
				}
				if sent%2000 == 1999 {
					// a reply ends and the next begins
					batch = append(batch, agent.Event{Type: agent.EventTurnEnd})
				}
				batch = append(batch, agent.Event{Type: agent.EventMessageDelta, Delta: agent.DeltaText, Text: text})
				sent++
			}
			start := time.Now()
			m.Update(batch)
			_ = m.View()
			times = append(times, time.Since(start))
		}
		grew = heap() - before
		runtime.KeepAlive(m)
	}
	reportPercentiles(b, times)
	b.ReportMetric(float64(grew)/(1<<20), "heap-added-MiB")
}

func reportPercentiles(b *testing.B, times []time.Duration) {
	if len(times) == 0 {
		return
	}
	slices.Sort(times)
	pct := func(p float64) float64 {
		return float64(times[min(int(float64(len(times))*p), len(times)-1)].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}
