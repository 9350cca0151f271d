package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/vigil-dev/vigil/agent"
)

// runCmd runs the agent: on one prompt (-p), or driven over stdin (--mode
// rpc).
type runCmd struct {
	Print    string `short:"p" help:"Run one prompt and print the final answer." placeholder:"PROMPT"`
	Mode     string `enum:"text,json,rpc" default:"text" help:"Output: text (the final answer), json (every event as a JSON line), rpc (JSONL commands on stdin, events and replies on stdout; see docs/rpc.md)."`
	Continue bool   `short:"c" help:"Continue the latest session of this folder."`
	Resume   string `help:"Resume a session by id, id prefix or file." placeholder:"ID"`
	Fork     bool   `help:"With --resume or --continue: go on in a copy of that session, leaving it as it is (safe while another vigil writes it)."`
	Model    string `short:"m" help:"Model reference provider/model[:thinking]; default: modelRoles.default." placeholder:"REF"`
	Advisor  bool   `help:"Run the advisor, a second model that reviews the agent's steps (also: advisor.enabled)."`
	AdvModel string `name:"advisor-model" help:"The advisor's model reference; default: modelRoles.advisor." placeholder:"REF"`
	Models   string `name:"models-file" help:"models.yml to read instead of the agent folder's." type:"path" placeholder:"PATH"`
}

func (c *runCmd) Run(e *env) error {
	if c.Mode != "rpc" && c.Print == "" {
		return errors.New("nothing to do: pass -p PROMPT, or --mode rpc (the terminal UI is not built yet)")
	}
	a, err := newApp(e, appOptions{model: c.Model, cont: c.Continue, resume: c.Resume, fork: c.Fork, modelsYM: c.Models, advisor: c.Advisor, advModel: c.AdvModel})
	if err != nil {
		return err
	}
	defer a.close()
	switch c.Mode {
	case "rpc":
		return serveRPC(e, a)
	case "json":
		w := &jsonLines{w: e.stdout}
		a.subscribe(func(ev agent.Event) { w.write(ev) })
		return a.prompt(e.ctx, c.Print)
	}
	before := a.session().Len()
	err = a.prompt(e.ctx, c.Print)
	// Print only what this prompt produced: after a failure, the partial
	// reply if there is one, never an older answer.
	if ans := answerSince(a.session(), before); ans != "" || (err == nil && !strings.HasPrefix(c.Print, "/")) {
		fmt.Fprintln(e.stdout, ans)
	}
	return err
}

// jsonLines writes values as JSON lines, one writer at a time.
type jsonLines struct {
	mu sync.Mutex
	w  interface{ Write([]byte) (int, error) }
}

func (j *jsonLines) write(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		data, _ = json.Marshal(map[string]string{"type": "error", "error": "encode: " + err.Error()})
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.w.Write(append(data, '\n'))
}
