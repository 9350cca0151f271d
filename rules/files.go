package rules

import (
	"path"
	"slices"
	"strings"
)

// fileTracker follows the versions of the files a run edits, without
// their content: each file has a version signature that edits move
// forward. Replacements are modelled so that undoing one restores the
// earlier signature (the signature of a replaced text is XORed out and
// that of its replacement XORed in), and restores, copies and undo go
// back to a version the tracker already knows. So "back to an earlier
// version" is visible without reading any file.
type fileTracker struct {
	files map[string]*fileState
	// seq numbers actions; runSeq is the seq of the last run.
	seq, runSeq int
	// heardAt is the step before which the user last spoke.
	heardAt int
	clock   int
}

// maxFiles bounds the tracker: the least recently touched file is
// forgotten first.
const maxFiles = 256

// maxVersions bounds how many earlier versions of a file are remembered.
const maxVersions = 8

type fileState struct {
	key string
	cur sig
	// versions are the distinct versions seen, oldest first, the current
	// one last.
	versions []sig
	// lastOp and lastResult detect an edit applied again to its own
	// result (sed run twice), which changes nothing; repeats counts such
	// edits in a row.
	lastOp, lastResult sig
	repeats            int
	// changeSeq is the action seq of the last change.
	changeSeq int
	// flips are the steps at which the file went back to an earlier
	// version with nothing run since its previous change.
	flips []int
	// edits are the steps of recent changes, oldest first.
	edits []int
	// lines remembers, for SWE-agent's edit N:M, the last text written to
	// each line range.
	lines map[string]sig
	// unusedWrites counts whole rewrites since the file was last used;
	// firstUnused is the step of the first of them.
	unusedWrites, firstUnused int
	// code describes the file's content when it was written whole.
	code codeFacts
	// reverted is set while the file's last change was a revert, and
	// undone the versions that revert took away.
	reverted bool
	undone   []sig
	// created is set when the first change the run made to the file was
	// writing it whole or copying another file to it: the agent created
	// it (a scratch script, a backup, a note); it is not a project file.
	created bool
	touched int
}

// editEffect is what one edit did to its file.
type editEffect struct {
	file *fileState
	edit Edit
	// changed is set when the version moved; flip when it moved back to
	// an earlier version with nothing run since the previous change.
	changed, flip bool
	// revert is set when a restore (git checkout, git restore or stash, a
	// copy from a backup, an undo) took back changes the run had made to
	// a file it did not create, whatever ran since; redo when the edit
	// right after a revert brought back a version the revert took away.
	revert, redo bool
	// repeat counts, for an edit that changed nothing because it was the
	// same edit as the last one, how many times in a row that happened.
	repeat int
}

func newFileTracker() fileTracker { return fileTracker{files: map[string]*fileState{}} }

// fileKey normalises a path so that ./a/b, a/b and /testbed/a/b name the
// same file: it cleans the path and drops a leading workspace folder.
func fileKey(p string) string {
	if p == "" {
		return ""
	}
	p = path.Clean(p)
	for _, root := range workspaceRoots {
		if strings.HasPrefix(p, root) {
			return p[len(root):]
		}
	}
	return p
}

// workspaceRoots are folders that agents' sandboxes mount the project at.
var workspaceRoots = []string{"/testbed/", "/workspace/", "/repo/", "/app/", "/code/", "/project/", "/src/", "/home/user/"}

func (t *fileTracker) get(p string) *fileState {
	k := fileKey(p)
	t.clock++
	if fs, ok := t.files[k]; ok {
		fs.touched = t.clock
		return fs
	}
	if fs := t.samePlace(k); fs != nil {
		fs.touched = t.clock
		return fs
	}
	if len(t.files) >= maxFiles {
		var old *fileState
		for _, fs := range t.files {
			if old == nil || fs.touched < old.touched {
				old = fs
			}
		}
		delete(t.files, old.key)
	}
	orig := textSig("orig:" + k)
	// A copy: k may be a slice of a long command line.
	fs := &fileState{key: strings.Clone(k), cur: orig, versions: []sig{orig}, touched: t.clock}
	t.files[k] = fs
	return fs
}

// samePlace returns the one known file that k names another way: an
// absolute path whose end is the relative k, or a relative path that ends
// the absolute k (Claude Code's Edit names /home/u/proj/a.py, its Bash
// runs git checkout -- a.py in the project). With several candidates, or
// none, it returns nil.
func (t *fileTracker) samePlace(k string) *fileState {
	if k == "" || strings.HasPrefix(k, "..") {
		return nil
	}
	var found *fileState
	for key, fs := range t.files {
		var match bool
		switch {
		case strings.HasPrefix(k, "/") && !strings.HasPrefix(key, "/"):
			match = strings.HasSuffix(k, "/"+key)
		case !strings.HasPrefix(k, "/") && strings.HasPrefix(key, "/"):
			match = strings.HasSuffix(key, "/"+k)
		}
		if match {
			if found != nil {
				return nil
			}
			found = fs
		}
	}
	return found
}

// version returns the current version of a file, known or not.
func (t *fileTracker) version(p string) sig {
	if fs, ok := t.files[fileKey(p)]; ok {
		return fs.cur
	}
	if fs := t.samePlace(fileKey(p)); fs != nil {
		return fs.cur
	}
	return textSig("orig:" + fileKey(p))
}

