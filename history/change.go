package history

import (
	"encoding/json"
	"strings"
)

// Change returns the change a tool call makes, as [Render] shows it under
// the call's tool line (see "Changes" in the package documentation), but
// without the fence: the lines of a unified diff, redacted by r (nil hides
// nothing), cut to maxLines lines as Options.MaxEditLines cuts them, with
// the cut's marker on a line of its own. It returns "" when the call is
// no edit, write or patch of a shape vigil reads, or maxLines is not
// positive.
func Change(tool string, arguments json.RawMessage, maxLines int, r *Redactor) string {
	if maxLines <= 0 {
		return ""
	}
	args, ok := parseArgs(arguments)
	if !ok {
		return ""
	}
	w := &writer{opts: &Options{MaxEditLines: maxLines, Redactor: r}}
	head, marker, tail := cutChange(w.changeOf(tool, args).diff, maxLines)
	var parts []string
	for _, p := range []string{head, marker, tail} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "\n")
}
