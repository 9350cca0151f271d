package hookwire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// AgentDir returns vigil's agent folder: $VIGIL_AGENT_DIR, or
// ~/.vigil/agent.
func AgentDir(lookupEnv func(string) (string, bool)) (string, error) {
	if d, ok := lookupEnv("VIGIL_AGENT_DIR"); ok && d != "" {
		return d, nil
	}
	home, ok := lookupEnv("HOME")
	if !ok || home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the agent folder: set VIGIL_AGENT_DIR or HOME: %w", err)
		}
		home = h
	}
	return filepath.Join(home, ".vigil", "agent"), nil
}

// HookdConfig is where Claude Code's HTTP hooks reach vigil hookd: the
// loopback address and the secret in the URL path. It is chosen once,
// by `vigil attach claude-code --http`, and kept in the agent folder
// (hookd.json), since the URL is written into the agent's settings.
type HookdConfig struct {
	Addr   string `json:"addr"`
	Secret string `json:"secret"`
}

// URL is the hook URL for agent.
func (c HookdConfig) URL(agent string) string {
	return "http://" + c.Addr + "/hook/" + c.Secret + "/" + agent
}

// HookdFile is hookd.json in the agent folder.
func HookdFile(agentDir string) string { return filepath.Join(agentDir, "hookd.json") }

// LoadHookd reads hookd.json; ok is false when there is none.
func LoadHookd(agentDir string) (c HookdConfig, ok bool, err error) {
	b, err := os.ReadFile(HookdFile(agentDir))
	if errors.Is(err, fs.ErrNotExist) {
		return c, false, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err == nil && (c.Addr == "" || len(c.Secret) < 32) {
		err = errors.New("want an addr and a secret of at least 32 characters")
	}
	if err != nil {
		return c, false, fmt.Errorf("%s: %w", HookdFile(agentDir), err)
	}
	return c, true, nil
}

// EnsureHookd starts `vigil hookd` with the vigil binary when hookd.json
// exists in agentDir and nothing answers on its address.
func EnsureHookd(ctx context.Context, vigil string, dir Dir, agentDir string) error {
	c, ok, err := LoadHookd(agentDir)
	if !ok || err != nil {
		return err
	}
	if listening(c.Addr, 200*time.Millisecond) {
		return nil
	}
	cwd, _ := os.Getwd()
	return SpawnDetached(ctx, vigil, filepath.Join(string(dir), "hookd.log"), cwd, "hookd")
}
