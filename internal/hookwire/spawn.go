package hookwire

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// SpawnReadyWait bounds how long [SpawnDetached] waits for the process
// it started to say it is ready.
const SpawnReadyWait = 3 * time.Second

// SpawnDetached starts the vigil binary with args (and --ready-fd 3) in
// a session of its own (setsid), detached from the caller's streams (an
// agent waits for a hook's to close), its output appended to logPath,
// and waits until it writes its ready byte on descriptor 3, exits, or
// [SpawnReadyWait] passes. args[0] names the process in the errors. The
// started process is not waited for: a goroutine reaps it if it exits
// while the caller still runs. A cwd that is missing or not a folder
// is an error that names it.
func SpawnDetached(ctx context.Context, vigil, logPath, cwd string, args ...string) error {
	if err := checkCwd(cwd); err != nil {
		return err
	}
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	defer pr.Close()
	cmd := exec.Command(vigil, append(args, "--ready-fd", "3")...)
	cmd.Dir = cwd
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.ExtraFiles = []*os.File{pw}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return err
	}
	go cmd.Wait() // reap it if it exits while we still run
	ready := make(chan bool, 1)
	go func() {
		var b [1]byte
		n, _ := pr.Read(b[:]) // one byte when ready; EOF if it exits first
		ready <- n == 1
	}()
	t := time.NewTimer(SpawnReadyWait)
	defer t.Stop()
	select {
	case ok := <-ready:
		if !ok {
			return fmt.Errorf("vigil %s exited before it served (see %s)", args[0], logPath)
		}
		return nil
	case <-t.C:
		return fmt.Errorf("vigil %s did not get ready within %v (see %s)", args[0], SpawnReadyWait, logPath)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SidecarArgs are the arguments of `vigil sidecar` for the session of
// event in, watched for agent, started in cwd; proc, when set, is the
// agent's process, which the sidecar ends with.
func SidecarArgs(agent string, in Input, cwd string, proc Proc) []string {
	start := in.HookEventName
	if in.HookEventName == EventSessionStart && in.Source != "" {
		start = in.Source
	}
	args := []string{"sidecar", agent, "--session", in.SessionID, "--transcript", in.Transcript(), "--cwd", cwd, "--start", start}
	if proc.PID > 0 {
		args = append(args, "--agent-pid", strconv.Itoa(proc.PID), "--agent-start", strconv.FormatUint(proc.Start, 10))
	}
	return args
}

// SidecarSpawner starts `vigil sidecar` with the vigil binary for a
// session of agent's, in the event's working folder (else this one),
// and waits until it listens or gives up. The sidecar ends with the
// agent's process proc() names, when it names one; proc is called only
// when a sidecar is started, and may be nil.
func SidecarSpawner(vigil string, dir Dir, agent string, proc func() Proc) Spawner {
	return func(ctx context.Context, key Key, in Input) error {
		cwd := in.Cwd
		if cwd == "" {
			cwd, _ = os.Getwd()
		}
		var p Proc
		if proc != nil {
			p = proc()
		}
		return SpawnDetached(ctx, vigil, dir.Log(key), cwd, SidecarArgs(agent, in, cwd, p)...)
	}
}

// Vigil returns the vigil binary a hook binary starts its sidecars
// with: the file named vigil beside the running executable, symbolic
// links resolved.
func Vigil() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the vigil binary: %w", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return filepath.Join(filepath.Dir(exe), "vigil"), nil
}

// checkCwd says what is wrong with the hook's working folder, which
// SpawnDetached starts the process in: otherwise starting it fails with an error that
// names the binary (fork/exec .../vigil: no such file or directory).
func checkCwd(cwd string) error {
	fi, err := os.Stat(cwd)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the hook's cwd %s does not exist: no sidecar started there", cwd)
	case err != nil:
		return fmt.Errorf("the hook's cwd %s: %w", cwd, err)
	case !fi.IsDir():
		return fmt.Errorf("the hook's cwd %s is not a folder: no sidecar started there", cwd)
	}
	return nil
}
