package agent

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// TaskToolName is the name of the tool that runs a subagent.
const TaskToolName = "task"

// SubagentConfig turns on the task tool, with which the model hands a
// self-contained job to a subagent: a child agent with the same model,
// settings and (unless narrowed) tools, minus the task tool, writing its
// own session in the parent session's artifacts folder
// (<artifacts>/<id>.jsonl, see [session.Session.NewChild]). The child runs
// on the parent's loop goroutine, inside the task call: the parent's
// interrupting steers and Abort cancel it, and its events reach the
// parent's subscribers as subagent_event.
type SubagentConfig struct {
	// System is the subagents' system prompt; "" gives them the parent's.
	System string
	// Tools, when set, makes each subagent a fresh tool set, so that it
	// does not share the parent's tool session (files seen, snapshots);
	// nil shares the parent's tools, which are safe for concurrent use.
	Tools func() ([]tools.Tool, error)
	// Hooks, when set, gives a subagent its hooks (such as an advisor of
	// its own), from its id and session.
	Hooks func(id string, s *session.Session) []Hook
	// Started, when set, is called with each subagent once it exists and
	// before it runs (to attach an advisor of its own, say); the function
	// it returns, if not nil, is called when the subagent's run is over,
	// before its session is closed.
	Started func(id string, sub *Agent, s *session.Session) (finished func())
}

// taskTool is the task tool of one agent.
type taskTool struct{ a *Agent }

type taskArgs struct {
	Prompt      string   `json:"prompt"`
	Description string   `json:"description"`
	Tools       []string `json:"tools"`
}

const taskDescription = `Hand a self-contained job to a subagent and get its final answer back.

The subagent starts with no knowledge of this conversation: the prompt must say everything it needs (goal, files, constraints) and what to report. It has the same tools as you, except task, unless "tools" narrows them. Use it for work whose details you do not need to keep: searching a large codebase, a focused investigation, a side task. Its answer is the tool result.`

func (t *taskTool) Definition() llm.Tool {
	var names []string
	for _, d := range t.a.defs {
		if d.Name != TaskToolName {
			names = append(names, d.Name)
		}
	}
	if names == nil {
		names = []string{}
	}
	schema, _ := json.Marshal(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"prompt":      map[string]any{"type": "string", "description": "The whole job: goal, context, constraints and what to report."},
			"description": map[string]any{"type": "string", "description": "A short title for the job, shown to the user."},
			"tools":       map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": names}, "description": "The tools the subagent may use; all of yours but task when absent."},
		},
		"required":             []string{"prompt"},
		"additionalProperties": false,
	})
	return llm.Tool{Name: TaskToolName, Description: taskDescription, Schema: schema}
}

func (t *taskTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	var args taskArgs
	dec := json.NewDecoder(bytes.NewReader(call.Arguments))
	dec.DisallowUnknownFields()
	if len(call.Arguments) > 0 {
		if err := dec.Decode(&args); err != nil {
			return tools.Result{}, fmt.Errorf("task: arguments: %w", err)
		}
	}
	if strings.TrimSpace(args.Prompt) == "" {
		return tools.Result{}, errors.New("task: prompt is required")
	}
	if err := ctx.Err(); err != nil {
		return tools.Result{}, fmt.Errorf("task: not started: %w", context.Cause(ctx))
	}
	return t.a.runSubagent(ctx, args)
}

// runSubagent runs one child agent to the end of its prompt and returns
// its final answer. It runs on the parent's loop goroutine, which holds
// the parent's busy token, so forwarding the child's events keeps the
// parent's events in order.
func (a *Agent) runSubagent(ctx context.Context, args taskArgs) (tools.Result, error) {
	cfg := a.subagents
	set := a.toolset
	if cfg.Tools != nil {
		fresh, err := cfg.Tools()
		if err != nil {
			return tools.Result{}, fmt.Errorf("task: make the subagent's tools: %w", err)
		}
		set = fresh
	}
	set = slices.DeleteFunc(slices.Clone(set), func(t tools.Tool) bool { return t.Definition().Name == TaskToolName })
	if args.Tools != nil {
		var chosen []tools.Tool
		for _, name := range args.Tools {
			i := slices.IndexFunc(set, func(t tools.Tool) bool { return t.Definition().Name == name })
			if i < 0 {
				return tools.Result{}, fmt.Errorf("task: unknown tool %q for the subagent", name)
			}
			chosen = append(chosen, set[i])
		}
		set = chosen
	}

	id := "task-" + randomHex(4)
	child, err := a.sess.NewChild(id)
	if err != nil {
		return tools.Result{}, fmt.Errorf("task: %w", err)
	}
	defer child.Close()
	system := cfg.System
	if system == "" {
		system = a.system
	}
	var hooks []Hook
	if cfg.Hooks != nil {
		hooks = cfg.Hooks(id, child)
	}
	sub, err := New(Options{
		Model: a.model, Info: a.info, Thinking: a.thinking, System: system, Session: child, Tools: set,
		Compaction: a.compaction, MaxTokens: a.maxTokens, Hooks: hooks, BoundaryTimeout: a.boundaryWait,
		Approvals: a.approvals,
	})
	if err != nil {
		return tools.Result{}, fmt.Errorf("task: %w", err)
	}
	unsubscribe := sub.Subscribe(func(ev Event) {
		a.emit(a.event(Event{Type: EventSubagent, SubagentID: id, Subagent: &ev}))
	})
	defer unsubscribe()
	if cfg.Started != nil {
		if finished := cfg.Started(id, sub, child); finished != nil {
			defer finished()
		}
	}

	runErr := sub.Prompt(ctx, args.Prompt)
	answer := finalAnswer(child)
	if runErr != nil {
		text := fmt.Sprintf("subagent %s stopped: %v", id, runErr)
		if answer != "" {
			text += "\nIts last answer:\n" + answer
		}
		res := tools.Result{IsError: true, Content: []llm.Block{llm.Text(text)}}
		if ctx.Err() != nil {
			return res, fmt.Errorf("task: subagent %s: %w", id, context.Cause(ctx))
		}
		return res, nil
	}
	if answer == "" {
		answer = "(the subagent gave no answer)"
	}
	return tools.Result{Content: []llm.Block{llm.Text(answer)}}, nil
}

// finalAnswer returns the text of the last assistant message on the
// session's branch.
func finalAnswer(s *session.Session) string {
	for cur := s.Leaf(); cur != ""; {
		e, ok := s.Get(cur)
		if !ok {
			break
		}
		if m, ok := e.Body.(*session.Message); ok && m.Message.Role == llm.RoleAssistant {
			return strings.TrimSpace(m.Message.Text())
		}
		cur = e.ParentID
	}
	return ""
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails, per crypto/rand
	return hex.EncodeToString(b)
}
