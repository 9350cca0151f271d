package models

import (
	"fmt"
	"slices"
	"strings"
)

// DefaultModel is the model to run when none is configured: the
// provider's default model (default: true in the catalog or models.yml,
// else its first usable one) of the first provider, in the registry's
// order, whose models can be used (its key is set, or it needs none). The
// error, when no provider qualifies, names the environment variables to
// set. why says what qualified the provider: "ANTHROPIC_API_KEY is set",
// "its key is in models.yml" or "it needs no key".
func (r *Registry) DefaultModel() (res *Resolved, why string, err error) {
	var vars []string
	for _, p := range r.providers {
		i := slices.IndexFunc(p.models, func(m *model) bool { return m.isDefault && r.problem(p, m) == "" })
		if i < 0 {
			i = slices.IndexFunc(p.models, func(m *model) bool { return r.problem(p, m) == "" })
		}
		if i >= 0 {
			switch {
			case p.auth == "none":
				why = "it needs no key"
			case envName().MatchString(p.apiKey):
				why = p.apiKey + " is set"
			default:
				why = "its key is in models.yml"
			}
			res, err := r.Resolve(p.name + "/" + p.models[i].info.ID)
			return res, why, err
		}
		if p.auth != "none" && envName().MatchString(p.apiKey) && !slices.Contains(vars, p.apiKey) {
			vars = append(vars, p.apiKey)
		}
	}
	if len(vars) == 0 {
		return nil, "", fmt.Errorf("no provider's models can be used (vigil models says why)")
	}
	return nil, "", fmt.Errorf("no API key is set: set %s", strings.Join(vars, " or "))
}
