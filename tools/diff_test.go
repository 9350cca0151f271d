package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnifiedDiff(t *testing.T) {
	tests := []struct {
		name, before, after, want string
	}{
		{name: "equal", before: "a\n", after: "a\n", want: ""},
		{name: "change in the middle", before: "1\n2\n3\n4\n5\n6\n7\n8\n9\n", after: "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
			want: "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"},
		{name: "two distant hunks", before: "a\n1\n2\n3\n4\n5\n6\n7\n8\nb\n", after: "A\n1\n2\n3\n4\n5\n6\n7\n8\nB\n",
			want: "--- a\n+++ b\n@@ -1,4 +1,4 @@\n-a\n+A\n 1\n 2\n 3\n@@ -7,4 +7,4 @@\n 6\n 7\n 8\n-b\n+B\n"},
		{name: "close hunks merge", before: "a\n1\n2\n3\n4\n5\n6\nb\n", after: "A\n1\n2\n3\n4\n5\n6\nB\n",
			want: "--- a\n+++ b\n@@ -1,8 +1,8 @@\n-a\n+A\n 1\n 2\n 3\n 4\n 5\n 6\n-b\n+B\n"},
		{name: "insert into empty", before: "", after: "x\ny\n", want: "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{name: "delete all", before: "x\n", after: "", want: "--- a\n+++ b\n@@ -1,1 +0,0 @@\n-x\n"},
		{name: "missing final newline", before: "x\ny", after: "x\ny\n",
			want: "--- a\n+++ b\n@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+y\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := unifiedDiff("a", "b", tt.before, tt.after)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// applyDiff applies a unified diff made by unifiedDiff to before.
func applyDiff(before, diff string) (string, error) {
	if diff == "" {
		return before, nil
	}
	old := strings.SplitAfter(before, "\n")
	if old[len(old)-1] == "" {
		old = old[:len(old)-1]
	}
	lines := strings.SplitAfter(diff, "\n")
	var out []string
	next := 0 // next old line to copy
	for i := 2; i < len(lines) && lines[i] != ""; {
		var oldStart, oldCount, newStart, newCount int
		if _, err := fmt.Sscanf(lines[i], "@@ -%d,%d +%d,%d @@", &oldStart, &oldCount, &newStart, &newCount); err != nil {
			return "", fmt.Errorf("line %d %q: %v", i, lines[i], err)
		}
		start := oldStart - 1
		if oldCount == 0 {
			start = oldStart
		}
		out = append(out, old[next:start]...)
		next = start
		i++
		for i < len(lines) && lines[i] != "" && !strings.HasPrefix(lines[i], "@@") {
			l := lines[i]
			body := l[1:]
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\\ No newline") {
				body = strings.TrimSuffix(body, "\n")
				i++
			}
			switch l[0] {
			case ' ':
				out = append(out, body)
				next++
			case '-':
				next++
			case '+':
				out = append(out, body)
			default:
				return "", fmt.Errorf("line %d %q", i, l)
			}
			i++
		}
	}
	out = append(out, old[next:]...)
	return strings.Join(out, ""), nil
}

// FuzzUnifiedDiff checks that the diff of any two texts turns the first
// into the second.
func FuzzUnifiedDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n")
	f.Add("", "x")
	f.Add("x\ny", "x\ny\n")
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "0\n2\n3\n4\n5\n6\n7\n8\n9\nten\n")
	f.Fuzz(func(t *testing.T, before, after string) {
		d := unifiedDiff("a", "b", before, after)
		got, err := applyDiff(before, d)
		if err != nil {
			t.Fatalf("apply: %v\n%s", err, d)
		}
		if got != after {
			t.Fatalf("applying the diff gave %q, want %q\n%s", got, after, d)
		}
	})
}
