package rules

import (
	"strings"
	"testing"
)

func TestPolling(t *testing.T) {
	read := func(cmd, out string) st { return do(sh(cmd, out, false)) }
	runCases(t, "polling-finished", []detectorCase{
		{"the same read three times", []st{read("git status", "clean"), read("git status", "clean"), read("git status", "clean")}, []int{3}},
		{"output that changes is news", []st{read("git status", "M a.go"), read("git status", "M a.go b.go"), read("git status", "clean")}, nil},
		{"twice is fine", []st{read("cat a.txt", "x"), read("cat a.txt", "x")}, nil},
		{"reading again much later is not polling", []st{
			read("cat a.txt", "x"), read("ls", "1"), read("ls b", "2"), read("ls c", "3"), read("ls d", "4"), read("ls e", "5"),
			read("cat a.txt", "x"), read("ls f", "6"), read("ls g", "7"), read("ls h", "8"), read("ls i", "9"), read("ls j", "10"),
			read("cat a.txt", "x"),
		}, nil},
		{"polling after sleep", []st{
			read("sleep 30 && gh run view 42", "status: completed\nconclusion: success"),
			read("sleep 30; gh run view 42", "status: completed\nconclusion: success"),
			read("sleep 60 && gh run view 42", "status: completed\nconclusion: success"),
		}, []int{3}},
		{"a CI run checked again and again", []st{
			read("gh run view 4242", "✓ build in 2m\n✓ test in 5m\nconclusion: success"),
			read("gh run view 4242", "✓ build in 2m\n✓ test in 5m\nconclusion: success"),
			read("gh run view 4242", "✓ build in 2m\n✓ test in 5m\nconclusion: success"),
		}, []int{3}},
		{"read tools", []st{
			do(tool("read", map[string]any{"path": "a.go"}, "package a", false)),
			do(tool("read", map[string]any{"path": "a.go"}, "package a", false)),
			do(tool("Read", map[string]any{"file_path": "a.go"}, "package a", false)),
		}, nil}, // read and Read are different tools: their calls differ
		{"outputs that differ only in volatile details are the same", []st{
			read("docker ps", "abc123def456  up 3 minutes  pid 4121"),
			read("docker ps", "abc123def456  up 4 minutes  pid 4122"),
			read("docker ps", "abc123def456  up 5 minutes\tpid 4123 "),
		}, []int{3}},
		{"long outputs compared by head and tail", []st{
			read("cat big.log", "started 10:00:01\n"+strings.Repeat("line\n", 500)+"done in 3.2s"),
			read("cat big.log", "started 10:00:09\n"+strings.Repeat("line\n", 500)+"done in 4.7s"),
			read("cat big.log", "started 10:00:17\n"+strings.Repeat("line\n", 500)+"done in 2.9s"),
		}, []int{3}},
		{"a long output whose tail changes is news", []st{
			read("cat big.log", "started\n"+strings.Repeat("line\n", 500)+"running"),
			read("cat big.log", "started\n"+strings.Repeat("line\n", 500)+"running"),
			read("cat big.log", "started\n"+strings.Repeat("line\n", 500)+"finished"),
			read("cat big.log", "started\n"+strings.Repeat("line\n", 500)+"finished"),
		}, nil},
		{"a changed output starts over, and the new one is compared normalised", []st{
			read("git status", "M a.go"),
			read("git status", "clean at 12:00"),
			read("git status", "clean at 12:01"),
			read("git status", "clean at 12:02"),
		}, []int{4}},
		{"a failing read is not polling", []st{do(sh("cat nope", "No such file", true)), do(sh("cat nope", "No such file", true)), do(sh("cat nope", "No such file", true))}, nil},
	})
}
