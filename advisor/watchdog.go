package advisor

import (
	"fmt"
	"strings"

	"github.com/vigil-dev/vigil/contextfiles"
)

// MaxWatchdogBytes caps how much of one WATCHDOG.md file (after its
// imports are expanded) reaches the advisor's system prompt; the rest is
// cut with a note saying so.
const MaxWatchdogBytes = 32 << 10

// WatchdogPrompt renders WATCHDOG.md files for the advisor's system
// prompt, in the order given (user level first, then the project from its
// root down to the working folder), each as
//
//	Especially pay attention to:
//	<attention source="PATH">
//	…the file's text…
//	</attention>
//
// Text that would open or close an attention element early is
// neutralised, so one file cannot end its wrapper and speak as the system
// prompt. Bytes that are not UTF-8 become U+FFFD. Blank files are left out;
// "" means there is nothing to add.
func WatchdogPrompt(files []contextfiles.File) string {
	var b strings.Builder
	for _, f := range files {
		// contextfiles reads invalid bytes as U+FFFD already; a File made
		// elsewhere gets the same, so the prompt is always UTF-8 text.
		text := strings.TrimSpace(strings.ToValidUTF8(f.Content, "\uFFFD"))
		if text == "" {
			continue
		}
		note := ""
		if len(text) > MaxWatchdogBytes {
			cut := MaxWatchdogBytes
			for cut > 0 && !utf8Start(text[cut]) {
				cut--
			}
			note = fmt.Sprintf("\n[vigil: this file is %d bytes; only the first %d are shown]", len(text), cut)
			text = text[:cut]
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("Especially pay attention to:\n<attention source=\"")
		b.WriteString(attrEscape(f.Path))
		b.WriteString("\">\n")
		b.WriteString(neutraliseAttention(text))
		b.WriteString(note)
		b.WriteString("\n</attention>")
	}
	return b.String()
}

// utf8Start reports whether c begins a UTF-8 sequence.
func utf8Start(c byte) bool { return c&0xC0 != 0x80 }

// neutraliseAttention escapes the angle bracket of any attention tag, in
// any case and spacing, so the text cannot open or close the wrapper.
func neutraliseAttention(s string) string { return neutraliseTag(s, "attention") }

func attrEscape(s string) string {
	return strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;", `"`, "&quot;").Replace(s)
}
