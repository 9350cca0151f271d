package hostiletest

import (
	"fmt"
	"strings"
)

// Cases returns the hostile files. The bombs are under a valid key
// (advisor, providers) so that nothing but a limit stops them.
func Cases() []Case {
	return []Case{
		{"flow nesting 100000 deep", Text("advisor: " + strings.Repeat("[", 100_000) + "\n"), "YAML tokens"},
		{"flow nesting just too deep", Text("advisor: " + strings.Repeat("[", 65) + strings.Repeat("]", 65) + "\n"), "nests more than 64"},
		{"block nesting just too deep", Text(blockNesting(65)), "nests more than 64"},
		{"compact lists 100 deep", Text("advisor:\n  " + strings.Repeat("- ", 100) + "x\n"), "nests more than 64"},
		{"billion laughs", Text(laughs("[", "]", "advisor: {enabled: *x8}\n")), "billion laughs"},
		{"billion laughs by merge keys", Text(mergeLaughs()), "billion laughs"},
		{"one long string aliased", Text("x: &s " + strings.Repeat("y", 900<<10) + "\nadvisor: {reviewer: [" + strings.Repeat("*s, ", 20) + "]}\n"), "billion laughs"},
		{"ten thousand keys in one mapping", Text(manyKeys(10_000)), "keys in one mapping"},
		{"a million values", Text("advisor: [" + strings.Repeat("x,", 500_000) + "]\n"), "YAML tokens"},
		{"a 2 MiB line", Text("advisor: " + strings.Repeat("y", 2<<20) + "\n"), "larger than 1 MiB"},
		{"a 900 KiB line", Text("advisor: " + strings.Repeat("y", 900<<10) + "\n"), ""},
		{"a sparse 10 GiB file", Sparse(10 << 30), "larger than 1 MiB"},
		{"invalid UTF-8", Text("advisor:\n  reviewer: \xff\xfe model\n"), "not UTF-8"},
		{"UTF-16", Text("\xff\xfea\x00:\x00 \x00b\x00\n\x00"), "not UTF-8"},
		{"a terminal escape", Text("advisor:\n  reviewer: \x1b]0;owned\x07\n"), "control character"},
		{"a NUL byte", Text("advisor:\x00 {}\n"), "control character"},
		{"a named pipe", FIFO, "not a regular file (a named pipe)"},
		{"a link to /dev/zero", Link("/dev/zero"), "not a regular file (a character device)"},
		{"a folder", Folder, "not a regular file (a folder)"},
		{"a loop of symbolic links", Loop, "loop of symbolic links"},
		{"no permission to read", Unreadable, "permission denied"},
	}
}

// laughs is nine levels of ten aliases each, the billion laughs, opened
// and closed by open and end, followed by use.
func laughs(open, end, use string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "a0: &x0 %s%s%s\n", open, strings.Repeat("lol, ", 9)+"lol", end)
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, "a%d: &x%d %s%s%s\n", i, i, open, repeatList(fmt.Sprintf("*x%d", i-1), 10), end)
	}
	b.WriteString(use)
	return b.String()
}

// mergeLaughs grows mappings by merge keys: each level merges ten of the
// level below and lists them ten times.
func mergeLaughs() string {
	var b strings.Builder
	b.WriteString("m0: &m0 {k: v}\n")
	for i := 1; i <= 8; i++ {
		prev := repeatList(fmt.Sprintf("*m%d", i-1), 10)
		fmt.Fprintf(&b, "m%d: &m%d {<<: [%s], l%d: [%s]}\n", i, i, prev, i, prev)
	}
	b.WriteString("advisor: {<<: *m8}\n")
	return b.String()
}

// repeatList is s n times, separated by commas.
func repeatList(s string, n int) string {
	return strings.TrimSuffix(strings.Repeat(s+", ", n), ", ")
}

func blockNesting(depth int) string {
	var b strings.Builder
	b.WriteString("advisor:\n")
	for i := 1; i <= depth; i++ {
		b.WriteString(strings.Repeat(" ", i) + "a:\n")
	}
	return b.String()
}

func manyKeys(n int) string {
	var b strings.Builder
	b.WriteString("providers:\n")
	for i := range n {
		fmt.Fprintf(&b, "  k%d: {}\n", i)
	}
	return b.String()
}
