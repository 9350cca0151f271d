package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The bounds every hostile hook event is held to (issue 13): the hook
// answers within hookTimeBound and neither it nor the sidecar it starts
// grows past hookMemBound. hookTimeBound is the agent's own limit, the
// shortest hook timeout attach writes (10 s, SessionStart's): past it the
// agent kills the hook, so it is the contract; how fast a hook answers
// is a benchmark's figure (hook_bench_test.go). A 2 s bound here failed
// by chance under -race on a loaded 2-core machine (a first hook that
// starts the sidecar took 2.7 s).
const (
	hookTimeBound = 10 * time.Second
	hookMemBound  = 256 << 20
)

// hookEnv is a folder of one's own for hostile hook events: a user with
// vigil's detectors as the advisor (no model), a work folder, and a
// runtime folder, so that hook.log and the sidecars are the test's.
type hookEnv struct {
	vigil, root, work, agentDir, runDir string
	env                                 []string
	// command runs the hook for Claude Code: `vigil hook claude-code`
	// unless a test sets another.
	command []string
}

// hookCommand is a hook command vigil attach may install.
type hookCommand struct {
	name string
	argv func(t testing.TB) []string
}

// hookCommands are the two: vigil's own, and the small hook binary
// beside it.
var hookCommands = []hookCommand{
	{"vigil hook", func(t testing.TB) []string { return []string{builtVigil(t), "hook", "claude-code"} }},
	{"vigil-hook", func(t testing.TB) []string { return []string{builtVigilHook(t), "claude-code"} }},
}

func newHookEnv(t *testing.T) *hookEnv {
	t.Helper()
	h := &hookEnv{vigil: builtVigil(t), root: t.TempDir()}
	h.command = []string{h.vigil, "hook", "claude-code"}
	h.work = filepath.Join(h.root, "work")
	h.agentDir = filepath.Join(h.root, "home", ".vigil", "agent")
	write(t, filepath.Join(h.agentDir, "config.yml"), "advisor:\n  reviewer: rules\n")
	if err := os.MkdirAll(filepath.Join(h.work, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	run, err := os.MkdirTemp("", "vhh") // socket paths are short
	if err != nil {
		t.Fatal(err)
	}
	h.runDir = filepath.Join(run, "r")
	h.env = []string{"HOME=" + filepath.Join(h.root, "home"), "PATH=" + os.Getenv("PATH"), "VIGIL_AGENT_DIR=" + h.agentDir, "VIGIL_RUNTIME_DIR=" + h.runDir}
	t.Cleanup(func() {
		for _, sc := range h.sidecars(t) {
			syscall.Kill(sc.PID, syscall.SIGTERM)
		}
		os.RemoveAll(run)
	})
	return h
}

// event is a hook event of session s1 in the work folder; extra fields
// override.
func (h *hookEnv) event(name string, extra map[string]any) []byte {
	m := map[string]any{"session_id": "s1", "hook_event_name": name, "cwd": h.work, "transcript_path": filepath.Join(h.root, "s1.jsonl")}
	for k, v := range extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return b
}

// hookRun is what one `vigil hook claude-code` did. maxRSS bounds the
// hook's peak memory from above: Linux counts the parent's resident
// memory at exec in the child's peak, so it is at least the test's own.
type hookRun struct {
	code   int
	stdout string
	took   time.Duration
	maxRSS int64
}

// hook runs the hook with stdin, as the agent does. A hook still running
// after a minute is killed and fails the test: a hang detector, far above
// the bound the test asserts.
func (h *hookEnv) hook(t *testing.T, stdin io.Reader) hookRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.command[0], h.command[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdin = h.work, h.env, stdin
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	r := hookRun{stdout: out.String(), took: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("%s still running after a minute", h.command)
	}
	if err != nil {
		r.code = cmd.ProcessState.ExitCode()
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = int64(ru.Maxrss) << 10
	}
	if errOut.Len() > 0 {
		t.Errorf("%s wrote to stderr: %q", h.command, errOut.String())
	}
	return r
}

// hookLog returns the lines of hook.log.
func (h *hookEnv) hookLog() []string {
	b, _ := os.ReadFile(filepath.Join(h.runDir, "hook.log"))
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")[:bytes.Count(b, []byte("\n"))]
}

// sidecarInfo is what the test reads of a live sidecar's record.
type sidecarInfo struct {
	PID      int    `json:"pid"`
	Reviewer string `json:"reviewer"`
}

func (h *hookEnv) sidecars(t *testing.T) []sidecarInfo {
	matches, _ := filepath.Glob(filepath.Join(h.runDir, "*.json"))
	var out []sidecarInfo
	for _, m := range matches {
		var info sidecarInfo
		if b, err := os.ReadFile(m); err == nil && json.Unmarshal(b, &info) == nil && info.PID > 0 {
			out = append(out, info)
		}
	}
	return out
}

// peakRSS is the most memory process pid has held (VmHWM), 0 if unknown.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// sidecarLog is what the session's sidecars logged.
func (h *hookEnv) sidecarLog() string {
	var b strings.Builder
	matches, _ := filepath.Glob(filepath.Join(h.runDir, "*.log"))
	for _, m := range matches {
		if filepath.Base(m) != "hook.log" {
			data, _ := os.ReadFile(m)
			b.Write(data)
		}
	}
	return b.String()
}

// repeated is a reader of n copies of b, made as it is read.
type repeated struct {
	b byte
	n int64
}

func (r *repeated) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.n)]
	for i := range p {
		p[i] = r.b
	}
	r.n -= int64(len(p))
	return len(p), nil
}

