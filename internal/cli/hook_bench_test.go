package cli_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// dialProgram is the floor a hook command can reach: a Go program that
// forwards stdin to the sidecar's socket, unparsed, and prints the
// reply's body; built static (CGO_ENABLED=0).
const dialProgram = `package main

import (
	"bytes"
	"io"
	"net"
	"os"
	"strconv"
)

func main() {
	body, _ := io.ReadAll(os.Stdin)
	c, err := net.Dial("unix", os.Args[1])
	if err != nil {
		return
	}
	defer c.Close()
	io.WriteString(c, "POST /hook HTTP/1.1\r\nHost: s\r\nContent-Type: application/json\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\nConnection: close\r\n\r\n")
	c.Write(body)
	resp, _ := io.ReadAll(c)
	if i := bytes.Index(resp, []byte("\r\n\r\n")); i >= 0 {
		os.Stdout.Write(resp[i+4:])
	}
}
`

// buildDialProgram builds dialProgram and returns its path.
func buildDialProgram(b *testing.B) string {
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte(dialProgram), 0o644)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module dial\n\ngo 1.26\n"), 0o644)
	bin := filepath.Join(dir, "dial")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build the dial program: %v\n%s", err, out)
	}
	return bin
}

// BenchmarkHookCommands reports, side by side in one run, the median
// round trip of one PostToolUse event through each command hook an
// agent could run against the same live sidecar: `vigil hook
// claude-code`, the small `vigil-hook claude-code`, a trivial shell hook
// that only runs jq on the event (skipped without jq), and a minimal
// static Go program that forwards the event to the socket (the floor);
// and vigil-hook failing open (a SessionEnd for a session no sidecar
// serves: nothing started, a line logged). Each iteration runs every
// command once, in a rotating order, so that the load of the machine
// weighs on all alike. The ratios are of the medians.
//
//	go test -run '^$' -bench HookCommands -benchtime 200x ./internal/cli/
func BenchmarkHookCommands(b *testing.B) {
	s := newBenchSidecar(b)
	ev := s.step(b)
	fast := builtVigilHook(b)
	dial := buildDialProgram(b)
	socks, _ := filepath.Glob(filepath.Join(s.runDir(b), "*.sock"))
	if len(socks) != 1 {
		b.Fatalf("want the one sidecar's socket, found %v", socks)
	}
	type variant struct {
		name  string
		argv  []string
		stdin string
		want  string // what it prints; "" for nothing or a reply of the sidecar's
	}
	jq := `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":""}}`
	variants := []variant{
		{"vigil-hook-cmd", []string{s.vigil, "hook", "claude-code"}, ev, ""},
		{"fast-hook", []string{fast, "claude-code"}, ev, ""},
		{"fast-hook-fail-open", []string{fast, "claude-code"}, strings.Replace(s.event("SessionEnd", `"reason":"other"`), s.session, "no-such-session", 1), ""},
		{"dial-floor", []string{dial, socks[0]}, ev, ""},
	}
	if _, err := exec.LookPath("jq"); err == nil {
		variants = append(variants, variant{"shell-jq", []string{"sh", "-c", `jq -c '{hookSpecificOutput: {hookEventName: .hook_event_name, additionalContext: ""}}'`}, ev, jq})
	} else {
		b.Log("no jq on this machine: no shell-jq figure")
	}
	took := make([][]time.Duration, len(variants))
	b.ResetTimer()
	for i := range b.N {
		for k := range variants {
			j := (i + k) % len(variants)
			v := variants[j]
			cmd := exec.Command(v.argv[0], v.argv[1:]...)
			cmd.Dir, cmd.Env = s.work, s.env
			cmd.Stdin = strings.NewReader(v.stdin)
			var out bytes.Buffer
			cmd.Stdout = &out
			start := time.Now()
			err := cmd.Run()
			took[j] = append(took[j], time.Since(start))
			got := strings.TrimSpace(out.String())
			if err != nil || v.want != "" && got != v.want || v.want == "" && got != "" && !strings.HasPrefix(got, "{") {
				b.Fatalf("%s: %v, printed %q; want %q", v.name, err, out.String(), v.want)
			}
		}
	}
	b.StopTimer()
	median := map[string]time.Duration{}
	for j, v := range variants {
		d := took[j]
		slices.Sort(d)
		median[v.name] = d[len(d)/2]
		b.ReportMetric(float64(d[len(d)/2].Microseconds()), v.name+"-median-µs")
		b.ReportMetric(float64(d[len(d)*9/10].Microseconds()), v.name+"-p90-µs")
	}
	b.ReportMetric(float64(median["fast-hook"])/float64(median["vigil-hook-cmd"]), "fast/vigil-ratio")
	if jq, ok := median["shell-jq"]; ok {
		b.ReportMetric(float64(median["fast-hook"])/float64(jq), "fast/jq-ratio")
	}
}

// runDir is the sidecar's runtime folder.
func (s *benchSidecar) runDir(b testing.TB) string {
	for _, e := range s.env {
		if d, ok := strings.CutPrefix(e, "VIGIL_RUNTIME_DIR="); ok {
			return d
		}
	}
	b.Fatal("no runtime folder")
	return ""
}
