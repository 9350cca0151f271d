package tui

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

var update = flag.Bool("update", false, "rewrite the golden frames in testdata")

// golden compares frame with testdata/name.golden (rewritten with
// -update).
func golden(t *testing.T, name, frame string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(frame), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/tui -run %s -update)", err, t.Name())
	}
	if string(want) != frame {
		t.Errorf("frame %s differs from %s (go test -update rewrites it):\ngot:\n%s\nwant:\n%s", name, path, frame, want)
	}
}

// checkSize asserts the frame fills the window exactly: h lines, none
// wider than w.
func checkSize(t *testing.T, frame string, w, h int) {
	t.Helper()
	lines := strings.Split(frame, "\n")
	if len(lines) != h {
		t.Errorf("frame has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Errorf("line %d is %d cells wide, over %d: %q", i, n, w, ansi.Strip(l))
		}
	}
}

func TestFrameGolden(t *testing.T) {
	app := &fakeApp{entries: sampleEntries(), status: sampleStatus()}
	m := newTestModel(t, app)
	frame := m.Frame()
	checkSize(t, frame, 80, 24)
	golden(t, "session-80x24", ansi.Strip(frame))

	// ctrl+o expands tool output, ctrl+t shows thinking.
	press(m, "ctrl+o", "ctrl+t", "pgup")
	golden(t, "session-expanded-80x24", plain(m))

	// A narrow window wraps and truncates but never overflows.
	m.Update(tea.WindowSizeMsg{Width: 40, Height: 12})
	checkSize(t, m.Frame(), 40, 12)
	golden(t, "session-40x12", plain(m))
}

// The advisor's notes show as the note, unescaped, with severity and
// delivery; no markup reaches the screen.
func TestNotesShownAsText(t *testing.T) {
	m := newTestModel(t, &fakeApp{entries: sampleEntries(), status: sampleStatus()})
	f := plain(m)
	assertContains(t, f, "advisor · concern · steer", "Run the test again & check that a < b holds.", "advisor · nit · card", "The commit message could name the bug.")
	m.Update(eventsMsg{{Type: agent.EventCustomAppended, Entry: &session.Entry{ID: "r1", Body: &session.Custom{CustomType: "advisor", Display: true,
		Details: []byte(`{"delivery":"aside"}`), Content: []llm.Block{llm.Text(`<advisory advisor="security" severity="nit" guidance="weigh, don't blindly obey">` + "\nRotate the key.\n</advisory>")}}}}})
	m.Update(eventsMsg{{Type: agent.EventCustomAppended, Entry: &session.Entry{ID: "w1", Body: &session.Custom{CustomType: "advisor_warning", Display: true,
		Content: []llm.Block{llm.Text("Supervision is not working: 3 reviews failed in a row.")}}}}})
	f = plain(m)
	assertContains(t, f, "advisor security · nit · aside", "Rotate the key.", "✗ advisor: Supervision is not working: 3 reviews failed in a row.")
	if strings.Contains(f, "advisory") || strings.Contains(f, "&lt;") {
		t.Errorf("markup on screen:\n%s", f)
	}
}

func TestStatusLine(t *testing.T) {
	st := sampleStatus()
	st.Advisor.Reviewing, st.Advisor.Backlog = true, 2
	m := newTestModel(t, &fakeApp{status: st})
	assertContains(t, plain(m), "○ idle · fake/m · ↑12k ↓800 · $0.0123 · ctx 12% of 200k", "advisor fake/adv · reviewing (2 steps) · 3 reviews · $0.0020 · ctx 5% of 200k")

	st.Advisor = AdvisorStatus{}
	m = newTestModel(t, &fakeApp{status: st, state: agent.State{Aborted: true}})
	assertContains(t, plain(m), "■ interrupted · c continues", "advisor off")
}