// TestHostileHookEvents is the hostile-input suite over hook events
// (issue 13): each event is sent twice, as an agent would across two
// hooks, and each time the hook exits 0, prints nothing (fails open),
// within hookTimeBound, the hook and any sidecar under hookMemBound;
// hook.log says why in the lines the case expects: one per hook when
// the hook refused the event itself, one for the session when its
// sidecar cannot read the transcript (it is told once), none when
// nothing failed.
//
// Both hook commands vigil attach may install are held to it: `vigil
// hook` and the small vigil-hook binary.
func TestHostileHookEvents(t *testing.T) {
	fixed := func(b []byte) func() io.Reader { return func() io.Reader { return bytes.NewReader(b) } }
	transcriptAt := func(path string) func(t *testing.T, h *hookEnv) func() io.Reader {
		return func(t *testing.T, h *hookEnv) func() io.Reader {
			return fixed(h.event("SessionStart", map[string]any{"source": "startup", "transcript_path": path}))
		}
	}
	cases := []hostile{{
		name: "event larger than 16 MiB, streamed",
		setup: func(t *testing.T, h *hookEnv) func() io.Reader {
			head := bytes.TrimSuffix(h.event("PostToolUse", map[string]any{"tool_use_id": "c1"}), []byte("}"))
			return func() io.Reader {
				return io.MultiReader(bytes.NewReader(head), strings.NewReader(`,"tool_response":"`), &repeated{'a', 17 << 20}, strings.NewReader(`"}`))
			}
		},
		logged: "event larger than 16777216 bytes: ignored", lines: 2,
	}, {
		name: "deeply nested",
		setup: func(t *testing.T, h *hookEnv) func() io.Reader {
			head := bytes.TrimSuffix(h.event("PostToolUse", nil), []byte("}"))
			return func() io.Reader {
				return io.MultiReader(bytes.NewReader(head), strings.NewReader(`,"tool_input":`), &repeated{'[', 4 << 20}, &repeated{']', 4 << 20}, strings.NewReader("}"))
			}
		},
		logged: "exceeded max depth", lines: 2,
	}, {
		name: "invalid UTF-8",
		setup: func(t *testing.T, h *hookEnv) func() io.Reader {
			return fixed(bytes.Replace(h.event("PostToolUse", nil), []byte(`"s1"`), []byte("\"s\xff\xfe1\""), 1))
		},
		logged: "not valid UTF-8", lines: 2,
	}, {
		name: "control characters",
		setup: func(t *testing.T, h *hookEnv) func() io.Reader {
			return fixed(h.event("PostToolUse", map[string]any{"session_id": "s1\n2026-01-01 forged line \x1b]0;pwned\x07"}))
		},
		logged: `session_id "s1\n2026-01-01 forged line \x1b]0;pwned\a" holds control characters`, lines: 2,
	}, {
		name:   "transcript is /dev/zero",
		setup:  transcriptAt("/dev/zero"),
		logged: "follow /dev/zero: not a regular file (a character device)", lines: 1, sidecar: true,
	}, {
		name: "transcript is a named pipe",
		setup: func(t *testing.T, h *hookEnv) func() io.Reader {
			p := filepath.Join(h.root, "s1.jsonl")
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
			return transcriptAt(p)(t, h)
		},
		logged: "not a regular file (a named pipe)", lines: 1, sidecar: true,
	}, {
		name: "transcript is a loop of symbolic links",
		setup: func(t *testing.T, h *hookEnv) func() io.Reader {
			p := filepath.Join(h.root, "s1.jsonl")
			os.Symlink(p+".b", p)
			os.Symlink(p, p+".b")
			return transcriptAt(p)(t, h)
		},
		logged: "not a regular file (a loop of symbolic links)", lines: 1, sidecar: true,
	}, {
		name: "transcript line of 100 MiB that never ends",
		setup: func(t *testing.T, h *hookEnv) func() io.Reader {
			p := filepath.Join(h.root, "s1.jsonl")
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(`{"type":"user","uuid":"u1","sessionId":"s1","message":{"role":"user","content":"go"}}` + "\n")
			f.Truncate(100 << 20) // zeros, and no disk
			f.Close()
			return transcriptAt(p)(t, h)
		},
		sidecar: true,
	}, {
		name: "transcript line of 32 MiB",
		setup: func(t *testing.T, h *hookEnv) func() io.Reader {
			p := filepath.Join(h.root, "s1.jsonl")
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			// Streamed to the file: the test's own memory counts in the
			// hook's figure (a child's peak includes its parent's at exec).
			io.Copy(f, io.MultiReader(strings.NewReader(`{"type":"user","uuid":"u1","sessionId":"s1","message":{"role":"user","content":"go"}}`+"\n"+
				`{"type":"assistant","uuid":"a1","sessionId":"s1","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"c1","name":"Bash","input":{"command":"cat big"}}],"stop_reason":"tool_use"}}`+"\n"+
				`{"type":"user","uuid":"r1","sessionId":"s1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"`),
				&repeated{'x', 32 << 20}, strings.NewReader(`"}]}}`+"\n")))
			f.Close()
			return transcriptAt(p)(t, h)
		},
		sidecar: true,
	}, {
		name: "transcript outside any project, not a transcript",
		setup: func(t *testing.T, h *hookEnv) func() io.Reader {
			other, err := os.MkdirTemp("", "vhh-elsewhere")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(other) })
			p := filepath.Join(other, "passwd")
			write(t, p, "root:x:0:0:root:/root:/bin/bash\n{\"type\":\"user\"\n\x00\x01\x02\n")
			return transcriptAt(p)(t, h)
		},
		sidecar: true,
	}, {
		name: "working folder outside any project",
		setup: func(t *testing.T, h *hookEnv) func() io.Reader {
			return fixed(h.event("SessionStart", map[string]any{"source": "startup", "cwd": "/"}))
		},
		sidecar: true,
	}, {
		name: "working folder that does not exist",
		setup: func(t *testing.T, h *hookEnv) func() io.Reader {
			return fixed(h.event("SessionStart", map[string]any{"source": "startup", "cwd": filepath.Join(h.root, "gone")}))
		},
		logged: "start the sidecar", lines: 2,
	}, {
		name: "unreadable transcript",
		setup: func(t *testing.T, h *hookEnv) func() io.Reader {
			if os.Geteuid() == 0 {
				t.Skip("root reads a file of mode 000")
			}
			p := filepath.Join(h.root, "s1.jsonl")
			write(t, p, "{}\n")
			os.Chmod(p, 0)
			return transcriptAt(p)(t, h)
		},
		logged: "permission denied", lines: 1, sidecar: true,
	}}
	for _, hc := range hookCommands {
		t.Run(hc.name, func(t *testing.T) { hostileHookEvents(t, hc, cases) })
	}
}

