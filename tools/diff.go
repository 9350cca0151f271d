package tools

import (
	"fmt"
	"strings"
)

// diffContext is how many unchanged lines surround each hunk.
const diffContext = 3

// maxDiffCells bounds the work of the line matching: above it the changed
// middle of the two texts is shown as removed and added whole.
const maxDiffCells = 4_000_000

type diffOp struct {
	kind byte // ' ', '-' or '+'
	line string
}

// unifiedDiff returns a unified diff from before to after, with the given
// file labels, or "" when the texts are equal. The diff is correct but not
// always minimal: when the changed region is huge it is shown replaced
// whole.
func unifiedDiff(beforeLabel, afterLabel, before, after string) string {
	if before == after {
		return ""
	}
	ops := diffLines(strings.SplitAfter(before, "\n"), strings.SplitAfter(after, "\n"))
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", beforeLabel, afterLabel)
	for start := 0; start < len(ops); {
		// Find the next change.
		first := start
		for first < len(ops) && ops[first].kind == ' ' {
			first++
		}
		if first == len(ops) {
			break
		}
		// Extend the hunk while the changes are close together.
		end := first
		for i := first; i < len(ops); i++ {
			if ops[i].kind != ' ' {
				end = i + 1
				continue
			}
			if i-end >= 2*diffContext {
				break
			}
		}
		lo := max(first-diffContext, start)
		hi := min(end+diffContext, len(ops))
		writeHunk(&sb, ops, lo, hi)
		start = hi
	}
	return sb.String()
}

func writeHunk(sb *strings.Builder, ops []diffOp, lo, hi int) {
	oldLine, newLine := 1, 1
	for _, op := range ops[:lo] {
		if op.kind != '+' {
			oldLine++
		}
		if op.kind != '-' {
			newLine++
		}
	}
	oldCount, newCount := 0, 0
	for _, op := range ops[lo:hi] {
		if op.kind != '+' {
			oldCount++
		}
		if op.kind != '-' {
			newCount++
		}
	}
	if oldCount == 0 {
		oldLine--
	}
	if newCount == 0 {
		newLine--
	}
	fmt.Fprintf(sb, "@@ -%d,%d +%d,%d @@\n", oldLine, oldCount, newLine, newCount)
	for _, op := range ops[lo:hi] {
		sb.WriteByte(op.kind)
		sb.WriteString(op.line)
		if !strings.HasSuffix(op.line, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// diffLines returns an edit script from a to b: their common prefix and
// suffix, and between them a longest common subsequence when it is cheap to
// find.
func diffLines(a, b []string) []diffOp {
	if len(a) > 0 && a[len(a)-1] == "" {
		a = a[:len(a)-1]
	}
	if len(b) > 0 && b[len(b)-1] == "" {
		b = b[:len(b)-1]
	}
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []diffOp
	for _, l := range a[:pre] {
		ops = append(ops, diffOp{' ', l})
	}
	ops = append(ops, diffMiddle(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, diffOp{' ', l})
	}
	return ops
}

func diffMiddle(a, b []string) []diffOp {
	var ops []diffOp
	if len(a)*len(b) > maxDiffCells {
		for _, l := range a {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range b {
			ops = append(ops, diffOp{'+', l})
		}
		return ops
	}
	// lcs[i][j] is the length of a longest common subsequence of a[i:] and
	// b[j:].
	w := len(b) + 1
	lcs := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i++
			j++
		case i < len(a) && (j == len(b) || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	return ops
}
