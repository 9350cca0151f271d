package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/internal/printnotes"
	"github.com/vigil-dev/vigil/internal/rpc"
	"github.com/vigil-dev/vigil/internal/tui"
)

// runCmd runs the agent: on one prompt (-p), or driven over stdin (--mode
// rpc).
type runCmd struct {
	Print    bool     `short:"p" help:"Run one prompt and print the final answer: vigil -p \"PROMPT\", or pipe the prompt (echo PROMPT | vigil -p)."`
	Prompt   []string `arg:"" optional:"" help:"The prompt, with -p or --mode json; several words are joined by spaces."`
	Mode     string   `enum:"text,json,rpc" default:"text" help:"Output: text (the final answer), json (every event as a JSON line), rpc (JSONL commands on stdin, events and replies on stdout; see docs/rpc.md)."`
	Continue bool     `short:"c" help:"Continue the latest session of this folder."`
	Resume   string   `short:"r" help:"Resume a session by id, id prefix or file; in the terminal UI, --resume (-r) alone opens a picker." placeholder:"ID"`
	Fork     bool     `help:"With --resume or --continue: go on in a copy of that session, leaving it as it is (safe while another vigil writes it)."`
	Model    string   `short:"m" help:"Model reference provider/model[:thinking]; default: modelRoles.default." placeholder:"REF"`
	Thinking string   `help:"The model's thinking level: off, minimal, low, medium, high or xhigh (the same as -m REF:LEVEL)." placeholder:"LEVEL"`
	Advisor  bool     `help:"Run the advisor, a second model that reviews the agent's steps (also: advisor.enabled)."`
	AdvModel string   `name:"advisor-model" help:"The advisor's model reference; default: modelRoles.advisor." placeholder:"REF"`
	Inline   *bool    `negatable:"" help:"Terminal UI: draw in the normal screen and print the transcript into the terminal's scrollback, where it stays after vigil exits; --no-inline takes the whole screen, cleared on exit. Default: ui.inline (off)."`
	Models   string   `name:"models-file" help:"models.yml to read instead of the agent folder's." type:"path" placeholder:"PATH"`
	Approval string   `help:"ask: confirm each bash, write and edit call (once, for the session, or deny), as Claude Code and Codex do; auto: run them unasked, as pi and omp do. Default: tools.approval (auto) in the terminal UI, auto in -p, json and rpc modes; in -p and json modes ask denies them, as no one can answer." placeholder:"ask|auto"`
}

func (c *runCmd) Run(e *env) error {
	prompt, err := c.prompt(e)
	if err != nil {
		return err
	}
	ui := !c.Print && c.Mode == "text"
	if ui && !(tui.IsTerminal(e.stdin) && tui.IsTerminal(e.stdout)) {
		return notTerminal(prompt)
	}
	pick := c.Resume == pickSession
	if pick && !ui {
		return errors.New("--resume needs a session id outside the terminal UI (vigil sessions lists them)")
	}
	resume := c.Resume
	if pick {
		resume = ""
	}
	// A picker opens on the latest session, so that no empty one is made.
	a, err := newApp(e, appOptions{model: c.Model, thinking: c.Thinking, cont: c.Continue || pick, resume: resume, fork: c.Fork, modelsYM: c.Models, advisor: c.Advisor, advModel: c.AdvModel, approval: c.Approval, ui: ui})
	if err != nil {
		return err
	}
	defer a.close()
	if ui {
		inline := a.settings.UI.Inline
		if c.Inline != nil {
			inline = *c.Inline
		}
		return runTUI(e, a, prompt, pick, inline)
	}
	for _, n := range a.userNotices() {
		fmt.Fprintln(e.stderr, "vigil:", n)
	}
	if c.Mode != "rpc" && a.approval == config.ApprovalAsk {
		a.denyUnattended()
	}
	switch c.Mode {
	case "rpc":
		return serveRPC(e, a)
	case "json":
		w := rpc.NewLineWriter(e.stdout)
		a.Subscribe(func(ev agent.Event) { w.Encode(ev) })
		return a.promptOrCommand(e.ctx, prompt)
	}
	// No UI shows the advisor's notes here: stderr does, stdout keeps the
	// answer.
	a.Subscribe(printnotes.To(e.stderr))
	before := a.session().Len()
	err = a.promptOrCommand(e.ctx, prompt)
	// Print only what this prompt produced: after a failure, the partial
	// reply if there is one, never an older answer.
	if ans := answerSince(a.session(), before); ans != "" || (err == nil && !strings.HasPrefix(prompt, "/")) {
		fmt.Fprintln(e.stdout, ans)
	}
	return err
}

// pickSession is the value of a bare --resume (no id): the UI opens its
// session picker. resumeArgs puts it in.
const pickSession = "\x00pick"

// resumeArgs gives a bare --resume or -r (the last argument, or followed
// by another flag) the value pickSession, so that vigil --resume opens
// the picker while vigil --resume ID resumes ID.
func resumeArgs(args []string) []string {
	for i, a := range args {
		if a == "--" {
			break
		}
		if (a == "--resume" || a == "-r") && (i == len(args)-1 || strings.HasPrefix(args[i+1], "-")) {
			out := slices.Clone(args)
			out[i] = "--resume=" + pickSession
			return out
		}
	}
	return args
}

// maxStdinPrompt bounds a prompt read from stdin.
const maxStdinPrompt = 8 << 20

// prompt is the one prompt of print and JSON mode: the arguments joined by
// spaces, or, with none, stdin when it is piped or a file (read up to
// maxStdinPrompt). A terminal or /dev/null on stdin is never read, and
// with arguments stdin is left alone, so a parent that leaves stdin open
// cannot make vigil wait. The RPC mode takes its prompts as commands.
func (c *runCmd) prompt(e *env) (string, error) {
	text := strings.TrimSpace(strings.Join(c.Prompt, " "))
	switch {
	case c.Mode == "rpc":
		if text != "" || c.Print {
			return "", errors.New("--mode rpc takes its prompts as commands on stdin (docs/rpc.md), not as arguments or -p")
		}
		return "", nil
	case !c.Print && c.Mode == "text":
		return text, nil // the terminal UI's first prompt, if any
	case text != "":
		return text, nil
	}
	if !readable(e.stdin) {
		return "", errors.New("no prompt: pass it as an argument (vigil -p \"PROMPT\") or pipe it (echo PROMPT | vigil -p)")
	}
	data, err := io.ReadAll(io.LimitReader(e.stdin, maxStdinPrompt+1))
	if err != nil {
		return "", fmt.Errorf("read the prompt from stdin: %w", err)
	}
	if len(data) > maxStdinPrompt {
		return "", fmt.Errorf("the prompt on stdin is over %d MiB: put the text in a file and ask the agent to read it", maxStdinPrompt>>20)
	}
	if !utf8.Valid(data) {
		return "", errors.New("the prompt on stdin is not UTF-8 text")
	}
	text = strings.TrimSpace(string(data))
	if text == "" {
		return "", errors.New("no prompt: stdin was empty; pass the prompt as an argument (vigil -p \"PROMPT\")")
	}
	return text, nil
}

// readable reports whether a prompt may be read from r: a pipe or a
// file, not a terminal or a device such as /dev/null.
func readable(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return r != nil
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice == 0
}
