package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/internal/fakellm"
)

// benchSidecar is a live `vigil sidecar` (started the way an agent's
// first hook starts it) over a Claude Code transcript the benchmark
// writes, reviewing with vigil's detectors (no model).
type benchSidecar struct {
	vigil, work, transcript, session string
	env                              []string
	steps                            int
	parent                           string
}

func newBenchSidecar(b testing.TB) *benchSidecar {
	return newBenchSidecarWith(b, "advisor:\n  reviewer: rules\n", "")
}

// newBenchSidecarWith starts the sidecar with config.yml and models.yml
// ("" for none) in its agent folder.
func newBenchSidecarWith(b testing.TB, config, models string) *benchSidecar {
	b.Helper()
	tb := b
	root := b.TempDir()
	run, err := os.MkdirTemp("", "vbench")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(run) })
	s := &benchSidecar{vigil: builtVigil(tb), work: filepath.Join(root, "work"), session: "0b6c1c1e-bench"}
	agentDir := filepath.Join(root, "home", ".vigil", "agent")
	for _, d := range []string{s.work, agentDir} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(agentDir, "config.yml"), []byte(config), 0o600)
	if models != "" {
		os.WriteFile(filepath.Join(agentDir, "models.yml"), []byte(models), 0o600)
	}
	s.transcript = filepath.Join(root, s.session+".jsonl")
	s.env = []string{"HOME=" + filepath.Join(root, "home"), "PATH=" + os.Getenv("PATH"), "VIGIL_AGENT_DIR=" + agentDir, "VIGIL_RUNTIME_DIR=" + filepath.Join(run, "r")}
	s.appendLines(b, s.line("user", "u0", map[string]any{"role": "user", "content": "Fix the build."}))
	if out := s.hook(b, s.event("SessionStart", `"source":"startup"`)); out != "" {
		b.Fatalf("SessionStart answered %q", out)
	}
	b.Cleanup(func() { s.hook(b, s.event("SessionEnd", `"reason":"other"`)) })
	return s
}

func (s *benchSidecar) event(name, extra string) string {
	e := fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":%q,"hook_event_name":%q`, s.session, s.transcript, s.work, name)
	if extra != "" {
		e += "," + extra
	}
	return e + "}"
}

// hook runs `vigil hook claude-code` with event on stdin, as the agent
// does, and returns what it printed.
func (s *benchSidecar) hook(b testing.TB, event string) string {
	cmd := exec.Command(s.vigil, "hook", "claude-code")
	cmd.Dir = s.work
	cmd.Env = s.env
	cmd.Stdin = strings.NewReader(event)
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("vigil hook: %v", err)
	}
	return string(out)
}

func (s *benchSidecar) line(typ, uuid string, msg map[string]any) []byte {
	l := map[string]any{"type": typ, "uuid": uuid, "sessionId": s.session, "cwd": s.work, "timestamp": "2026-11-30T10:00:00.000Z", "message": msg}
	if s.parent != "" {
		l["parentUuid"] = s.parent
	}
	s.parent = uuid
	out, _ := json.Marshal(l)
	return append(out, '\n')
}

func (s *benchSidecar) appendLines(b testing.TB, lines ...[]byte) {
	f, err := os.OpenFile(s.transcript, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		f.Write(l)
	}
}

// step appends one tool step (a reply running a command, and its
// result of about 2 KB) and returns the PostToolUse event for it.
func (s *benchSidecar) step(b testing.TB) string {
	s.steps++
	n := strconv.Itoa(s.steps)
	call := "toolu_" + n
	reply := s.line("assistant", "a"+n, map[string]any{"id": "msg_" + n, "role": "assistant", "model": "claude-fake-1", "type": "message",
		"content":     []any{map[string]any{"type": "text", "text": "Running check " + n + "."}, map[string]any{"type": "tool_use", "id": call, "name": "Bash", "input": map[string]any{"command": "make check-" + n}}},
		"stop_reason": "tool_use"})
	result := s.line("user", "r"+n, map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": call, "content": strings.Repeat("ok line "+n+"\n", 150)}}})
	s.appendLines(b, reply, result)
	return s.event("PostToolUse", fmt.Sprintf(`"tool_name":"Bash","tool_use_id":%q,"tool_input":{"command":"make check-%s"},"tool_response":{"stdout":"ok"}`, call, n))
}

// pid is the live sidecar's process id, from its registry file.
func (s *benchSidecar) pid(b testing.TB) int {
	for _, e := range s.env {
		if dir, ok := strings.CutPrefix(e, "VIGIL_RUNTIME_DIR="); ok {
			m, _ := filepath.Glob(filepath.Join(dir, "*.json"))
			if len(m) != 1 {
				b.Fatalf("want one live sidecar, found %v", m)
			}
			data, _ := os.ReadFile(m[0])
			var in struct{ PID int }
			json.Unmarshal(data, &in)
			return in.PID
		}
	}
	b.Fatal("no runtime folder")
	return 0
}

// memMB reads a process's resident memory in MB from /proc: all of it
// (VmRSS), and its private part (RssAnon). The rest is the vigil
// binary's pages, shared by every sidecar and with the page cache.
func memMB(b *testing.B, pid int) (rss, anon float64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	kb := func(key string) float64 {
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, key+":"); ok {
				n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
				return float64(n) / 1024
			}
		}
		b.Fatalf("no %s in /proc/%d/status", key, pid)
		return 0
	}
	return kb("VmRSS"), kb("RssAnon")
}

