package cli

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/vigil-dev/vigil/internal/commands"
	"github.com/vigil-dev/vigil/internal/stats"
	"github.com/vigil-dev/vigil/internal/tui"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// The app is the terminal UI's [tui.App] too (rpc.go has the operations
// both share).
var _ tui.App = (*app)(nil)

// runTUI opens the terminal UI on a, sending prompt first when set; pick
// opens the session picker, inline keeps the transcript in the
// terminal's scrollback.
func runTUI(e *env, a *app, prompt string, pick, inline bool) error {
	if !tui.IsTerminal(e.stdin) || !tui.IsTerminal(e.stdout) {
		return notTerminal(prompt)
	}
	// While a run goes, the commands that change the session refuse.
	a.busy = func() bool { return a.agent().State().Running }
	o := a.tuiOptions(e, prompt)
	o.PickSession, o.Inline = pick, inline
	err := tui.Run(e.ctx, a, o)
	// Once the UI has left the screen: how to come back, unless the
	// session holds nothing (it is removed then).
	if s := a.session(); s.Len() > 0 {
		if inline {
			fmt.Fprintln(e.stdout) // below the UI's last frame, which stays
		}
		fmt.Fprintf(e.stdout, "resume with `vigil -r %s`\n", s.ID())
	}
	return err
}

// tuiOptions are the UI's options for a on e's terminal, sending prompt
// first when set.
func (a *app) tuiOptions(e *env, prompt string) tui.Options {
	o := tui.Options{Prompt: prompt, Cwd: a.cwd, Commands: commands.New(), In: e.stdin, Out: e.stdout}
	o.Approval = a.approval
	o.Notices = a.userNotices()
	if nc, ok := e.lookupEnv("NO_COLOR"); ok {
		o.Env = append(os.Environ(), "NO_COLOR="+nc)
	}
	return o
}

// notTerminal says what to run instead of the UI when there is no
// terminal (a pipe, CI).
func notTerminal(prompt string) error {
	if prompt != "" {
		return fmt.Errorf("the terminal UI needs a terminal (stdin and stdout are not one): run the prompt with vigil -p %q, or use --mode json or --mode rpc", prompt)
	}
	return errors.New("the terminal UI needs a terminal (stdin and stdout are not one): pass -p PROMPT (or pipe it: echo PROMPT | vigil -p), or use --mode json|rpc")
}

// Entries is the current branch of the session, root first.
func (a *app) Entries() []session.Entry {
	s := a.session()
	path, err := s.Path(s.Leaf())
	if err != nil {
		return s.Entries()
	}
	return path
}

// Status is the status line's facts: the agent's model, tokens, cost and
// context use, and the advisor's.
func (a *app) Status() tui.Status {
	ag := a.agent()
	st := ag.State()
	a.mu.Lock()
	res, run, on, spent := a.model, a.adv, a.advOn, a.advSpent
	prior, priorCost := a.prior, a.priorCost
	a.mu.Unlock()
	// The session's past (a resumed one's) and what the agent spent since.
	all := prior.Add(st.Usage)
	out := tui.Status{
		Model: res.Ref().String(), Input: all.Input, Output: all.Output, CacheRead: all.CacheRead,
		Cost: priorCost + res.Info.Price.Cost(st.Usage), Context: st.ContextTokens, Window: int64(res.Info.ContextWindow),
	}
	switch {
	case on && run != nil:
		out.Advisor = tui.AdvisorStatus(run.Report(spent).Line)
	case on:
		out.Advisor = tui.AdvisorStatus{On: true, Model: "no model", Warning: "no model is assigned to the 'advisor' role"}
	}
	return out
}

// Models lists the models that can be used, as references.
func (a *app) Models() []string {
	var out []string
	for _, m := range a.registry.Entries() {
		if m.Problem == "" {
			out = append(out, llm.Ref{Provider: m.Info.Provider, Model: m.Info.ID}.String())
		}
	}
	return out
}

// Sessions lists this folder's sessions for /resume, most recent first:
// each with its title (first prompt), last change and cost. Sessions with
// nothing in them are left out, but for the one open now.
func (a *app) Sessions() ([]tui.SessionInfo, error) {
	r, err := stats.Scan(a.manager.Root(), stats.Options{Cwd: a.cwd, Price: registryPricer(a.registry)})
	if err != nil {
		return nil, err
	}
	cur := a.session().ID()
	var out []tui.SessionInfo
	for _, s := range r.Sessions {
		if s.Missing || (s.Updated.IsZero() && s.ID != cur) {
			continue
		}
		modified := s.Updated
		if modified.IsZero() {
			modified = s.Started
		}
		out = append(out, tui.SessionInfo{ID: s.ID, File: s.File, Title: s.Title, Modified: modified, Cost: s.Cost, Current: s.ID == cur})
	}
	slices.SortStableFunc(out, func(x, y tui.SessionInfo) int { return y.Modified.Compare(x.Modified) })
	return out, nil
}

// SwitchSession opens the session id (an id, a prefix or a file) and
// continues in it.
func (a *app) SwitchSession(id string) error {
	path := id
	var err error
	if !strings.HasSuffix(path, ".jsonl") {
		if path, err = a.manager.Find(id); err != nil {
			return err
		}
	}
	if path == a.session().File() {
		return nil // already open
	}
	if err := refuseAdvisorTranscript(path); err != nil {
		return err
	}
	sess, err := a.openSession(path, false)
	if err != nil {
		return lockedHint(err, appOptions{resume: id})
	}
	if err := a.build(sess, a.modelRef); err != nil {
		sess.Close()
		return err
	}
	return nil
}