// Enter sends a prompt while idle, steers while a run goes, Alt+Enter
// queues a follow-up; Esc interrupts; c continues a stopped run.
func TestEnterSteerFollowUpEscContinue(t *testing.T) {
	app := &fakeApp{status: sampleStatus(), release: make(chan struct{}), started: make(chan string, 1)}
	m := newTestModel(t, app)
	press(m, "fix it")
	cmds := press(m, "enter")
	turn := cmds[len(cmds)-1]
	if turn == nil || !m.Running() {
		t.Fatal("Enter on a prompt started no run")
	}
	done := make(chan tea.Msg)
	go func() { done <- turn() }()
	<-app.started // the prompt is recorded before the steer
	app.setRunning(true)
	m.refresh()

	press(m, "look at calc.go", "enter")
	press(m, "then commit", "alt+enter")
	press(m, "esc")
	msg := <-done // the interrupt ended the turn
	m.Update(msg)
	app.setRunning(false)
	m.refresh()
	if m.Running() {
		t.Error("still running after the turn ended")
	}
	want := []string{"prompt:fix it", "steer:look at calc.go:false", "follow_up:then commit", "abort"}
	if got := app.Calls(); !slices.Equal(got, want) {
		t.Errorf("calls = %q, want %q", got, want)
	}
	if f := plain(m); strings.Contains(f, "interrupted by user") {
		t.Errorf("an interrupt shows as an error:\n%s", f)
	}

	app.release, app.started = nil, nil
	for _, k := range []string{"c", "."} {
		cmds = press(m, k, "enter")
		runCmd(m, cmds[len(cmds)-1])
	}
	if got := app.Calls()[len(want):]; !slices.Equal(got, []string{"resume:", "resume:"}) {
		t.Errorf("c and . sent %q, want two resumes with no text", got)
	}
}

// A large paste is folded in the editor and sent whole.
func TestPasteFolded(t *testing.T) {
	app := &fakeApp{status: sampleStatus()}
	m := newTestModel(t, app)
	big := strings.Repeat("line of a log\n", 60)
	press(m, "see ")
	m.Update(tea.PasteMsg{Content: big})
	if v := m.ed.Value(); v != "see [paste #1: 60 lines, 840 bytes]" {
		t.Errorf("editor = %q, want the paste folded", v)
	}
	runCmd(m, press(m, "enter")[0])
	if got := app.Calls(); len(got) != 1 || got[0] != "prompt:see "+strings.TrimSpace(big) {
		t.Errorf("sent %q, want the whole paste", got)
	}
}

// History: up brings back what was sent.
func TestHistory(t *testing.T) {
	app := &fakeApp{entries: sampleEntries(), status: sampleStatus()}
	m := newTestModel(t, app)
	runCmd(m, press(m, "second", "enter")[6])
	press(m, "draft")
	press(m, "up")
	if v := m.ed.Value(); v != "second" {
		t.Errorf("up = %q, want the last message", v)
	}
	press(m, "up")
	if v := m.ed.Value(); v != "Fix the failing test in calc.go" {
		t.Errorf("up up = %q, want the session's first prompt", v)
	}
	press(m, "down", "down")
	if v := m.ed.Value(); v != "draft" {
		t.Errorf("down down = %q, want the draft back", v)
	}
}

