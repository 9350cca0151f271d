package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vigil-dev/vigil/agent"
)

// The first screen's word on the approval mode: what runs without the
// user, and how to change it.
const (
	approvalAutoNotice = "Tools run unasked: bash, write and edit run as soon as the model calls them, as in pi and omp, so the model can change files and run any command as you (the advisor only reviews steps after they ran). To confirm each one, start vigil with --approval ask, or set tools.approval: ask."
	approvalAskNotice  = "vigil asks before bash, write and edit run: y allows the call once, a allows that tool for the rest of the session, n denies it (the model is told). Read-only tools never ask."
)

// pendingApproval is a tool call waiting for the user's answer.
type pendingApproval struct {
	callID, tool string
	args         json.RawMessage
	// diff is the change a write or edit would make, as the tool computed
	// it; problem says why it could not (the call would fail).
	diff, problem string
	// subagent names the subagent whose call it is; "" for the agent's.
	subagent string
}

// approvalEvent follows the approval requests in an event: a request
// opens the prompt, its end (answered, or cut short by an interrupt)
// closes it.
func (m *Model) approvalEvent(ev agent.Event) {
	sub := ""
	if ev.Type == agent.EventSubagent && ev.Subagent != nil {
		sub, ev = ev.SubagentID, *ev.Subagent
	}
	switch ev.Type {
	case agent.EventApprovalRequest:
		m.approval = &pendingApproval{callID: ev.ToolCallID, tool: ev.Tool, args: ev.Arguments, subagent: sub, problem: ev.Text}
		if ev.Details != nil {
			m.approval.diff = ev.Details.Diff
		}
		m.scroll = 0
	case agent.EventApprovalEnd:
		if m.approval != nil && m.approval.callID == ev.ToolCallID {
			m.approval = nil
		}
	case agent.EventIdle:
		m.approval = nil // the run is over: nothing waits
	}
}

// approvalKey handles a key while a call waits for approval: y, a and n
// answer; the keys that interrupt, scroll and fold keep their meaning
// (handled reports false); the rest are ignored, so that text typed for
// the editor cannot answer by accident.
func (m *Model) approvalKey(s string) (cmd tea.Cmd, handled bool) {
	var d agent.Decision
	switch s {
	case "y", "Y":
		d = agent.AllowOnce
	case "a", "A":
		d = agent.AllowAlways
	case "n", "N":
		d = agent.Deny
	case "esc", "ctrl+c", "pgup", "pgdown", "shift+up", "shift+down", "ctrl+end", "ctrl+o", "ctrl+t":
		return nil, false
	default:
		return nil, true
	}
	p := m.approval
	m.approval = nil
	if err := m.app.Answer(p.callID, agent.Approval{Decision: d}); err != nil {
		m.tr.fail("approval: " + err.Error())
	}
	return nil, true
}

// approvalLines renders the waiting call's prompt in width, at most h
// lines: what would run (the command, or the change a write or edit
// makes) and the keys.
func (m *Model) approvalLines(width, h int) []string {
	t, p := m.theme, m.approval
	inner := max(width-4, 10)
	var args map[string]any
	_ = json.Unmarshal(p.args, &args)
	str := func(k string) string { s, _ := args[k].(string); return sanitize(s) }
	title := "Allow " + p.tool + "?"
	var body []string
	switch {
	case p.diff != "":
		body = m.r.diff(sanitize(p.diff), max(h-4, 1))
	case p.problem != "":
		body = strings.Split(t.bad.Render(wrap("it would fail: "+sanitize(p.problem), inner)), "\n")
	}
	switch p.tool {
	case "bash":
		body = strings.Split(wrap("$ "+str("command"), inner), "\n")
	case "write":
		title = fmt.Sprintf("Allow write of %s?", str("path"))
		if body == nil {
			body = m.r.diff(plusLines(str("content")), max(h-4, 1))
		}
	case "edit":
		title = fmt.Sprintf("Allow edit of %s?", str("path"))
		if body == nil {
			body = m.r.diff("@@ "+str("path")+" @@\n"+prefixLines("-", str("old_text"))+prefixLines("+", str("new_text")), max(h-4, 1))
		}
	default:
		body = strings.Split(wrap(argsSummary(p.tool, p.args), inner), "\n")
	}
	if p.subagent != "" {
		title += t.dim.Render(" (subagent " + p.subagent + ")")
	}
	if len(body) > h-4 {
		body = append(body[:max(h-5, 0)], t.dim.Render(fmt.Sprintf("… %d more lines", len(body)-max(h-5, 0))))
	}
	for i, l := range body {
		body[i] = ansi.Truncate(l, inner, "…")
	}
	keys := t.statusHi.Render("y") + t.dim.Render(" allow once · ") + t.statusHi.Render("a") + t.dim.Render(" allow "+p.tool+" for this session · ") +
		t.statusHi.Render("n") + t.dim.Render(" deny · esc interrupts")
	box := t.panelBorder.Width(width).Render(ansi.Truncate(t.running.Render(title), inner, "…") + "\n" + strings.Join(body, "\n") + "\n" + ansi.Truncate(keys, inner, "…"))
	return strings.Split(box, "\n")
}

// approvalHeight is the rows the prompt takes at the current size.
func (m *Model) approvalHeight() int {
	return len(m.approvalLines(m.width, m.approvalMax()))
}

// approvalMax bounds the prompt: two thirds of the window, so that the
// transcript above it stays in view.
func (m *Model) approvalMax() int { return max(m.height*2/3, 5) }

// plusLines is content as the added lines of a diff.
func plusLines(content string) string {
	return "@@ new content @@\n" + prefixLines("+", content)
}

// prefixLines puts prefix before every line of s.
func prefixLines(prefix, s string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		b.WriteString(prefix + l + "\n")
	}
	return b.String()
}

// The values of Options.Approval.
const (
	approvalAsk  = "ask"
	approvalAuto = "auto"
)

// approvalNotice is the first screen's word on the approval mode.
func approvalNotice(mode string) string {
	switch mode {
	case approvalAsk:
		return approvalAskNotice
	case approvalAuto:
		return approvalAutoNotice
	}
	return ""
}

// approvalStatus is the status line's word on the approval mode.
func (m *Model) approvalStatus() string {
	switch m.opts.Approval {
	case approvalAsk:
		return m.theme.dim.Render(" · approval ask")
	case approvalAuto:
		return m.theme.running.Render(" · tools run unasked")
	}
	return ""
}
