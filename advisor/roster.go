package advisor

import "strings"

// RosterPrompt is the system prompt of one advisor of a roster, in the
// documented order: vigil's prompt (base), the WATCHDOG.md blocks
// ([WatchdogPrompt]), the roster's shared instructions, then the
// advisor's own. Each instruction block is wrapped in an element that
// names where it comes from; text inside that would open or close one
// early is neutralised, as in WATCHDOG.md's attention blocks. Empty parts
// are left out.
func RosterPrompt(base, watchdog, shared, name, own string) string {
	parts := []string{base}
	if strings.TrimSpace(watchdog) != "" {
		parts = append(parts, watchdog)
	}
	if s := strings.TrimSpace(shared); s != "" {
		parts = append(parts, "Instructions for every advisor of this session:\n<roster-instructions>\n"+neutraliseTag(s, "roster-instructions")+"\n</roster-instructions>")
	}
	if s := strings.TrimSpace(own); s != "" {
		parts = append(parts, "You are the advisor named \""+attrEscape(name)+"\". Your own instructions:\n<advisor-instructions name=\""+attrEscape(name)+"\">\n"+neutraliseTag(s, "advisor-instructions")+"\n</advisor-instructions>")
	} else if name != "" {
		parts = append(parts, "You are the advisor named \""+attrEscape(name)+"\".")
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

// RosterReviewPrompt is the periodic review prompt of one advisor of a
// roster ([ReviewPrompt]): its guidance is assembled as [RosterPrompt]
// assembles a system prompt, in the same order: the review guidance
// (instructions, or [DefaultReviewInstructions] when they are empty) in
// the place of vigil's prompt, the WATCHDOG.md blocks (watchdog, ""
// leaves them out), the roster's shared instructions, then the
// advisor's own. The fixed opening and the output contract stay first
// and last, so the reply's shape is read as for any review.
func RosterReviewPrompt(instructions, watchdog, shared, name, own string) string {
	guidance := strings.TrimSpace(instructions)
	if guidance == "" {
		guidance = DefaultReviewInstructions
	}
	return ReviewPrompt(RosterPrompt(guidance, watchdog, shared, name, own))
}
