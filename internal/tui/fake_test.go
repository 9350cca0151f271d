package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// fakeApp is an App that records what the UI asks of it. Prompt and
// Resume block until release is closed (or return at once when it is
// nil), so a test can hold a run going; started, when set, hears each
// run once it is recorded.
type fakeApp struct {
	mu       sync.Mutex
	entries  []session.Entry
	status   Status
	state    agent.State
	calls    []string
	release  chan struct{}
	started  chan string
	subs     []func(agent.Event)
	advText  string
	sessions []SessionInfo
}

func (f *fakeApp) record(s string) {
	f.mu.Lock()
	f.calls = append(f.calls, s)
	f.mu.Unlock()
}

func (f *fakeApp) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeApp) run(ctx context.Context, what string) error {
	f.record(what)
	if f.started != nil {
		f.started <- what
	}
	if f.release == nil {
		return nil
	}
	select {
	case <-f.release:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (f *fakeApp) Answer(id string, ap agent.Approval) error {
	f.record("answer:" + id + ":" + string(ap.Decision))
	return nil
}
func (f *fakeApp) Prompt(ctx context.Context, m string) error  { return f.run(ctx, "prompt:"+m) }
func (f *fakeApp) Resume(ctx context.Context, m string) error  { return f.run(ctx, "resume:"+m) }
func (f *fakeApp) Steer(m string, interrupt bool)              { f.record(fmt.Sprintf("steer:%s:%v", m, interrupt)) }
func (f *fakeApp) FollowUp(m string)                           { f.record("follow_up:" + m) }
func (f *fakeApp) Abort()                                      { f.record("abort") }
func (f *fakeApp) Shell(ctx context.Context, cmd string) error { return f.run(ctx, "shell:"+cmd) }
func (f *fakeApp) Compact(ctx context.Context, instr string) error {
	return f.run(ctx, "compact:"+instr)
}
func (f *fakeApp) Command(_ context.Context, line string) (string, error) {
	f.record("command:" + line)
	return "did " + line, nil
}
func (f *fakeApp) State() agent.State {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.state
}
func (f *fakeApp) Entries() []session.Entry          { return f.entries }
func (f *fakeApp) Subscribe(fn func(agent.Event))    { f.subs = append(f.subs, fn) }
func (f *fakeApp) Status() Status                    { return f.status }
func (f *fakeApp) AdvisorStatus() string             { return "Advisor is enabled (fake/adv). Reviews: 3." }
func (f *fakeApp) AdvisorTranscript(raw bool) string { return f.advText + fmt.Sprint(raw) }
func (f *fakeApp) Models() []string                  { return []string{"fake/m", "fake/big"} }
func (f *fakeApp) Sessions() ([]SessionInfo, error)  { return f.sessions, nil }
func (f *fakeApp) SwitchSession(id string) error {
	f.record("switch:" + id)
	return nil
}

func (f *fakeApp) setRunning(on bool) {
	f.mu.Lock()
	f.state.Running = on
	f.mu.Unlock()
}

// Entries of a small session: a prompt, thinking, a bash call, an edit
// with its diff, an advisor's steer and card, and a markdown answer.
func sampleEntries() []session.Entry {
	var out []session.Entry
	add := func(b session.Body) { out = append(out, session.Entry{ID: fmt.Sprint(len(out) + 1), Body: b}) }
	msg := func(role llm.Role, blocks ...llm.Block) {
		add(&session.Message{Message: llm.Message{Role: role, Content: blocks}})
	}
	msg(llm.RoleUser, llm.Text("Fix the failing test in calc.go"))
	msg(llm.RoleAssistant, llm.Thinking("The test fails on Add.\nLet me run it.", "sig"),
		llm.ToolCall("c1", "bash", json.RawMessage(`{"command":"go test ./..."}`)))
	msg(llm.RoleUser, llm.ToolResult("c1", true, llm.Text("--- FAIL: TestAdd\n    calc_test.go:9: Add(2, 2) = 5, want 4\nFAIL\nexit status 1")))
	msg(llm.RoleAssistant, llm.ToolCall("c2", "edit", json.RawMessage(`{"path":"calc.go","edits":[]}`)))
	msg(llm.RoleUser, llm.ToolResult("c2", false, llm.Text("Edited calc.go")))
	add(&session.Custom{CustomType: "advisor", Display: true, InContext: true, Details: json.RawMessage(`{"delivery":"steer"}`),
		Content: []llm.Block{llm.Text("<advisory severity=\"concern\" guidance=\"weigh, don't blindly obey\">\nRun the test again &amp; check that a &lt; b holds.\n</advisory>")}})
	add(&session.Custom{CustomType: "advisor", Display: true, Details: json.RawMessage(`{"delivery":"card"}`),
		Content: []llm.Block{llm.Text("<advisory severity=\"nit\" guidance=\"weigh, don't blindly obey\">\nThe commit message could name the bug.\n</advisory>")}})
	msg(llm.RoleAssistant, llm.Text("## Fixed\n\nAdd now returns **a + b**:\n\n- `go test ./...` passes\n- nothing else changed"))
	return out
}

func sampleStatus() Status {
	return Status{Model: "fake/m", Input: 12_300, Output: 800, Cost: 0.0123, Context: 24_000, Window: 200_000,
		Advisor: AdvisorStatus{On: true, Model: "fake/adv", Reviews: 3, Cost: 0.002, Context: 9000, Window: 200_000}}
}

// newTestModel is a UI on app at 80×24, in the plain theme so that
// frames compare as text.
func newTestModel(t *testing.T, app *fakeApp) *Model {
	t.Helper()
	m := New(app, Options{Cwd: t.TempDir(), Env: []string{"NO_COLOR=1"}, Clipboard: func(string) (string, error) { return "", nil }})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	return m
}

// press sends keys to m: each string is a key name as bubbletea spells
// it ("enter", "alt+enter", "esc") or text to type.
func press(m *Model, keys ...string) []tea.Cmd {
	var cmds []tea.Cmd
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "alt+enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		case "tab":
			msg = tea.KeyPressMsg{Code: tea.KeyTab}
		case "up":
			msg = tea.KeyPressMsg{Code: tea.KeyUp}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		case "pgup":
			msg = tea.KeyPressMsg{Code: tea.KeyPgUp}
		case "ctrl+c":
			msg = tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
		case "ctrl+o":
			msg = tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl}
		case "ctrl+t":
			msg = tea.KeyPressMsg{Code: 't', Mod: tea.ModCtrl}
		default:
			for _, r := range k {
				_, cmd := m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
				cmds = append(cmds, cmd)
			}
			continue
		}
		_, cmd := m.Update(msg)
		cmds = append(cmds, cmd)
	}
	return cmds
}

