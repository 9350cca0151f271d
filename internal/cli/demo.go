package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/demo"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/internal/tui"
)

type demoCmd struct {
	Wire bool `help:"Show the wire adapters instead: one scripted exchange streamed through each provider API."`
}

// Run plays the advisor demo: the terminal UI on a scripted session (or,
// with no terminal, the same session narrated on stdout); --wire the
// wire-adapter walk-through.
func (c *demoCmd) Run(e *env) error {
	if c.Wire {
		return demo.Wire(e.ctx, e.stdout, e.lookupEnv)
	}
	srv, err := fakellm.Start(demo.AdvisorScript())
	if err != nil {
		return fmt.Errorf("start fakellm: %w", err)
	}
	defer srv.Close()
	scratch, err := os.MkdirTemp("", "vigil-demo-")
	if err != nil {
		return fmt.Errorf("make the demo's scratch folder: %w", err)
	}
	defer os.RemoveAll(scratch)
	work, err := demo.Setup(scratch, srv.URL())
	if err != nil {
		return err
	}
	// The demo's own agent folder and home: nothing of the user's is read
	// or written.
	de := *e
	de.lookupEnv = func(k string) (string, bool) {
		switch k {
		case "VIGIL_AGENT_DIR":
			return filepath.Join(scratch, "agent"), true
		case "HOME":
			return scratch, true
		}
		return e.lookupEnv(k)
	}
	a, err := newApp(&de, appOptions{cwd: work, model: "demo/agent", advisor: true, advModel: "demo/advisor"})
	if err != nil {
		return fmt.Errorf("start the demo's agent: %w", err)
	}
	defer a.close()
	intro := fmt.Sprintf("vigil demo: the agent and its advisor are scripted models (fakellm on %s): no key, no network. The tools are real and work in a scratch folder, removed when you quit.", srv.URL())
	if tui.IsTerminal(e.stdin) && tui.IsTerminal(e.stdout) {
		a.busy = func() bool { return a.agent().State().Running }
		o := a.tuiOptions(e, demo.Prompt)
		o.Intro = []string{intro}
		return tui.Run(e.ctx, a, o)
	}
	fmt.Fprintln(e.stdout, intro)
	fmt.Fprintf(e.stdout, "\n› %s\n", demo.Prompt)
	a.Subscribe(func(ev agent.Event) { demo.Narrate(e.stdout, ev) })
	return a.agent().Prompt(e.ctx, demo.Prompt)
}