// Slash commands and @ files complete with Tab.
func TestCompletion(t *testing.T) {
	app := &fakeApp{status: sampleStatus()}
	m := newTestModel(t, app)
	press(m, "/adv")
	assertContains(t, plain(m), "▸ /advisor")
	// Each command is offered with what it does.
	for i, it := range m.comp.items {
		if i >= len(m.comp.descs) || m.comp.descs[i] == "" {
			t.Errorf("%s is offered with no description", it)
		} else {
			assertContains(t, plain(m), it+"  "+m.comp.descs[i][:20])
		}
	}
	m2 := newTestModel(t, app)
	press(m2, "/re")
	assertContains(t, plain(m2), "/resume  switch to another session of this folder")
	press(m, "tab")
	if v := m.ed.Value(); v != "/advisor " {
		t.Errorf("tab = %q, want /advisor", v)
	}

	dir := m.opts.Cwd
	for _, f := range []string{"src/main.go", "src/mainly.txt", ".git/HEAD", "node_modules/x/main.js"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m = newTestModel(t, app)
	m.files = newFileIndex(dir)
	press(m, "read @mai")
	if got := m.comp.items; !slices.Equal(got, []string{"@src/main.go", "@src/mainly.txt"}) {
		t.Errorf("completions = %q, want the two src files only", got)
	}
	press(m, "tab")
	if v := m.ed.Value(); v != "read @src/main.go " {
		t.Errorf("tab = %q", v)
	}
}

// /advisor status opens a panel; /advisor dump copies the transcript and
// says how much.
func TestAdvisorCommands(t *testing.T) {
	app := &fakeApp{status: sampleStatus(), advText: "user: hi\nadvisor: ok\n"}
	var copied string
	m := newTestModel(t, app)
	m.opts.Clipboard = func(s string) (string, error) { copied = s; return "xclip", nil }
	runCmd(m, press(m, "/advisor status", "enter")[15])
	// A panel: one sentence a line.
	assertContains(t, plain(m), "advisor status", "│ Advisor is enabled (fake/adv). │", "│ Reviews: 3. │")
	press(m, "esc")
	if m.overlay != nil {
		t.Fatal("esc left the panel open")
	}
	cmds := press(m, "/advisor dump raw", "enter")
	runCmd(m, cmds[len(cmds)-1])
	if copied != "user: hi\nadvisor: ok\ntrue" {
		t.Errorf("copied %q, want the raw transcript", copied)
	}
	// The transcript is shown in a panel, headed by what the copy did,
	// and the copy is said in the transcript too.
	assertContains(t, plain(m), "the advisor's transcript (raw)", "│ user: hi", "│ advisor: ok")
	if m.overlay == nil || !strings.HasPrefix(m.overlay.text, "copied the advisor's transcript (raw) (3 lines, 25 bytes) to the clipboard (OSC 52 and xclip)\n\nuser: hi") {
		t.Errorf("the panel does not open with the copy's outcome: %+v", m.overlay)
	}
	press(m, "esc")
	assertContains(t, plain(m), "copied the advisor's transcript (raw) (3 lines, 25 bytes) to the clipboard (OSC 52 and xclip)")

	// With no clipboard tool, OSC 52 alone is not called a copy.
	m.opts.Clipboard = func(string) (string, error) { return "", nil }
	cmds = press(m, "/advisor dump", "enter")
	runCmd(m, cmds[len(cmds)-1])
	press(m, "esc")
	f := plain(m)
	assertContains(t, f, "sent the advisor's transcript (3 lines, 26 bytes) to the terminal's clipboard with OSC 52; if your terminal refuses clipboard writes nothing was copied")
	if strings.Contains(f, "copied the advisor's transcript (3") {
		t.Errorf("an unconfirmed copy is called copied:\n%s", f)
	}
}

// TestStatusPanel lays the advisor's status paragraph out one sentence a
// line, labels in a column.
func TestStatusPanel(t *testing.T) {
	got := statusPanel("Advisor is enabled (anthropic/claude-haiku-5), $0.0123. Reviews: 4 (0 failed attempts). Health: running. Notes: 2 delivered.\nWarning: its last 3 reviews ended in prose.")
	want := "Advisor is enabled (anthropic/claude-haiku-5), $0.0123.\n" +
		"Reviews: 4 (0 failed attempts).\n" +
		"Health:  running.\n" +
		"Notes:   2 delivered.\n" +
		"Warning: its last 3 reviews ended in prose."
	if got != want {
		t.Errorf("statusPanel:\n%s\nwant:\n%s", got, want)
	}
}

// Other commands go to the registry; /model alone is a picker.
func TestCommandsAndPickers(t *testing.T) {
	app := &fakeApp{status: sampleStatus(), sessions: []SessionInfo{{ID: "abc123", Modified: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Title: "old work"}}}
	m := newTestModel(t, app)
	cmds := press(m, "/session", "enter")
	runCmd(m, cmds[len(cmds)-1])
	assertContains(t, plain(m), "did /session")

	cmds = press(m, "/model", "enter")
	runCmd(m, cmds[len(cmds)-1])
	assertContains(t, plain(m), "switch model", "fake/big")
	press(m, "big")
	cmds = press(m, "enter")
	runCmd(m, cmds[len(cmds)-1])

	cmds = press(m, "/resume", "enter")
	runCmd(m, cmds[len(cmds)-1])
	assertContains(t, plain(m), "abc123", "old work")
	cmds = press(m, "enter")
	runCmd(m, cmds[len(cmds)-1])
	want := []string{"command:/session", "command:/model fake/big", "switch:abc123"}
	if got := app.Calls(); !slices.Equal(got, want) {
		t.Errorf("calls = %q, want %q", got, want)
	}
	press(m, "?")
	assertContains(t, plain(m), "alt+enter", "queue a follow-up")
	press(m, " ", " ")
	assertContains(t, plain(m), "/compact [instructions]", "/resume [ID]")
}

// Streaming text shows as it arrives; the reply's entry replaces it.
func TestStreaming(t *testing.T) {
	m := New(&fakeApp{status: sampleStatus()}, Options{Cwd: t.TempDir()})
	m.setTheme(true, false) // colour: markdown renders its emphasis
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	var evs eventsMsg
	for _, w := range strings.Fields("Here is the **plan** for the fix") {
		evs = append(evs, agent.Event{Type: agent.EventMessageDelta, Delta: agent.DeltaText, Text: w + " "})
	}
	m.Update(evs)
	assertContains(t, plain(m), "Here is the **plan** for the fix")
	final := session.Entry{ID: "9", Body: &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("Here is the **plan** for the fix")}}}}
	m.Update(eventsMsg{{Type: agent.EventMessageEnd, Entry: &final}})
	f := plain(m)
	assertContains(t, f, "Here is the plan for the fix")
	if strings.Count(f, "for the fix") != 1 {
		t.Errorf("the reply shows twice:\n%s", f)
	}
}

