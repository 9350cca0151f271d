package transcript

import (
	"encoding/json"
	"strings"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/session"
)

// vigil's hooks attach its advisor to Claude Code and Codex: the advice
// they inject, one or more <advisory …>…</advisory> elements, comes back
// in the agent's transcript wrapped in the harness's own words (a hook
// context attachment, a "Stop hook feedback:" message, a developer
// message, a <hook_prompt> element). The readers strip the wrapper and
// map such text to an advice entry: a custom entry of type
// "advisor:CHANNEL" whose content is exactly the advisory elements. The
// history package's IsAdvice recognises it, so the advisor never reviews
// its own advice and a review never counts it as the user's prompt. Text
// other hooks inject is context, as before.

// adviceBody returns the body of an advice entry that came in through
// channel (a hook event such as "PostToolUse" or "Stop", or
// "additionalContext"); text is the advisory elements, details what the
// transcript says of the hook, or nil.
func adviceBody(channel, text string, details json.RawMessage) *session.Custom {
	return &session.Custom{
		CustomType: history.CustomAdvisor + ":" + channel,
		Content:    textBlocks(strings.TrimSpace(text)),
		InContext:  true,
		Details:    details,
	}
}

// xmlUnescaper undoes the escaping of text inside an XML element.
var xmlUnescaper = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&apos;", "'", "&#39;", "'", "&#34;", `"`, "&amp;", "&")

// unwrapElements returns the unescaped contents of text when text is
// nothing but one or more <name …>…</name> elements and white space.
func unwrapElements(text, name string) ([]string, bool) {
	open, closing := "<"+name, "</"+name+">"
	var inner []string
	s := strings.TrimSpace(text)
	for s != "" {
		rest, ok := strings.CutPrefix(s, open)
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '>') {
			return nil, false
		}
		start := strings.IndexByte(rest, '>')
		end := strings.Index(rest, closing)
		if start < 0 || end < start {
			return nil, false
		}
		inner = append(inner, xmlUnescaper.Replace(rest[start+1:end]))
		s = strings.TrimSpace(rest[end+len(closing):])
	}
	return inner, len(inner) > 0
}

// withheldAdvice reports whether e is advice the advisor kept from the
// agent: vigil's session writes a withheld note (advisor.allowPromptInjection
// false) as a custom entry of type "advisor" that the user is shown and the
// model is not sent, its details {"delivery":"withheld"}. Nothing the agent
// was told: no step's context and no follower's mark.
func withheldAdvice(e session.Entry) bool {
	c, ok := e.Body.(*session.Custom)
	return ok && !c.InContext && history.IsAdvice(e)
}
