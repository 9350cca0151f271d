package session

import "github.com/vigil-dev/vigil/llm"

// UsageByModel sums the usage of every model reply in the file, every
// branch included, by the model that wrote it (its thinking level left
// out, for pricing): what the session has spent so far.
func (s *Session) UsageByModel() map[llm.Ref]llm.Usage {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := map[llm.Ref]llm.Usage{}
	for _, e := range s.entries {
		m, ok := e.Body.(*Message)
		if !ok || m.Usage == (llm.Usage{}) {
			continue
		}
		ref := m.Model
		ref.Thinking = ""
		out[ref] = out[ref].Add(m.Usage)
	}
	return out
}
