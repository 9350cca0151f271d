package contextfiles

import (
	"strings"
)

// Render formats files for a system prompt, in their order, each as
//
//	<context-file path="PATH">
//	CONTENT
//	</context-file>
//
// separated by blank lines. Files whose content is blank are left out; an
// empty result means there is nothing to add. Content is not escaped: it is
// the user's own text.
func Render(files []File) string {
	var b strings.Builder
	for _, f := range files {
		content := strings.TrimRight(f.Content, " \t\r\n")
		if strings.TrimSpace(content) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(`<context-file path="`)
		b.WriteString(attrEscaper.Replace(f.Path))
		b.WriteString("\">\n")
		b.WriteString(content)
		b.WriteString("\n</context-file>")
	}
	return b.String()
}

var attrEscaper = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;", `"`, "&quot;")
