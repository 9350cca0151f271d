package cli

import (
	"cmp"
	"os"

	"github.com/vigil-dev/vigil/internal/mcp"
	"github.com/vigil-dev/vigil/internal/sidecar"
)

// mcpCmd is `vigil mcp`: the MCP server (stdio) an attached agent starts,
// offering it ask_advisor, answered by the sidecar that watches the
// agent's session. It is registered in cliArgs as
//
//	MCP mcpCmd `cmd:"" name:"mcp" help:"Serve the ask_advisor tool over MCP (stdio) to an attached agent, answered by the advisor watching its session."`
type mcpCmd struct {
	Agent   string `enum:"claude-code,codex," default:"" help:"The agent whose session to ask about, with --session; by default the agent that started this server (its parent process)."`
	Session string `help:"The agent's session id, with --agent."`
}

func (c *mcpCmd) Run(e *env) error {
	return mcp.Serve(e.ctx, cmp.Or(Version, "dev"), mcp.SidecarAsker(c.find(e)), e.stdin, e.stdout)
}

// find names, at each question, the sidecar to ask: the session's given
// with --agent and --session, or else the one watching the agent process
// that started this server (as a hook names it: the parent, past shells).
func (c *mcpCmd) find(e *env) func() (sidecar.Info, bool) {
	agent := sidecar.AgentOf(os.Getppid())
	return func() (sidecar.Info, bool) {
		dir, err := sidecar.RuntimeDir(e.lookupEnv)
		if err != nil {
			return sidecar.Info{}, false
		}
		if c.Agent != "" && c.Session != "" {
			return dir.ReadInfo(sidecar.Key{Agent: c.Agent, Session: c.Session})
		}
		return dir.ForAgent(agent)
	}
}