// BenchmarkSidecarMemory reports the sidecar's resident memory while it
// watches one session: idle, after 1,000 steps and after 5,000 (each
// step a 2 KB tool result, a PostToolUse hook every 10 steps), with
// the detectors as reviewer and with a model advisor (on fakellm, which
// answers every review with "Nothing to add.").
//
//	go test -run '^$' -bench SidecarMemory -benchtime 1x ./internal/cli/
func BenchmarkSidecarMemory(b *testing.B) {
	b.Run("rules", func(b *testing.B) {
		for range b.N {
			sidecarMemory(b, newBenchSidecar(b))
		}
	})
	b.Run("model", func(b *testing.B) {
		srv := fakellm.StartTest(b, fakellm.MustParse(b, "rules:\n  - repeat: true\n    steps: [{text: \"Nothing to add.\"}]\n"))
		models := fmt.Sprintf("providers:\n  fake:\n    baseUrl: %s\n    api: anthropic-messages\n    auth: none\n    models:\n      - {id: adv, contextWindow: 200000, maxTokens: 4096}\n", srv.URL())
		for range b.N {
			sidecarMemory(b, newBenchSidecarWith(b, "modelRoles:\n  advisor: fake/adv\n", models))
		}
	})
}

func sidecarMemory(b *testing.B, s *benchSidecar) {
	pid := s.pid(b)
	report := func(at string) {
		rss, anon := memMB(b, pid)
		b.ReportMetric(rss, at+"-rss-MB")
		b.ReportMetric(anon, at+"-private-MB")
	}
	report("idle")
	for s.steps < 5000 {
		ev := s.step(b)
		if s.steps%10 == 0 {
			s.hook(b, ev)
		}
		if s.steps == 1000 {
			report("1000steps")
		}
	}
	s.hook(b, s.event("Stop", `"stop_hook_active":false,"last_assistant_message":"Running check 5000."`))
	report("5000steps")
}

// BenchmarkHookRoundTrip reports the median round trip of one
// PostToolUse hook as the agent sees it: `vigil hook` as a command (a
// process per event, talking to the live sidecar), the same event as an
// HTTP hook served by `vigil hookd` (no process per event), and a
// trivial shell hook that only runs jq on the event.
//
//	go test -run '^$' -bench HookRoundTrip -benchtime 200x ./internal/cli/
func BenchmarkHookRoundTrip(b *testing.B) {
	s := newBenchSidecar(b)
	ev := s.step(b)
	report := func(b *testing.B, d []time.Duration) {
		slices.Sort(d)
		b.ReportMetric(float64(d[len(d)/2].Microseconds()), "median-µs")
		b.ReportMetric(float64(d[len(d)*9/10].Microseconds()), "p90-µs")
	}
	b.Run("vigil-hook-command", func(b *testing.B) {
		d := make([]time.Duration, 0, b.N)
		for range b.N {
			start := time.Now()
			s.hook(b, ev)
			d = append(d, time.Since(start))
		}
		report(b, d)
	})
	b.Run("vigil-http-hook", func(b *testing.B) {
		url := s.hookdURL(b)
		client := &http.Client{}
		d := make([]time.Duration, 0, b.N)
		for range b.N {
			start := time.Now()
			resp, err := client.Post(url, "application/json", strings.NewReader(ev))
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			d = append(d, time.Since(start))
		}
		report(b, d)
	})
	b.Run("shell-jq-hook", func(b *testing.B) {
		if _, err := exec.LookPath("jq"); err != nil {
			b.Skip("no jq on this machine")
		}
		d := make([]time.Duration, 0, b.N)
		for range b.N {
			start := time.Now()
			cmd := exec.Command("sh", "-c", `jq -c '{hookSpecificOutput: {hookEventName: .hook_event_name, additionalContext: ""}}'`)
			cmd.Stdin = strings.NewReader(ev)
			var out bytes.Buffer
			cmd.Stdout = &out
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
			d = append(d, time.Since(start))
		}
		report(b, d)
	})
}

// hookdURL sets up and starts `vigil hookd` for the sidecar's user and
// returns the HTTP hook URL (vigil attach --http writes the same).
func (s *benchSidecar) hookdURL(b testing.TB) string {
	var agentDir string
	for _, e := range s.env {
		if d, ok := strings.CutPrefix(e, "VIGIL_AGENT_DIR="); ok {
			agentDir = d
		}
	}
	cfg := map[string]string{"addr": freeAddr(b), "secret": strings.Repeat("5e", 24)}
	data, _ := json.Marshal(cfg)
	os.WriteFile(filepath.Join(agentDir, "hookd.json"), data, 0o600)
	// A UserPromptSubmit command hook starts hookd, as in a real session.
	s.hook(b, s.event("UserPromptSubmit", `"prompt":"go on"`))
	b.Cleanup(func() {
		for _, e := range s.env {
			if d, ok := strings.CutPrefix(e, "VIGIL_RUNTIME_DIR="); ok {
				if data, err := os.ReadFile(filepath.Join(d, "hookd.pid")); err == nil {
					if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
						if p, err := os.FindProcess(pid); err == nil {
							p.Signal(os.Interrupt)
						}
					}
				}
			}
		}
	})
	return "http://" + cfg["addr"] + "/hook/" + cfg["secret"] + "/claude-code"
}
