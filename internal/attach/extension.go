package attach

// pi and omp have no command hooks: vigil attaches to them with a small
// TypeScript extension, shipped inside vigil, in the agent's extensions
// folder. It forwards the agent's events, in Claude Code's shape, to the
// session's sidecar (over its unix socket; through the hook command when
// none answers yet, which starts one) and delivers the notes through the
// agent's API (docs/attach.md).

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The agents vigil attaches to with its extension.
const (
	Pi  Agent = "pi"
	Omp Agent = "omp"
)

// UsesExtension reports whether vigil attaches to a with its extension
// rather than hook entries in a settings file.
func UsesExtension(a Agent) bool { return a == Pi || a == Omp }

// ExtensionName is the file name of vigil's extension in an extensions
// folder.
const ExtensionName = "vigil.ts"

//go:embed extension/vigil.ts
var extensionTemplate []byte

// The markers around the extension's configuration: one JSON object on
// the line that holds them.
const (
	configStart = "/*vigil:config*/ "
	configEnd   = " /*vigil:end*/"
)

// extensionMarker starts vigil's extension: a file that does not start
// with it is not vigil's, and attach and detach leave it alone.
var extensionMarker = []byte("// vigil: this file is vigil's extension")

// ExtensionEvents are the events the extension forwards to the sidecar,
// in the names the sidecar answers (Claude Code's): a session's start
// (and a compaction's end, as a SessionStart "compact"), each prompt
// (before_agent_start), each tool result, the final answer of a run (a
// turn_end without tool calls, as Stop), a compaction's start and the
// session's end.
var ExtensionEvents = []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop", "PreCompact", "SessionEnd"}

// ExtensionConfig is what the extension's configuration line holds.
type ExtensionConfig struct {
	// Agent is the dialect it speaks to the sidecar: pi or omp.
	Agent string `json:"agent"`
	// Command is the hook command it runs when no sidecar answers, as
	// words: vigil-hook AGENT, or vigil hook AGENT.
	Command []string `json:"command"`
	// Created are the folders attach created for the file, deepest
	// first: detach removes those it leaves empty, and only those.
	Created []string `json:"created"`
}

// ExtensionCommand returns the words of the hook command for a: binary
// and the agent for the hook binary ([IsHookBinary]), else binary, hook
// and the agent.
func ExtensionCommand(binary string, a Agent) []string {
	if IsHookBinary(binary) {
		return []string{binary, string(a)}
	}
	return []string{binary, "hook", string(a)}
}

// ExtensionSource returns the extension's content with cfg on its
// configuration line.
func ExtensionSource(cfg ExtensionConfig) []byte {
	if cfg.Command == nil {
		cfg.Command = []string{}
	}
	if cfg.Created == nil {
		cfg.Created = []string{}
	}
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetEscapeHTML(false)
	enc.Encode(cfg) // a struct of strings: cannot fail
	i := bytes.Index(extensionTemplate, []byte(configStart))
	j := bytes.Index(extensionTemplate, []byte(configEnd))
	out := append([]byte(nil), extensionTemplate[:i+len(configStart)]...)
	out = append(out, bytes.TrimSpace(js.Bytes())...)
	return append(out, extensionTemplate[j:]...)
}

// ParseExtension reads an extension file's content: ok is false when it
// is not vigil's extension; err when it is but its configuration line
// cannot be read.
func ParseExtension(data []byte) (cfg ExtensionConfig, ok bool, err error) {
	if !bytes.HasPrefix(data, extensionMarker) {
		return cfg, false, nil
	}
	i := bytes.Index(data, []byte(configStart))
	if i < 0 {
		return cfg, true, errors.New("vigil's extension has no configuration line")
	}
	rest := data[i+len(configStart):]
	j := bytes.Index(rest, []byte(configEnd))
	if j < 0 || bytes.IndexByte(rest[:j], '\n') >= 0 {
		return cfg, true, errors.New("vigil's extension: its configuration line is cut")
	}
	if err := json.Unmarshal(rest[:j], &cfg); err != nil {
		return cfg, true, fmt.Errorf("vigil's extension: its configuration line: %w", err)
	}
	return cfg, true, nil
}

// extensionDir returns the extensions folder of a at scope s under dir
// (the project or the home folder): pi's .pi/extensions and
// ~/.pi/agent/extensions, omp's .omp/extensions and
// ~/.omp/agent/extensions.
func extensionDir(a Agent, s Scope, dir string) string {
	base := ".pi"
	if a == Omp {
		base = ".omp"
	}
	if s == User {
		return filepath.Join(dir, base, "agent", "extensions")
	}
	return filepath.Join(dir, base, "extensions")
}

