package advisorhost

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// WarningType is the custom type of the entry that tells the user, in the
// session, that supervision stopped working: shown by the terminal UI
// and in the event stream (custom_appended), never sent to the agent's
// model.
const WarningType = "advisor_warning"

// Warnings tell the user that the advisor is failing, once per kind of
// failure (of each advisor of a roster) until a notice says that kind
// works again: on the log (stderr, or a sidecar's log), and in vigil's
// own agent as a displayed entry in the session with what to do, so it
// reaches the terminal UI and RPC and JSON clients where they look. The
// repeats are counted by /advisor status, not printed: a dead provider
// drops a backlog at every step, and six identical lines in a short run
// hid the answer. Its methods are safe for concurrent use.
type Warnings struct {
	// Log is where every warning and notice is written, one line each.
	Log io.Writer
	// Agent is the agent whose session shows them; nil, or nil returned,
	// shows them on Log alone.
	Agent func() *agent.Agent

	mu     sync.Mutex
	warned map[string]bool
}

// Warn tells the user msg, a runtime's warning, into the session of
// [Warnings.Agent]'s agent.
func (w *Warnings) Warn(msg string) { w.WarnOn(nil, msg) }

// WarnOn is Warn into the session of ag, or of [Warnings.Agent]'s when
// ag is nil: an advisor that fails as it starts warns before its agent
// is the app's.
func (w *Warnings) WarnOn(ag *agent.Agent, msg string) {
	kind, todo := warningKind(msg)
	// A roster's advisors fail apart: once per kind for each of them.
	who, text := "", strings.TrimPrefix(msg, "advisor: ")
	if rest, ok := strings.CutPrefix(msg, "advisor "); ok {
		if name, after, ok := strings.Cut(rest, ": "); ok && !strings.ContainsAny(name, " \n") {
			who, text = name, after
		}
	}
	if ag == nil && w.Agent != nil {
		ag = w.Agent()
	}
	w.mu.Lock()
	if w.warned == nil {
		w.warned = map[string]bool{}
	}
	first := !w.warned[who+"/"+kind]
	w.warned[who+"/"+kind] = true
	w.mu.Unlock()
	if !first {
		return
	}
	fmt.Fprintln(w.Log, "vigil: warning: "+msg)
	if ag == nil {
		return
	}
	fields := map[string]string{"kind": kind}
	head := "Supervision is not working: "
	if who != "" {
		fields["advisor"] = who
		head = "Supervision is not working (advisor " + who + "): "
	}
	details, _ := json.Marshal(fields)
	_, err := ag.AppendCustom(session.Custom{
		CustomType: WarningType,
		Content:    []llm.Block{llm.Text(head + text + ". " + todo)},
		Display:    true,
		Details:    details,
	})
	if err != nil && !errors.Is(err, agent.ErrDeferred) {
		fmt.Fprintf(w.Log, "vigil: warning: could not record the advisor's failure in the session: %v\n", err)
	}
}

// NoticeType is the custom type of the entry that tells the user, in the
// session, that supervision works again after a warning: shown, never
// sent to the agent's model.
const NoticeType = "advisor_notice"

// Notice tells the user that supervision of the given kind works again
// (on the log, and in vigil's own agent as a displayed entry of the
// session), and lets a later failure of that kind be shown again.
func (w *Warnings) Notice(kind, msg string) {
	fmt.Fprintln(w.Log, "vigil: "+msg)
	var ag *agent.Agent
	if w.Agent != nil {
		ag = w.Agent()
	}
	w.mu.Lock()
	delete(w.warned, "/"+kind)
	w.mu.Unlock()
	if ag == nil {
		return
	}
	details, _ := json.Marshal(map[string]string{"kind": kind})
	_, err := ag.AppendCustom(session.Custom{CustomType: NoticeType, Content: []llm.Block{llm.Text(msg)}, Display: true, Details: details})
	if err != nil && !errors.Is(err, agent.ErrDeferred) {
		fmt.Fprintf(w.Log, "vigil: warning: could not record the advisor's notice in the session: %v\n", err)
	}
}

// warningKind names a runtime warning's kind and says what the user can
// do about it.
func warningKind(msg string) (kind, todo string) {
	switch {
	case strings.Contains(msg, "its system prompt") && strings.Contains(msg, "context window"):
		return "prompt", "Shorten the WATCHDOG.md files or the WATCHDOG.yml instructions, or choose an advisor model with a larger context window."
	case strings.Contains(msg, "failed in a row") && strings.Contains(msg, string(llm.ContextTooLong)):
		return "context", "The advisor's context no longer fits its model: list a model with a larger window in advisor.promotion, or turn the advisor off and on to start it afresh."
	case strings.Contains(msg, "failed in a row"):
		return "dropped", "Check the advisor model's provider (its key, quota and network); /advisor status counts the failures, and the advisor goes on with the next steps."
	case strings.Contains(msg, "ended in prose"):
		return "prose", "Its notes never reach the agent: choose an advisor model that calls tools (modelRoles.advisor or --advisor-model)."
	case strings.Contains(msg, "quota is exhausted"):
		return "quota", "Reviews resume by themselves when the window ends; to be supervised now, switch the advisor model (modelRoles.advisor, or /advisor off and on with another --advisor-model)."
	case strings.Contains(msg, "fleet"):
		return "fleet", "Check that the fleet's NATS server runs and that advisor.fleet (url, tenant, creds) points at it; the agent goes on unreviewed meanwhile, and /advisor status counts the steps not published."
	case strings.Contains(msg, "review failed"):
		return "review", "/advisor status shows the failures; the next review tries again."
	}
	return "other", "/advisor status has the details."
}
