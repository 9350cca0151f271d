package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/vigil-dev/vigil/internal/hook"
	"github.com/vigil-dev/vigil/internal/hookwire"
	"github.com/vigil-dev/vigil/internal/sidecar"
)

// hookdConfig is hookd.json: where Claude Code's HTTP hooks reach vigil
// hookd, the loopback address and the secret in the URL path, shared by
// vigil attach --http, vigil hookd and the hook commands that start it.
type hookdConfig = hookwire.HookdConfig

func hookdFile(agentDir string) string { return hookwire.HookdFile(agentDir) }

// loadHookd reads hookd.json; ok is false when there is none.
func loadHookd(agentDir string) (c hookdConfig, ok bool, err error) {
	return hookwire.LoadHookd(agentDir)
}

// ensureHookdConfig returns hookd.json, creating it with a free loopback
// port and a new secret the first time.
func ensureHookdConfig(agentDir string) (hookdConfig, error) {
	c, isNew, err := hookdConfigFor(agentDir)
	if err != nil || !isNew {
		return c, err
	}
	return c, saveHookdConfig(agentDir, c)
}

// hookdConfigFor returns hookd.json, or a new one (isNew) with a free
// loopback port and a new secret, not written: a dry run shows it.
func hookdConfigFor(agentDir string) (c hookdConfig, isNew bool, err error) {
	if c, ok, err := loadHookd(agentDir); ok || err != nil {
		return c, false, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return hookdConfig{}, false, fmt.Errorf("find a free loopback port: %w", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return hookdConfig{}, false, err
	}
	return hookdConfig{Addr: addr, Secret: hex.EncodeToString(b[:])}, true, nil
}

// saveHookdConfig writes hookd.json (0600: it holds the secret).
func saveHookdConfig(agentDir string, c hookdConfig) error {
	data, _ := json.MarshalIndent(c, "", "  ")
	if err := os.MkdirAll(agentDir, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(hookdFile(agentDir), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", hookdFile(agentDir), err)
	}
	return nil
}

// ensureHookd starts `vigil hookd` when hookd.json exists and nothing
// answers on its address. The command hooks of SessionStart and
// UserPromptSubmit call it, so the HTTP hooks that follow find it.
func ensureHookd(ctx context.Context, e *env, dir sidecar.Dir) error {
	agentDir, err := e.agentDir()
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	return hookwire.EnsureHookd(ctx, self, hookwire.Dir(dir), agentDir)
}

// hookdCmd is `vigil hookd`: it serves Claude Code's HTTP hooks on the
// loopback address of hookd.json, forwarding each event to its
// session's sidecar (docs/attach.md). Started by the command hooks.
type hookdCmd struct {
	ReadyFD int           `name:"ready-fd" help:"A file descriptor to write one byte to once it listens."`
	Idle    time.Duration `default:"2h" help:"Stop after this long without a request."`
}

func (c *hookdCmd) Run(e *env) error {
	ready := sidecar.NewReadyPipe(c.ReadyFD)
	defer ready.Close()
	logger := log.New(e.stderr, "vigil hookd: ", log.LstdFlags|log.LUTC)
	agentDir, err := e.agentDir()
	if err != nil {
		return err
	}
	cfg, ok, err := loadHookd(agentDir)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("no %s: run vigil attach claude-code --http first", hookdFile(agentDir))
	}
	dir, err := sidecar.RuntimeDir(e.lookupEnv)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the vigil binary: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(string(dir), "hookd.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		logger.Printf("another hookd runs: leaving it to that one")
		ready.Write([]byte{1}) // the hook that started this one finds that one
		return nil
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s (from %s): %w", cfg.Addr, hookdFile(agentDir), err)
	}
	pidFile := filepath.Join(string(dir), "hookd.pid")
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		ln.Close()
		return err
	}
	defer os.Remove(pidFile)
	activity := make(chan struct{}, 1)
	mux := http.NewServeMux()
	mux.Handle("POST "+hook.Pattern, &hook.Router{
		Dir:    dir,
		Secret: cfg.Secret,
		// hookd outlives the agents it serves: no process to watch.
		Spawn: func(agent string) hookwire.Spawner {
			return hookwire.SidecarSpawner(self, hookwire.Dir(dir), agent, nil)
		},
		Logf:     logger.Printf,
		Activity: activity,
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	ready.Write([]byte{1})
	ready.Close()
	logger.Printf("serving Claude Code's HTTP hooks on %s", cfg.Addr)
	ctx, stop := signal.NotifyContext(e.ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	idle := time.NewTimer(c.Idle)
	defer idle.Stop()
	for {
		select {
		case <-activity:
			idle.Reset(c.Idle)
			continue
		case <-idle.C:
			logger.Printf("no request for %v: stopping", c.Idle)
		case <-ctx.Done():
		case err := <-served:
			return err
		}
		break
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return srv.Shutdown(sctx)
}