// hostile is one case of TestHostileHookEvents.
type hostile struct {
	name string
	// setup prepares the files and returns the event's stdin.
	setup func(t *testing.T, h *hookEnv) func() io.Reader
	// logged is what hook.log's lines say; lines how many there are
	// after both hooks.
	logged string
	lines  int
	// sidecar says a sidecar serves the session afterwards.
	sidecar bool
}

func hostileHookEvents(t *testing.T, hc hookCommand, cases []hostile) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHookEnv(t)
			h.command = hc.argv(t)
			stdin := c.setup(t, h)
			for i := range 2 {
				r := h.hook(t, stdin())
				t.Logf("hook %d: %v, %.1f MB", i+1, r.took.Round(time.Millisecond), float64(r.maxRSS)/(1<<20))
				if r.code != 0 || r.stdout != "" {
					t.Errorf("hook %d: exit %d, printed %q; want 0 and nothing", i+1, r.code, r.stdout)
				}
				if r.took > hookTimeBound {
					t.Errorf("hook %d took %v, more than %v", i+1, r.took, hookTimeBound)
				}
				if r.maxRSS > hookMemBound {
					t.Errorf("hook %d held %d MB", i+1, r.maxRSS>>20)
				}
			}
			lines := h.hookLog()
			if len(lines) != c.lines {
				t.Errorf("hook.log has %d lines, want %d:\n%s", len(lines), c.lines, strings.Join(lines, "\n"))
			}
			for _, l := range lines {
				if !strings.Contains(l, c.logged) || strings.ContainsAny(l, "\x1b\x07\x00") {
					t.Errorf("hook.log line %q; want it to say %q, escaped", l, c.logged)
				}
			}
			scs := h.sidecars(t)
			if c.sidecar != (len(scs) == 1) {
				t.Errorf("%d sidecars serve the session; want one: %v\n%s", len(scs), c.sidecar, h.sidecarLog())
			}
			for _, sc := range scs {
				peak := peakRSS(sc.PID)
				t.Logf("sidecar: peak %.1f MB", float64(peak)/(1<<20))
				if peak > hookMemBound {
					t.Errorf("the sidecar held %d MB", peak>>20)
				}
			}
			if c.sidecar {
				if l := h.sidecarLog(); c.logged != "" && strings.Count(l, c.logged) != 1 {
					t.Errorf("the sidecar logged %q %d times; want once:\n%s", c.logged, strings.Count(l, c.logged), l)
				}
			}
		})
	}
}

