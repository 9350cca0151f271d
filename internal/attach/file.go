package attach

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/aymanbagabas/go-udiff"
	"github.com/vigil-dev/vigil/internal/yamlfile"
)

// Plan is the edit of one file, computed and not yet written.
type Plan struct {
	// File is the path the plan was made for.
	File string
	// Target is the file that will be written: File with symbolic links
	// resolved, so a settings file kept elsewhere stays a link.
	Target string
	// Exists tells whether the file exists.
	Exists bool
	// Mode is the file's mode, kept by Write; 0644 for a new file.
	Mode fs.FileMode
	// Old is the file's content (nil when it does not exist).
	Old []byte
	// Remove makes Write delete the file (after its backup) instead of
	// writing Data: a file attach created that detach leaves empty.
	Remove bool
	// MCPProject is the project whose servers that are not shared an
	// MCP plan edits ([PlanMCPAttachIn]); "" for the top level.
	MCPProject string
	// NoBackup makes Write keep no backup: a detach takes out only
	// vigil's own entries, so the old file holds nothing of the user's
	// that the new one lacks.
	NoBackup bool
	*Result
}

// PlanAttach reads file and computes [AttachWith] on it (hookURL "":
// command hooks only).
func PlanAttach(file string, a Agent, binary, hookURL string) (*Plan, error) {
	p, err := readPlan(file)
	if err != nil {
		return nil, err
	}
	p.Result, err = AttachWith(p.Old, file, a, binary, hookURL)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// PlanDetach reads file and computes [Detach] on it. A missing file has
// nothing to detach. The plan keeps no backup ([Plan.NoBackup]); a
// file that only vigil's hooks need (Claude Code's
// .claude/settings.local.json, Codex's hooks.json) left holding nothing
// ({}) is removed.
func PlanDetach(file string, a Agent) (*Plan, error) {
	p, err := readPlan(file)
	if err != nil {
		return nil, err
	}
	p.Result, err = Detach(p.Old, file, a)
	if err != nil {
		return nil, err
	}
	p.NoBackup = true
	if base := filepath.Base(file); p.Changed() && emptyObject(p.Data) && (base == "settings.local.json" || base == "hooks.json") {
		p.Remove = true
	}
	return p, nil
}

// Backups returns the backups Write made of file (FILE.vigil-backup-*),
// oldest first.
func Backups(file string) ([]string, error) {
	found, err := filepath.Glob(globQuote(file) + ".vigil-backup-*")
	if err != nil {
		return nil, fmt.Errorf("backups of %s: %w", file, err)
	}
	return found, nil
}

// globQuote escapes the characters filepath.Match treats specially.
func globQuote(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`*?[\`, s[i]) >= 0 {
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return string(b)
}

// PruneBackups removes the backups of the plan's file that hold what
// the file holds now that the plan is written (or, when it was removed,
// that hold nothing but an empty object): they keep nothing the file
// does not. It returns the backups it leaves.
func (p *Plan) PruneBackups() (kept []string, err error) {
	found, err := Backups(p.Target)
	if err != nil {
		return nil, err
	}
	for _, b := range found {
		data, rerr := os.ReadFile(b)
		redundant := rerr == nil && (!p.Remove && bytes.Equal(data, p.Data) || p.Remove && emptyObject(data))
		if redundant {
			if rerr := os.Remove(b); rerr == nil {
				continue
			}
		}
		kept = append(kept, b)
	}
	return kept, nil
}

func readPlan(file string) (*Plan, error) {
	p := &Plan{File: file, Target: file, Mode: 0o644}
	if _, err := os.Lstat(file); errors.Is(err, fs.ErrNotExist) {
		return p, nil
	} else if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	target, err := filepath.EvalSymlinks(file)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	info, err := os.Stat(target)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: not a regular file", file)
	}
	data, err := yamlfile.ReadRegular(target, MaxSettingsSize)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	p.Target, p.Exists, p.Mode, p.Old = target, true, info.Mode().Perm(), data
	return p, nil
}

// MaxSettingsSize bounds an agent's settings file that vigil reads: a
// project's .claude/settings.json comes with the repository, and a huge
// one must not exhaust vigil. Real ones are a few KiB.
const MaxSettingsSize = 4 << 20

// Changed tells whether writing the plan would change the file (false
// for a nil plan: no file).
func (p *Plan) Changed() bool { return p != nil && p.Result != nil && len(p.Changes) > 0 }

// Diff returns the change as a unified diff ("" when there is none).
func (p *Plan) Diff() string {
	if !p.Changed() {
		return ""
	}
	from := p.File
	if !p.Exists {
		from = "/dev/null"
	}
	to, before, after := p.File, string(p.Old), string(p.Data)
	if p.Remove {
		to, after = "/dev/null", ""
	}
	d, err := udiff.ToUnified(from, to, before, udiff.Lines(before, after), udiff.DefaultContextLines)
	if err != nil {
		// The edits come from the same two strings: this cannot happen.
		return fmt.Sprintf("cannot show the diff of %s: %v\n", p.File, err)
	}
	return d
}

// Write writes the plan, if it changes anything. It first copies the
// current file to a backup beside it (named FILE.vigil-backup-YYYYMMDD-HHMMSS
// from now, with a suffix rather than overwriting an older one), then
// writes the new content to a temporary file in the same folder and renames
// it over the file, which keeps the file's mode. A file that changed since
// it was read is left alone. It returns the backup's path ("" for a new
// file or no change).
func (p *Plan) Write(now time.Time) (backup string, err error) {
	if !p.Changed() {
		return "", nil
	}
	dir := filepath.Dir(p.Target)
	if !p.Exists {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("write %s: %w", p.File, err)
		}
	}
	current, err := os.ReadFile(p.Target)
	switch {
	case err == nil && (!p.Exists || !bytes.Equal(current, p.Old)),
		errors.Is(err, fs.ErrNotExist) && p.Exists:
		return "", fmt.Errorf("write %s: the file changed while vigil was editing it; run the command again", p.File)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("write %s: %w", p.File, err)
	}
	if p.Exists && !p.NoBackup {
		if backup, err = writeBackup(p.Target, p.Old, p.Mode, now); err != nil {
			return "", err
		}
	}
	if p.Remove {
		if err := os.Remove(p.Target); err != nil {
			return backup, fmt.Errorf("remove %s: %w", p.File, err)
		}
		return backup, nil
	}
	if err := replaceFile(p.Target, p.Data, p.Mode); err != nil {
		return backup, fmt.Errorf("write %s: %w", p.File, err)
	}
	return backup, nil
}

// writeBackup copies data to a new file beside target, never over an
// existing one.
func writeBackup(target string, data []byte, mode fs.FileMode, now time.Time) (string, error) {
	base := target + ".vigil-backup-" + now.Format("20060102-150405")
	for n := 1; n <= 100; n++ {
		name := base
		if n > 1 {
			name += "-" + strconv.Itoa(n)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", target, err)
		}
		err = writeAll(f, data, mode)
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("back up %s: %w", target, err)
		}
		return name, nil
	}
	return "", fmt.Errorf("back up %s: %s and 99 more backups exist already", target, base)
}

// replaceFile writes data to a temporary file beside target and renames it
// over target: a reader sees the old file or the new one, never a part.
func replaceFile(target string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".vigil-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := writeAll(f, data, mode); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, target); err != nil {
		os.Remove(tmp)
		return err
	}
	// Make the rename durable; a folder that cannot be synced is no error.
	if d, err := os.Open(filepath.Dir(target)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// writeAll writes data to f, sets its mode (which the umask may have
// narrowed), syncs and closes it.
func writeAll(f *os.File, data []byte, mode fs.FileMode) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
