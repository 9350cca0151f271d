package models

import (
	"strings"

	"github.com/vigil-dev/vigil/llm"
)

// PromotionPolicy says which models an advisor whose context fills may
// move to (the setting advisor.promotion).
type PromotionPolicy struct {
	// Candidates are the models to consider, in order, as references
	// (provider/model[:thinking]). With Listed false they are ignored and
	// the default applies: the current model's contextPromotionTarget,
	// then the models of its family (same provider, API and
	// [Family]) with a larger window, never Avoid. With Listed true they
	// are the only ones, and an empty list never promotes.
	Candidates []string
	Listed     bool
	// Avoid is the agent's own model, which the default never picks: the
	// advisor would then share the agent's rate limits and price, and
	// review its own model's work. Listing it makes it a candidate.
	Avoid llm.Ref
}

// PromotionTarget returns the model an advisor on cur moves to when its
// context needs need tokens, by policy p: among the usable candidates
// with a larger window than cur's, the first listed one (p.Listed), else
// the smallest that fits need with a quarter of its window to spare, else
// the largest. The target keeps cur's thinking level unless its
// reference names one. ok is false when no model qualifies.
func (r *Registry) PromotionTarget(cur *Resolved, need int64, p PromotionPolicy) (target *Resolved, ok bool) {
	if cur == nil {
		return nil, false
	}
	usable := func(res *Resolved) bool {
		return res.Info.ContextWindow > cur.Info.ContextWindow && res.Info.Ref() != cur.Info.Ref() &&
			r.problem(res.provider, res.model) == ""
	}
	resolve := func(s string) *Resolved {
		res, err := r.Resolve(s)
		if err != nil || !usable(res) {
			return nil
		}
		if ref, _ := llm.ParseRef(s); ref.Thinking == "" {
			res.Thinking = cur.Thinking
			if !res.Info.Reasoning && res.Thinking.Enabled() {
				res.Thinking = llm.ThinkingOff
			}
		}
		return res
	}
	if p.Listed {
		for _, c := range p.Candidates {
			if res := resolve(c); res != nil {
				return res, true
			}
		}
		return nil, false
	}
	if t := cur.model.promoteTo; t != "" {
		if !strings.Contains(t, "/") {
			t = cur.Info.Provider + "/" + t
		}
		if res := resolve(t); res != nil {
			return res, true
		}
	}
	avoid := llm.Ref{Provider: p.Avoid.Provider, Model: p.Avoid.Model}
	family := Family(cur.Info.ID)
	var best *Resolved
	fits := func(res *Resolved) bool { return int64(res.Info.ContextWindow)*3/4 > need }
	for _, e := range r.Entries() {
		info := e.Info
		if info.Provider != cur.Info.Provider || info.API != cur.Info.API || Family(info.ID) != family || info.Ref() == avoid {
			continue
		}
		res := resolve(info.Provider + "/" + info.ID)
		if res == nil {
			continue
		}
		switch {
		case best == nil:
			best = res
		case fits(res) && (!fits(best) || res.Info.ContextWindow < best.Info.ContextWindow):
			best = res
		case !fits(res) && !fits(best) && res.Info.ContextWindow > best.Info.ContextWindow:
			best = res
		}
	}
	return best, best != nil
}

// Family is the family a model id belongs to: the id without its version
// and date parts, so claude-sonnet-4-5 and claude-sonnet-5-20260101 are
// both claude-sonnet, gpt-5-mini and gpt-5.2-mini gpt-mini, while
// claude-haiku and claude-opus differ. A part is a version part when it
// starts with a digit and is not the whole id's only name (o4-mini stays
// itself), or is "latest"; a bracketed suffix such as [1m] is dropped.
func Family(id string) string {
	if i := strings.IndexByte(id, '['); i > 0 {
		id = id[:i]
	}
	parts := strings.Split(id, "-")
	var kept []string
	for i, part := range parts {
		versionLike := part == "latest" || (part != "" && part[0] >= '0' && part[0] <= '9')
		if versionLike && i > 0 {
			continue
		}
		kept = append(kept, part)
	}
	if len(kept) == 0 {
		return id
	}
	return strings.Join(kept, "-")
}
