package rules

import (
	"fmt"
	"path"
	"strings"
)

var editThrashInfo = Info{
	Name:     "edit-thrash",
	Severity: Concern,
	Doc: "Edits that go in circles. Either a file keeps returning to a version it had before " +
		"(edit, revert, re-edit; a restore from a backup, git checkout, an undo, or the reverse " +
		"replacement) with no run in between that showed anything new, EditFlips times (default 2) " +
		"within the window; or a file is rewritten whole Rewrites times (default 3) without " +
		"anything reading, running or applying it in between, so each draft replaces the last " +
		"unseen; or the same edit is made Rewrites times in a row, changing nothing after the first. Works with edit tools (old/new strings, whole writes, apply_patch) and with shell " +
		"edits (sed -i, cat > file, cp and mv, git checkout, scripts that rewrite files).",
}

// editThrash reads the file tracker's flips and whole rewrites.
type editThrash struct {
	flips, rewrites int
	// reported remembers the files reported, for the flip and the rewrite
	// episodes, until the episode ends.
	flipped, rewritten map[*fileState]bool
	// unused is set when a file may have been rewritten since its last
	// use; it is cleared when a look at every file finds none.
	unused bool
}

func (d *editThrash) reset() { d.flipped, d.rewritten, d.unused = nil, nil, false }

func (d *editThrash) observe(v *view, emit func(candidate)) {
	for i := range v.acts {
		a := &v.acts[i]
		d.uses(a, v)
		for _, ef := range a.effects {
			fs := ef.file
			if ef.repeat > 0 && ef.repeat+1 == d.rewrites {
				start := fs.firstEditSince(v.oldest())
				if start == 0 {
					start = v.n
				}
				emit(candidate{subject: textSig(fs.key), Finding: Finding{
					Detector:  editThrashInfo.Name,
					Severity:  editThrashInfo.Severity,
					StartStep: start,
					EndStep:   v.n,
					Message: fmt.Sprintf("The same edit to %s has now been made %d times; it changed nothing after the first. Look at the file before editing it again.",
						fs.key, ef.repeat+1),
					Evidence: clip(a.Command, 120),
				}})
			}
			if ef.flip {
				fs.prune(v.oldest())
				if len(fs.flips) >= d.flips && !d.flipped[fs] {
					if d.flipped == nil {
						d.flipped = map[*fileState]bool{}
					}
					d.flipped[fs] = true
					// The episode starts after the user last spoke: what
					// came before may have been what they asked for.
					start := fs.firstEditSince(max(v.oldest(), v.files.heardAt))
					if start == 0 || start > fs.flips[0] {
						start = fs.flips[0]
					}
					emit(candidate{subject: textSig(fs.key), Finding: Finding{
						Detector:  editThrashInfo.Name,
						Severity:  editThrashInfo.Severity,
						StartStep: start,
						EndStep:   v.n,
						Message: fmt.Sprintf("%s has gone back to an earlier version %d times with no run in between that showed anything new; settle on one version and test it.",
							fs.key, len(fs.flips)),
						Evidence: clip(a.Command, 120),
					}})
				}
			} else if ef.changed && d.flipped[fs] {
				fs.prune(v.oldest())
				if len(fs.flips) < d.flips {
					delete(d.flipped, fs)
				}
			}
			if ef.edit.Op == EditWrite {
				if fs.unusedWrites == 0 {
					fs.firstUnused = v.n
				}
				fs.unusedWrites++
				d.unused = true
				if fs.unusedWrites >= d.rewrites && !d.rewritten[fs] {
					if d.rewritten == nil {
						d.rewritten = map[*fileState]bool{}
					}
					d.rewritten[fs] = true
					emit(candidate{subject: textSig(fs.key), Finding: Finding{
						Detector:  editThrashInfo.Name,
						Severity:  editThrashInfo.Severity,
						StartStep: fs.firstUnused,
						EndStep:   v.n,
						Message: fmt.Sprintf("%s has been rewritten %d times without being run, read or applied in between; use one draft before writing the next.",
							fs.key, fs.unusedWrites),
					}})
				}
			}
		}
		if len(d.flipped) > 64 {
			d.flipped = nil
		}
		if len(d.rewritten) > 64 {
			d.rewritten = nil
		}
	}
}

// uses marks the files an action uses (reads, runs, applies, or any run
// at all, which may exercise them) as used since their last rewrite.
func (d *editThrash) uses(a *act, v *view) {
	if !d.unused {
		// No file waits for a use: there is nothing to mark.
		return
	}
	if a.Run || a.Test {
		for fs := range d.pending(v) {
			fs.unusedWrites = 0
			delete(d.rewritten, fs)
		}
		return
	}
	for _, p := range a.paths {
		d.use(v, p)
	}
	for _, p := range a.scripts {
		d.use(v, p)
	}
	if a.Kind == KindRead || a.Kind == KindSearch {
		// A read tool or a cat names its file in the command.
		for w := range strings.FieldsSeq(a.Command) {
			if strings.ContainsAny(w, "./") {
				d.use(v, strings.Trim(w, `'"`))
			}
		}
	}
}

func (d *editThrash) use(v *view, p string) {
	if p == "" {
		return
	}
	if fs, ok := v.files.files[fileKey(p)]; ok {
		fs.unusedWrites = 0
		delete(d.rewritten, fs)
		return
	}
	// The command may name the file differently (a bare name, another
	// folder prefix): match on the base name among files with pending
	// rewrites.
	base := path.Base(p)
	for fs := range d.pending(v) {
		if path.Base(fs.key) == base {
			fs.unusedWrites = 0
			delete(d.rewritten, fs)
		}
	}
}

// pending yields the files rewritten since their last use.
func (d *editThrash) pending(v *view) func(func(*fileState) bool) {
	return func(yield func(*fileState) bool) {
		if !d.unused {
			return
		}
		found := false
		for _, fs := range v.files.files {
			if fs.unusedWrites > 0 {
				if !yield(fs) {
					return
				}
				found = found || fs.unusedWrites > 0
			}
		}
		if !found {
			d.unused = false
		}
	}
}