// Terminal escapes in a tool's output or a model's text never reach
// the terminal.
func TestHostileOutputSanitised(t *testing.T) {
	m := newTestModel(t, &fakeApp{status: sampleStatus()})
	m.Update(eventsMsg{
		{Type: agent.EventToolStart, ToolCallID: "x", Tool: "bash", Arguments: []byte(`{"command":"cat evil\u001b]0;title\u0007"}`)},
		toolEnd("x", "ok\x1b]52;c;cHduZWQ=\x07 \x1b[2J\x1b[31mred\x9b1m\x00done", 0),
		{Type: agent.EventMessageDelta, Delta: agent.DeltaText, Text: "hi \x1b]8;;http://x\x07link"},
	})
	f := m.Frame()
	for _, bad := range []string{"\x1b]52", "\x1b]0;", "\x1b[2J", "\x1b]8;", "\x9b", "\x00", "\x07"} {
		if strings.Contains(f, bad) {
			t.Errorf("frame carries %q", bad)
		}
	}
	assertContains(t, ansi.Strip(f), "ok reddone", "hi link")
}

// Only the blocks on screen are rendered, however long the session.
func TestRendersOnlyVisible(t *testing.T) {
	app := &fakeApp{entries: longSession(10_000), status: sampleStatus()}
	m := newTestModel(t, app)
	m.Frame()
	rendered := 0
	for _, b := range m.tr.blocks {
		if b.cache != nil {
			rendered++
		}
	}
	if rendered == 0 || rendered > 40 {
		t.Errorf("%d blocks rendered of %d, want only the screen's", rendered, len(m.tr.blocks))
	}
	for range 200 {
		press(m, "pgup")
		m.Frame()
	}
	if n := len(m.r.cached); n > maxCached {
		t.Errorf("%d renderings kept after scrolling, over %d", n, maxCached)
	}
}

// ctrl+c clears, interrupts, then quits on the second press; ctrl+d
// quits on an empty editor.
func TestQuitKeys(t *testing.T) {
	app := &fakeApp{status: sampleStatus()}
	m := newTestModel(t, app)
	press(m, "typed")
	press(m, "ctrl+c")
	if m.ed.Value() != "" {
		t.Error("ctrl+c left the text")
	}
	if cmds := press(m, "ctrl+c"); cmds[0] != nil {
		t.Error("the first ctrl+c on an empty editor quit")
	}
	if cmds := press(m, "ctrl+c"); !runCmd(m, cmds[0]) {
		t.Error("the second ctrl+c did not quit")
	}
}
