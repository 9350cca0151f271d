package fakellm

import (
	"bytes"
	"fmt"
	"path"
	"strings"
)

// mismatch says why rule r does not match a request, or "" when it does.
func (r *Rule) mismatch(api, model string, body []byte) string {
	if r.API != "" && r.API != api {
		return fmt.Sprintf("api is %s, not %s", api, r.API)
	}
	if r.Model != "" {
		if ok, _ := path.Match(r.Model, model); !ok {
			return fmt.Sprintf("model %q does not match %q", model, r.Model)
		}
	}
	for _, m := range r.Match {
		if !bytes.Contains(body, []byte(m)) {
			return fmt.Sprintf("body lacks %q", m)
		}
	}
	return ""
}

// pick chooses the step that answers a request and consumes it: the next
// step of the first rule that matches and has one left (or repeats its
// last). It returns -1, -1 and why no rule applied when none does.
// The caller holds s.mu.
func (s *Server) pick(api, model string, body []byte) (rule, step int, why string) {
	var reasons []string
	for i := range s.script.Rules {
		r := &s.script.Rules[i]
		label := fmt.Sprintf("rule %d", i)
		if r.Name != "" {
			label += fmt.Sprintf(" (%s)", r.Name)
		}
		if m := r.mismatch(api, model, body); m != "" {
			reasons = append(reasons, label+": "+m)
			continue
		}
		n := s.stepsServed[i]
		switch {
		case n < len(r.Steps):
			s.stepsServed[i]++
			return i, n, ""
		case r.Repeat:
			return i, len(r.Steps) - 1, ""
		}
		reasons = append(reasons, fmt.Sprintf("%s: all %d steps served", label, len(r.Steps)))
	}
	if len(reasons) == 0 {
		reasons = append(reasons, "the script has no rules")
	}
	return -1, -1, fmt.Sprintf("fakellm: no rule for model %q on api %s: %s", model, api, strings.Join(reasons, "; "))
}