// runCmd runs a command and every command it batches, feeding their
// messages back into m, until none is left; tea.Quit stops it. It
// reports whether the UI asked to quit.
func runCmd(m *Model, cmd tea.Cmd) (quit bool) {
	if cmd == nil {
		return false
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.QuitMsg:
		return true
	case tea.BatchMsg:
		for _, c := range msg {
			if runCmd(m, c) {
				quit = true
			}
		}
	default:
		if fmt.Sprintf("%T", msg) == "tea.setClipboardMsg" {
			return false // the terminal's part: OSC 52
		}
		_, next := m.Update(msg)
		if _, ok := msg.(tickMsg); ok {
			return false // ticks repeat forever
		}
		return runCmd(m, next)
	}
	return quit
}

// plain is the frame without styling.
func plain(m *Model) string { return ansi.Strip(m.Frame()) }

// toolEnd is the tool_end event of a bash call with output.
func toolEnd(id, out string, code int) agent.Event {
	return agent.Event{Type: agent.EventToolEnd, ToolCallID: id, Tool: "bash", Summary: out, Details: &tools.Details{ExitCode: &code}}
}

// assertContains checks the frame holds each text, wherever the frame
// wrapped it.
func assertContains(t *testing.T, frame string, want ...string) {
	t.Helper()
	flat := strings.Join(strings.Fields(frame), " ")
	for _, w := range want {
		if !strings.Contains(flat, strings.Join(strings.Fields(w), " ")) {
			t.Errorf("frame lacks %q:\n%s", w, frame)
		}
	}
}