// apply records one edit made at step n and says what it did.
func (t *fileTracker) apply(e Edit, n int) []editEffect {
	t.seq++
	if e.Op == EditRestore && e.Path == "" {
		// Every file back to its original, in a fixed order so that what
		// detectors report does not depend on map order.
		keys := make([]string, 0, len(t.files))
		for k := range t.files {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var out []editEffect
		for _, k := range keys {
			fs := t.files[k]
			out = append(out, t.move(fs, e, textSig("orig:"+fs.key), 0, n))
		}
		return out
	}
	if e.Path == "" {
		return nil
	}
	fs := t.get(e.Path)
	var next, op sig
	switch e.Op {
	case EditWrite:
		if len(fs.edits) == 0 && len(fs.versions) == 1 {
			fs.created = true
		}
		next = textSig("w\x00" + e.New)
		fs.lines = nil
		fs.code = scanCode(e.Path, e.New)
	case EditAppend:
		op = textSig("a\x00" + e.New)
		next = mix(fs.cur, op)
	case EditReplace:
		if e.Old == e.New {
			return nil
		}
		op = mix(textSig(e.Old), textSig(e.New))
		next = fs.cur ^ textSig("r\x00"+e.Old) ^ textSig("r\x00"+e.New)
	case EditLines:
		prev, ok := fs.lines[e.Old]
		if !ok {
			prev = textSig("l\x00" + e.Old)
		}
		body := textSig("l\x00" + e.New)
		if fs.lines == nil {
			fs.lines = map[string]sig{}
		}
		if len(fs.lines) < 64 {
			fs.lines[strings.Clone(e.Old)] = body
		}
		op = mix(textSig(e.Old), body)
		next = fs.cur ^ prev ^ body
	case EditScript:
		op = textSig("s\x00" + e.New)
		next = mix(fs.cur, op)
	case EditCopy:
		// A copy to a new name creates a file; copying a variant back over
		// its original (mv f.new f, cp f.bak f) does not.
		if len(fs.edits) == 0 && len(fs.versions) == 1 && !isBackupOf(fileKey(e.From), fs.key) {
			fs.created = true
		}
		next = t.version(e.From)
		if src, ok := t.files[fileKey(e.From)]; ok {
			fs.code = src.code
		}
	case EditRestore:
		next = textSig("orig:" + fs.key)
		fs.lines = nil
	case EditUndo:
		if len(fs.versions) < 2 {
			return nil
		}
		next = fs.versions[len(fs.versions)-2]
	case EditDelete:
		next = textSig("deleted:" + fs.key)
	}
	if op != 0 && op == fs.lastOp && fs.cur == fs.lastResult {
		// The same edit again on its own result: a no-op.
		fs.repeats++
		return []editEffect{{file: fs, edit: e, repeat: fs.repeats}}
	}
	fs.repeats = 0
	eff := t.move(fs, e, next, op, n)
	return []editEffect{eff}
}

// move sets a file's version and records whether that went back.
func (t *fileTracker) move(fs *fileState, e Edit, next, op sig, n int) editEffect {
	eff := editEffect{file: fs, edit: e}
	fs.lastOp, fs.lastResult = op, next
	if next == fs.cur {
		return eff
	}
	eff.changed = true
	seen := -1
	for i, v := range fs.versions {
		if v == next {
			seen = i
		}
	}
	if seen >= 0 && t.runSeq <= fs.changeSeq {
		eff.flip = true
		fs.flips = append(fs.flips, n)
	}
	restore := isRestore(e, fs)
	if seen >= 0 && len(fs.edits) > 0 && !fs.created && restore {
		eff.revert = true
	}
	if fs.reverted && !restore && slices.Contains(fs.undone, next) {
		eff.redo = true
	}
	if eff.revert {
		fs.reverted = true
		fs.undone = append(fs.undone[:0], fs.versions[seen+1:]...)
	} else {
		fs.reverted, fs.undone = false, fs.undone[:0]
	}
	if seen >= 0 {
		fs.versions = append(fs.versions[:seen], fs.versions[seen+1:]...)
	}
	fs.versions = append(fs.versions, next)
	if len(fs.versions) > maxVersions {
		fs.versions = fs.versions[1:]
	}
	fs.cur = next
	fs.changeSeq = t.seq
	fs.edits = append(fs.edits, n)
	if len(fs.edits) > 16 {
		fs.edits = fs.edits[1:]
	}
	return eff
}

// ran records that a program or test ran and showed something new: every
// file's current version has now been exercised.
func (t *fileTracker) ran() {
	t.seq++
	t.runSeq = t.seq
}

// heard records that the user spoke: like a run that showed something
// new, and the returns to earlier versions before it are forgotten, since
// what comes after may be what the user asked for.
func (t *fileTracker) heard(n int) {
	t.ran()
	t.heardAt = n
	for _, fs := range t.files {
		fs.flips = fs.flips[:0]
	}
}

// prune forgets flips older than the window.
func (fs *fileState) prune(oldest int) {
	i := 0
	for i < len(fs.flips) && fs.flips[i] < oldest {
		i++
	}
	fs.flips = fs.flips[i:]
}

// firstEditSince returns the step of the first change at or after step
// oldest, or 0.
func (fs *fileState) firstEditSince(oldest int) int {
	for _, s := range fs.edits {
		if s >= oldest {
			return s
		}
	}
	return 0
}

// isRestore reports whether an edit of fs is a restore: it brings back a
// version from outside the run's edits (the repository's, a backup's, the
// editor's undo history) rather than writing new text.
func isRestore(e Edit, fs *fileState) bool {
	switch e.Op {
	case EditRestore, EditUndo:
		return true
	case EditCopy:
		return isBackupOf(fileKey(e.From), fs.key) || isBackupName(fileKey(e.From))
	}
	return false
}
