package advisor

import "strings"

// RosterPromptParts are the parts of the system prompt of one advisor of
// a roster (or of the single advisor, the roster of one), joined by
// [RosterPromptParts.Prompt] in the documented order.
type RosterPromptParts struct {
	// Base comes first: vigil's prompt ([DefaultSystemPrompt]), or a
	// periodic review's guidance ([DefaultReviewInstructions] when the
	// settings give none).
	Base string
	// Watchdog is the WATCHDOG.md blocks ([WatchdogPrompt]); "" leaves
	// them out.
	Watchdog string
	// Shared is the roster's instructions for every advisor
	// (WATCHDOG.yml's instructions).
	Shared string
	// Name is the advisor's name in the roster; "" for the single
	// advisor.
	Name string
	// Own is the advisor's own instructions.
	Own string
}

// Prompt is the system prompt: Base, the WATCHDOG.md blocks, the
// roster's shared instructions, then the advisor's name and own
// instructions. Each instruction block is wrapped in an element that
// names where it comes from; text inside that would open or close one
// early is neutralised, as in WATCHDOG.md's attention blocks. Empty parts
// are left out.
func (p RosterPromptParts) Prompt() string {
	parts := []string{p.Base}
	if strings.TrimSpace(p.Watchdog) != "" {
		parts = append(parts, p.Watchdog)
	}
	if s := strings.TrimSpace(p.Shared); s != "" {
		parts = append(parts, "Instructions for every advisor of this session:\n<roster-instructions>\n"+neutraliseTag(s, "roster-instructions")+"\n</roster-instructions>")
	}
	name := attrEscape(p.Name)
	if s := strings.TrimSpace(p.Own); s != "" {
		parts = append(parts, "You are the advisor named \""+name+"\". Your own instructions:\n<advisor-instructions name=\""+name+"\">\n"+neutraliseTag(s, "advisor-instructions")+"\n</advisor-instructions>")
	} else if p.Name != "" {
		parts = append(parts, "You are the advisor named \""+name+"\".")
	}
	return strings.Join(parts, "\n\n")
}

// neutraliseTag escapes the bracket of every tag of the element name in
// s, in any case and with "/" or white space after the bracket, so that
// the text can neither open nor close that element.
func neutraliseTag(s, name string) string {
	lower := strings.ToLower(s)
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		j := i + 1
		for j < len(s) && strings.IndexByte("/ \t\n", s[j]) >= 0 {
			j++
		}
		if strings.HasPrefix(lower[j:], name) {
			b.WriteString(s[last:i])
			b.WriteString("&lt;")
			last = i + 1
		}
	}
	b.WriteString(s[last:])
	return b.String()
}
