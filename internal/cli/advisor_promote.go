package cli

import (
	"fmt"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/llm"
)

// promoteAdvisor offers an advisor on the model serving, when its context nears its
// window, the model advisor.promotion allows (by default a larger model of
// the same family, never the agent's own; see models.PromotionPolicy).
// a.advisorRes stays the configured model: that is what a changed
// modelRoles.advisor is compared with.
func (a *app) promoteAdvisor(serving string, need int64) (advisor.Promotion, bool) {
	cur, err := a.registry.Resolve(serving)
	if err != nil {
		return advisor.Promotion{}, false
	}
	a.mu.Lock()
	agentRes := a.model
	a.mu.Unlock()
	p := a.promotionPolicy()
	if agentRes != nil {
		p.Avoid = agentRes.Info.Ref()
	}
	res, ok := a.registry.PromotionTarget(cur, need, p)
	if !ok {
		return advisor.Promotion{}, false
	}
	m, err := res.Open()
	if err != nil {
		fmt.Fprintf(a.e.stderr, "vigil: warning: advisor promotion to %s: %v\n", res.Ref(), err)
		return advisor.Promotion{}, false
	}
	return advisor.Promotion{Model: m, Window: res.Info.ContextWindow, Name: res.Ref().String()}, true
}

// promotionPolicy is advisor.promotion as a models.PromotionPolicy.
func (a *app) promotionPolicy() models.PromotionPolicy {
	list := a.settings.Advisor.Promotion
	return models.PromotionPolicy{Candidates: list, Listed: list != nil}
}

// priceUsage prices each model's share of the advisor's usage at that
// model's own rates; a model the registry no longer knows is priced at
// fallback's.
func (a *app) priceUsage(byModel []advisor.ModelUsage, fallback llm.Price) float64 {
	var total float64
	for _, mu := range byModel {
		price := fallback
		if res, err := a.registry.Resolve(mu.Model); err == nil {
			price = res.Info.Price
		}
		total += price.Cost(mu.Usage)
	}
	return total
}
