package rules

import (
	"path/filepath"
	"testing"
)

// shellLines returns the command lines of the real runs the shared corpus
// holds (mini-swe-agent and the committed sessions of Claude Code, Codex
// and pi), as the detectors read them.
func shellLines(b *testing.B) ([]string, int64) {
	var files []string
	for _, g := range []string{
		filepath.Join(devset, "*.traj.json"),
		"../../shared/corpus/sessions/*/*.jsonl",
	} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	if len(files) == 0 {
		b.Skip("shared corpus not available")
	}
	var lines []string
	var size int64
	for _, f := range files {
		steps, _ := readSteps(b, f)
		for i := range steps {
			for _, a := range Actions(&steps[i]) {
				if a.Kind == KindShell || a.Run || a.Kind == KindRead || a.Kind == KindSearch {
					if a.Command != "" {
						lines = append(lines, a.Command)
						size += int64(len(a.Command))
					}
				}
			}
		}
	}
	return lines, size
}

// BenchmarkShellGrammar reads every command line of the real runs with the
// two readers (issue 30: one grammar, or the hand reader first?): the hand
// reader with the bash parser for compound lines, as parseShell does
// without its memo; and the bash parser (mvdan.cc/sh) for every line, the
// hand reader only where it rejects one.
func BenchmarkShellGrammar(b *testing.B) {
	lines, size := shellLines(b)
	b.Run("hand+syntax", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				parseShell(l)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/line")
	})
	b.Run("syntax", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				if _, ok := parseSyntax(l); !ok {
					parseHand(l)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/line")
	})
}