// PlanExtension reads file, where vigil's extension for a goes, and
// computes writing the extension that runs binary as its hook command.
// A file there that is not vigil's is refused. The folders that do not
// exist yet are recorded in the file, for detach.
func PlanExtension(file string, a Agent, binary string) (*Plan, error) {
	p, err := readExtensionPlan(file)
	if err != nil {
		return nil, err
	}
	cfg := ExtensionConfig{Agent: string(a), Command: ExtensionCommand(binary, a)}
	action := Added
	if p.Exists {
		old, _, err := ParseExtension(p.Old)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		cfg.Created, action = old.Created, Updated
	} else {
		cfg.Created = missingDirs(filepath.Dir(file))
	}
	p.Result = &Result{Data: ExtensionSource(cfg)}
	if !bytes.Equal(p.Result.Data, p.Old) {
		p.Changes = []Change{{Event: "extension", Action: action, Now: strings.Join(cfg.Command, " ")}}
	}
	return p, nil
}

// PlanExtensionDetach reads file and computes removing vigil's extension
// there: nothing to do when there is none, and a refusal when the file
// is not vigil's.
func PlanExtensionDetach(file string) (*Plan, error) {
	p, err := readExtensionPlan(file)
	if err != nil {
		return nil, err
	}
	p.Result = &Result{Data: p.Old}
	if p.Exists {
		cfg, _, _ := ParseExtension(p.Old)
		p.Result = &Result{Data: nil, Changes: []Change{{Event: "extension", Action: Removed, Was: strings.Join(cfg.Command, " ")}}}
	}
	return p, nil
}

// readExtensionPlan reads an extension file, refusing one that is not
// vigil's.
func readExtensionPlan(file string) (*Plan, error) {
	p := &Plan{File: file, Target: file, Mode: 0o644}
	info, err := os.Lstat(file)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: leaving it alone", file)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if _, ok, _ := ParseExtension(data); !ok {
		return nil, fmt.Errorf("%s is not vigil's extension (it does not start with %q): leaving it alone", file, extensionMarker)
	}
	p.Exists, p.Mode, p.Old = true, info.Mode().Perm(), data
	return p, nil
}

// missingDirs lists dir and the folders above it that do not exist, the
// deepest first.
func missingDirs(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			return out
		}
		out = append(out, d)
	}
}

// WriteExtension writes an extension plan: the file (through a temporary
// file renamed over it), in the folders it records, created with it; or,
// for a detach, the file removed with the folders attach created that
// this leaves empty. Nothing else is touched, so detaching gives back the
// folders as they were before attach.
func (p *Plan) WriteExtension() error {
	if !p.Changed() {
		return nil
	}
	if p.Changes[0].Action == Removed {
		cfg, _, _ := ParseExtension(p.Old)
		if err := os.Remove(p.File); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", p.File, err)
		}
		for _, d := range cfg.Created {
			// Only folders on the file's own path, and only empty ones
			// (os.Remove refuses the others).
			if rel, err := filepath.Rel(d, p.File); err != nil || strings.HasPrefix(rel, "..") {
				continue
			}
			if os.Remove(d) != nil {
				break
			}
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p.File), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", p.File, err)
	}
	if p.Exists {
		current, err := os.ReadFile(p.File)
		if err != nil || !bytes.Equal(current, p.Old) {
			return fmt.Errorf("write %s: the file changed while vigil was editing it; run the command again", p.File)
		}
	}
	if err := replaceFile(p.File, p.Data, p.Mode); err != nil {
		return fmt.Errorf("write %s: %w", p.File, err)
	}
	return nil
}

// extensionStatus reads an extension file into an attachment: one entry
// per event the extension forwards, each with the hook command.
func extensionStatus(a Agent, s Scope, file string) Attachment {
	at := Attachment{Agent: a, Scope: s, File: file}
	info, err := os.Lstat(file)
	if errors.Is(err, fs.ErrNotExist) {
		return at
	}
	at.Exists = err == nil
	if err == nil && !info.Mode().IsRegular() {
		err = errors.New("not a regular file")
	}
	var data []byte
	if err == nil {
		data, err = os.ReadFile(file)
	}
	if err != nil {
		at.Err = fmt.Errorf("read %s: %w", file, err)
		return at
	}
	cfg, ok, err := ParseExtension(data)
	if !ok {
		return at // another extension of that name: not vigil's
	}
	if err != nil || len(cfg.Command) == 0 {
		at.Err = fmt.Errorf("%s: %w", file, cmpErr(err, errors.New("vigil's extension names no hook command")))
		return at
	}
	command := strings.Join(cfg.Command, " ")
	for _, ev := range ExtensionEvents {
		at.Entries = append(at.Entries, Entry{Event: ev, Command: command, Binary: cfg.Command[0]})
	}
	if cfg.Agent != string(a) {
		at.Err = fmt.Errorf("%s: the extension speaks for %q, not %s: attach again", file, cfg.Agent, a)
	}
	at.Binaries = []Binary{{Path: cfg.Command[0], Exists: binaryExists(cfg.Command[0])}}
	return at
}

func cmpErr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}
