package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// warningType is the custom type of the entry that tells the user, in the
// session, that supervision stopped working: shown by the terminal UI
// and in the event stream (custom_appended), never sent to the agent's
// model.
const warningType = "advisor_warning"

// supervisionWarning tells the user that the advisor is failing, once per
// kind of failure (of each advisor of a roster) until a notice says that
// kind works again: on stderr, and in vigil's own agent as a displayed
// entry in the session with what to do, so it reaches the terminal UI
// and RPC and JSON clients where they look. The repeats are counted by
// /advisor status, not printed: a dead provider drops a backlog at every
// step, and six identical lines in a short run hid the answer.
func (a *app) supervisionWarning(msg string) { a.supervisionWarningOn(nil, msg) }

// supervisionWarningOn is supervisionWarning into the session of ag, or
// of the app's agent when ag is nil: an advisor that fails as it starts
// warns before its agent is the app's.
func (a *app) supervisionWarningOn(ag *agent.Agent, msg string) {
	kind, todo := warningKind(msg)
	// A roster's advisors fail apart: once per kind for each of them.
	who, text := "", strings.TrimPrefix(msg, "advisor: ")
	if rest, ok := strings.CutPrefix(msg, "advisor "); ok {
		if name, after, ok := strings.Cut(rest, ": "); ok && !strings.ContainsAny(name, " \n") {
			who, text = name, after
		}
	}
	a.mu.Lock()
	if ag == nil {
		ag = a.ag
	}
	if a.warned == nil {
		a.warned = map[string]bool{}
	}
	first := !a.warned[who+"/"+kind]
	a.warned[who+"/"+kind] = true
	a.mu.Unlock()
	if !first {
		return
	}
	fmt.Fprintln(a.e.stderr, "vigil: warning: "+msg)
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
		CustomType: warningType,
		Content:    []llm.Block{llm.Text(head + text + ". " + todo)},
		Display:    true,
		Details:    details,
	})
	if err != nil && !errors.Is(err, agent.ErrDeferred) {
		fmt.Fprintf(a.e.stderr, "vigil: warning: could not record the advisor's failure in the session: %v\n", err)
	}
}

// noticeType is the custom type of the entry that tells the user, in the
// session, that supervision works again after a warning: shown, never
// sent to the agent's model.
const noticeType = "advisor_notice"

// supervisionNotice tells the user that supervision of the given kind
// works again (on stderr, and in vigil's own agent as a displayed entry
// of the session), and lets a later failure of that kind be shown again.
func (a *app) supervisionNotice(kind, msg string) {
	fmt.Fprintln(a.e.stderr, "vigil: "+msg)
	a.mu.Lock()
	ag := a.ag
	delete(a.warned, "/"+kind)
	a.mu.Unlock()
	if ag == nil {
		return
	}
	details, _ := json.Marshal(map[string]string{"kind": kind})
	_, err := ag.AppendCustom(session.Custom{CustomType: noticeType, Content: []llm.Block{llm.Text(msg)}, Display: true, Details: details})
	if err != nil && !errors.Is(err, agent.ErrDeferred) {
		fmt.Fprintf(a.e.stderr, "vigil: warning: could not record the advisor's notice in the session: %v\n", err)
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

// spendSideBySide is the agent's and the advisor's spend in one line, for
// /advisor status; "" while the advisor is off.
func (a *app) spendSideBySide() string {
	st := a.Status()
	if !st.Advisor.On {
		return ""
	}
	total := st.Cost + st.Advisor.Cost
	share := 0.0
	if total > 0 {
		share = st.Advisor.Cost * 100 / total
	}
	return fmt.Sprintf("Spend side by side: the agent $%.4f (%s), the advisor $%.4f (%.0f%% of $%.4f).", st.Cost, st.Model, st.Advisor.Cost, share, total)
}
