package advisor

import (
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// ThinkingSource is implemented by a [Host] that knows the thinking level
// of the agent's requests now (vigil's own agent). With
// Options.FollowThinking the runtime asks it before each review; other
// hosts are followed through their sessions' model changes.
type ThinkingSource interface {
	Thinking() llm.ThinkingLevel
}

// hostThinking updates the level to follow from the host, when it says.
func (r *Runtime) hostThinking() {
	if !r.opts.FollowThinking {
		return
	}
	if src, ok := r.opts.Host.(ThinkingSource); ok {
		if level := src.Thinking(); level != "" {
			r.thinking = level
		}
	}
}

// followThinking keeps, with Options.FollowThinking, the thinking level the
// agent's session last switched to, for the next review's requests: the
// advisor thinks as hard as the agent it watches, step by step (omp's
// advisor effort "auto").
func (r *Runtime) followThinking(entries []session.Entry) {
	if !r.opts.FollowThinking {
		return
	}
	for _, e := range entries {
		if mc, ok := e.Body.(*session.ModelChange); ok && mc.Thinking != "" {
			r.thinking = mc.Thinking
		}
	}
}
