package cli

import (
	"errors"
	"fmt"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/session"
)

// askingTools are the tools whose calls wait for the user in the approval
// mode: those that run commands or change files. read, grep, find and the
// advisor's tools never ask.
var askingTools = []string{"bash", "write", "edit"}

// approvalMode is the run's approval mode, auto or ask: the --approval
// flag when given; else, in the terminal UI, tools.approval; else auto,
// so print, JSON and RPC modes run unattended unless told otherwise.
func approvalMode(flag string, ui bool, s *config.Settings) (string, error) {
	switch {
	case flag == config.ApprovalAuto || flag == config.ApprovalAsk:
		return flag, nil
	case flag != "":
		return "", fmt.Errorf("--approval %s: want ask (confirm each bash, write and edit) or auto (run them unasked)", flag)
	case ui:
		return s.Tools.Approval, nil
	}
	return config.ApprovalAuto, nil
}

// approvalsFor returns the approval mode of the agent build makes on
// sess: nil when tools run unasked; else the current one while the
// session stays (a model switch keeps what the user allowed for the
// session), a fresh one for another session. build makes it current
// with the agent.
func (a *app) approvalsFor(sess *session.Session) *agent.Approvals {
	if a.approval != config.ApprovalAsk {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.approvals != nil && a.sess == sess {
		return a.approvals
	}
	return agent.NewApprovals(askingTools...)
}

// errApprovalOff answers an approval while tools run unasked.
var errApprovalOff = errors.New("the approval mode is off: tools run unasked (start vigil with --approval ask)")

// Answer answers the approval request of the call callID (the terminal
// UI's y, a, n; RPC's approve).
func (a *app) Answer(callID string, ap agent.Approval) error {
	a.mu.Lock()
	p := a.approvals
	a.mu.Unlock()
	if p == nil {
		return errApprovalOff
	}
	return p.Answer(callID, ap)
}

// printDenial is the message a call that needs approval gets in print and
// JSON mode, where no one can answer.
const printDenial = "(vigil runs in print mode with --approval ask: no one can approve a call there, so bash, write and edit are denied; read-only tools work.)"

// denyUnattended denies, as they are asked, the approvals of a run no one
// can answer (print and JSON mode with --approval ask), saying each on
// stderr.
func (a *app) denyUnattended() {
	fmt.Fprintln(a.e.stderr, "vigil: --approval ask in print mode: no one can approve, so every bash, write and edit call is denied (the model is told); approve calls in the terminal UI (vigil) or over RPC (--mode rpc)")
	a.Subscribe(func(ev agent.Event) {
		if ev.Type == agent.EventSubagent && ev.Subagent != nil {
			ev = *ev.Subagent
		}
		if ev.Type != agent.EventApprovalRequest {
			return
		}
		fmt.Fprintf(a.e.stderr, "vigil: denied %s %s: print mode cannot ask\n", ev.Tool, ev.Arguments)
		if err := a.Answer(ev.ToolCallID, agent.Approval{Decision: agent.Deny, Message: printDenial}); err != nil {
			fmt.Fprintf(a.e.stderr, "vigil: deny %s: %v\n", ev.ToolCallID, err)
		}
	})
}
