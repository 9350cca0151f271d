package fakellm

import (
	"strings"
	"time"
)

// modelIDs lists the models a script names: each rule's Model that is a
// plain name rather than a glob, once, in script order.
func modelIDs(s *Script) []string {
	var ids []string
	seen := map[string]bool{}
	for _, r := range s.Rules {
		if r.Model == "" || strings.ContainsAny(r.Model, `*?[\`) || seen[r.Model] {
			continue
		}
		seen[r.Model] = true
		ids = append(ids, r.Model)
	}
	return ids
}

// modelObject describes a model with both OpenAI's fields (object,
// created, owned_by) and Anthropic's (type, display_name, created_at).
func modelObject(id string, created time.Time) object {
	return obj(
		"id", id,
		"object", "model",
		"created", created.Unix(),
		"owned_by", "fakellm",
		"type", "model",
		"display_name", id,
		"created_at", created.UTC().Format(time.RFC3339),
	)
}

// modelList is a page holding every model, readable as OpenAI's list and
// as Anthropic's page (has_more, first_id, last_id).
func modelList(ids []string, created time.Time) object {
	data := []object{}
	for _, id := range ids {
		data = append(data, modelObject(id, created))
	}
	var first, last any
	if len(ids) > 0 {
		first, last = ids[0], ids[len(ids)-1]
	}
	return obj("object", "list", "data", data, "has_more", false, "first_id", first, "last_id", last)
}
