package yamlfile_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/yamlfile"
)

// The limits must leave room for any real file: each case sits at a limit.
func TestParseAcceptsFilesAtTheLimits(t *testing.T) {
	tests := []struct{ name, data string }{
		{"flow nesting", "a: " + strings.Repeat("[", yamlfile.MaxDepth-1) + strings.Repeat("]", yamlfile.MaxDepth-1) + "\n"},
		{"block nesting", blockNesting(yamlfile.MaxDepth - 1)},
		{"keys", keys(yamlfile.MaxKeys)},
		{"keys in many mappings", "list:\n" + strings.Repeat("- "+strings.ReplaceAll(strings.TrimSuffix(keys(yamlfile.MaxKeys), "\n"), "\n", "\n  ")+"\n", 3)},
		{"aliases", laughs(3)},
		{"size", "# " + strings.Repeat("y", yamlfile.MaxSize-3) + "\n"},
		{"tabs and line ends", "a:\r\n  b: \"\tx\"\t# a tab\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := yamlfile.Parse("f.yml", []byte(tt.data)); err != nil {
				t.Errorf("Parse: %v", err)
			}
		})
	}
}

func TestParseLimits(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"flow nesting", "a: " + strings.Repeat("[", yamlfile.MaxDepth+1) + "\n", "f.yml:1:67: nests more than 64 levels deep"},
		{"flow and block nesting", blockNesting(yamlfile.MaxDepth-2) + strings.Repeat(" ", yamlfile.MaxDepth) + "b: [[[]]]\n", "nests more than 64 levels deep"},
		{"block nesting", blockNesting(yamlfile.MaxDepth + 1), "f.yml:65:65: nests more than 64 levels deep"},
		{"keys", keys(yamlfile.MaxKeys + 1), fmt.Sprintf("f.yml:%d:3: has more than 500 keys in one mapping", yamlfile.MaxKeys+2)},
		{"aliases", laughs(4), "f.yml:5:"},
		{"tokens", "a: [" + strings.Repeat("x,", yamlfile.MaxTokens/2) + "]\n", "f.yml:1:50002: holds more than 50000 YAML tokens"},
		{"size", strings.Repeat("y", yamlfile.MaxSize+1), "f.yml: is larger than 1 MiB"},
		{"control character", "a: b\nc: \x1b[31m\n", "f.yml:2:4: holds the control character U+001B"},
		{"invalid UTF-8", "a: b\nc: caf\xe9\n", "f.yml:2:7: is not UTF-8 text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := yamlfile.Parse("f.yml", []byte(tt.data))
			var e *yamlfile.Error
			if !errors.As(err, &e) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an *Error with %q", err, tt.want)
			}
		})
	}
}

// blockNesting is mappings nested depth deep by indentation.
func blockNesting(depth int) string {
	var b strings.Builder
	for i := range depth {
		b.WriteString(strings.Repeat(" ", i) + "a:\n")
	}
	return b.String()
}

// keys is a mapping with n keys under one key.
func keys(n int) string {
	var b strings.Builder
	b.WriteString("top:\n")
	for i := range n {
		fmt.Fprintf(&b, "  key%d: %d\n", i, i)
	}
	return b.String()
}

// laughs is levels levels of ten aliases of the level below, each listed
// in its own key: 11, 111, 1111 … values, 12344 in all for 3.
func laughs(levels int) string {
	var b strings.Builder
	b.WriteString("l0: &x0 [a, a, a, a, a, a, a, a, a, a]\n")
	for i := 1; i <= levels; i++ {
		ref := fmt.Sprintf("*x%d", i-1)
		fmt.Fprintf(&b, "l%d: &x%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(ref+", ", 10), ", "))
	}
	return b.String()
}