// TestHookWithASettingsBomb: a project whose .vigil/config.yml is a
// configuration bomb (any repository the user clones can hold one). The
// hooks still fail open within the bound, and the first starts the one
// sidecar of the session, which cannot advise but serves, so the later
// hooks find it instead of starting one each (each read the bomb, and
// each grew to gigabytes before the settings had limits).
func TestHookWithASettingsBomb(t *testing.T) {
	bombs := map[string]func(io.Writer){
		"deep flow nesting": func(w io.Writer) {
			io.WriteString(w, "advisor: ")
			io.Copy(w, &repeated{'[', 100000})
			io.WriteString(w, "\n")
		},
		"billion laughs": func(w io.Writer) {
			io.WriteString(w, "x0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
			for i := 1; i <= 8; i++ {
				fmt.Fprintf(w, "x%d: &x%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*x%d, ", i-1), 10), ", "))
			}
			io.WriteString(w, "advisor: {enabled: *x8}\n")
		},
	}
	for _, hc := range hookCommands {
		t.Run(hc.name, func(t *testing.T) { hookWithASettingsBomb(t, hc, bombs) })
	}
}

func hookWithASettingsBomb(t *testing.T, hc hookCommand, bombs map[string]func(io.Writer)) {
	for name, bomb := range bombs {
		t.Run(name, func(t *testing.T) {
			h := newHookEnv(t)
			h.command = hc.argv(t)
			var b bytes.Buffer
			bomb(&b)
			write(t, filepath.Join(h.work, ".vigil", "config.yml"), b.String())
			write(t, filepath.Join(h.root, "s1.jsonl"), `{"type":"user","uuid":"u1","sessionId":"s1","message":{"role":"user","content":"go"}}`+"\n")
			events := [][]byte{h.event("SessionStart", map[string]any{"source": "startup"})}
			for i := range 4 {
				events = append(events, h.event("PostToolUse", map[string]any{"tool_use_id": fmt.Sprintf("c%d", i)}))
			}
			events = append(events, h.event("Stop", map[string]any{"last_assistant_message": "done"}))
			pid := 0
			for i, ev := range events {
				r := h.hook(t, bytes.NewReader(ev))
				t.Logf("hook %d: %v", i+1, r.took.Round(time.Millisecond))
				if r.code != 0 || r.stdout != "" || r.took > hookTimeBound {
					t.Errorf("hook %d: exit %d, printed %q, took %v", i+1, r.code, r.stdout, r.took)
				}
				scs := h.sidecars(t)
				if len(scs) != 1 {
					t.Fatalf("after hook %d: %d sidecars; want the one that cannot advise\n%s", i+1, len(scs), h.sidecarLog())
				}
				if pid != 0 && scs[0].PID != pid {
					t.Errorf("hook %d started another sidecar (%d, was %d)", i+1, scs[0].PID, pid)
				}
				pid = scs[0].PID
				if !strings.HasPrefix(scs[0].Reviewer, "none: cannot advise: ") {
					t.Errorf("reviewer %q", scs[0].Reviewer)
				}
			}
			peak := peakRSS(pid)
			t.Logf("sidecar: peak %.1f MB", float64(peak)/(1<<20))
			if peak > hookMemBound {
				t.Errorf("the sidecar held %d MB", peak>>20)
			}
			config := filepath.Join(h.work, ".vigil", "config.yml")
			if lines := h.hookLog(); len(lines) != 1 || !strings.Contains(lines[0], "cannot advise") || !strings.Contains(lines[0], config) {
				t.Errorf("hook.log:\n%s\nwant one line naming %s", strings.Join(lines, "\n"), config)
			}
			if l := h.sidecarLog(); strings.Count(l, "cannot advise") != 1 {
				t.Errorf("sidecar log:\n%s", l)
			}
		})
	}
}
