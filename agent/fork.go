package agent

import (
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// Forked is the model request the agent would make over a conversation
// other than its current one (see [Agent.Fork]), and the model it would
// make it of.
type Forked struct {
	// Model is the agent's model.
	Model llm.Model
	// Ref names it, as the agent records it on its replies; zero when the
	// agent was given no model info.
	Ref llm.Ref
	// Request has the agent's system prompt, tool definitions, thinking
	// level and reply cap, and the conversation as messages.
	Request llm.Request
}

// Fork returns the request the agent would send its model if its
// conversation were path, the entries of a branch as
// [session.Session.Path] returns them (a compaction first). The messages
// are built exactly as the agent builds its own requests: the entries the
// model sees, consecutive messages of one role merged, and a stand-in
// result for a tool call that has none. So a request made from the
// session's current path begins with the same bytes as the agent's next
// one, and a provider's prompt cache, warm from the agent's requests,
// serves it: the advisor's periodic review forks the conversation onto
// the agent's own model this way.
//
// Fork reads only what [New] set and the entries it is given; it may be
// called from any goroutine, during a run. The request shares the tool
// definitions with the agent: do not modify them.
func (a *Agent) Fork(path []session.Entry) Forked {
	var v view
	for _, e := range path {
		v.add(e)
	}
	v.answerDangling()
	return Forked{
		Model: a.model,
		Ref:   a.ref,
		Request: llm.Request{
			System:    a.system,
			Messages:  v.messages(),
			Tools:     a.defs,
			MaxTokens: a.maxTokens,
			Thinking:  a.thinking,
		},
	}
}
