package contextfiles_test

import (
	"testing"

	"github.com/vigil-dev/vigil/contextfiles"
)

func TestRender(t *testing.T) {
	tests := []struct {
		name  string
		files []contextfiles.File
		want  string
	}{
		{"none", nil, ""},
		{"blank files are left out", []contextfiles.File{{Path: "/a", Content: " \n\t\n"}}, ""},
		{
			"in order, trailing space trimmed",
			[]contextfiles.File{{Path: "/u/AGENTS.md", Content: "user\n\n"}, {Path: "/p", Content: ""}, {Path: "/p/AGENTS.md", Content: "# P\n\nproject"}},
			"<context-file path=\"/u/AGENTS.md\">\nuser\n</context-file>\n\n<context-file path=\"/p/AGENTS.md\">\n# P\n\nproject\n</context-file>",
		},
		{
			"path escaped, content not",
			[]contextfiles.File{{Path: `/a"<&>`, Content: "<b>&</b>"}},
			"<context-file path=\"/a&quot;&lt;&amp;&gt;\">\n<b>&</b>\n</context-file>",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := contextfiles.Render(tt.files); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
