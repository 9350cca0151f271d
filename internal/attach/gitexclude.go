package attach

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A file attach writes under a project that names this user's vigil
// binary (and, for Claude Code's HTTP hooks, hookd's secret) must not be
// committed: Claude Code's .claude/settings.local.json, pi's and omp's
// project extension. Claude Code ignores settings.local.json in git when
// it makes the file itself, not when vigil does; so attach lists such a
// file in the repository's .git/info/exclude, which git reads like a
// .gitignore and never commits, and detach takes the line out again
// when it removes the file.

// excludeMark is the comment line before each line attach adds.
const excludeMark = "# vigil attach: this file names your vigil binary (and hookd's secret); not to be shared"

// gitDirOf returns the git folder of the work tree file is in, and the
// work tree's root; ok is false when file is in none.
func gitDirOf(file string) (gitDir, root string, ok bool) {
	for dir := filepath.Dir(file); ; {
		dotGit := filepath.Join(dir, ".git")
		if fi, err := os.Stat(dotGit); err == nil {
			if fi.IsDir() {
				return dotGit, dir, true
			}
			// A linked work tree or a submodule: "gitdir: PATH"; its
			// info/exclude is the common folder's.
			b, err := os.ReadFile(dotGit)
			if err != nil {
				return "", "", false
			}
			gd, found := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
			if !found {
				return "", "", false
			}
			if !filepath.IsAbs(gd) {
				gd = filepath.Join(dir, gd)
			}
			if c, err := os.ReadFile(filepath.Join(gd, "commondir")); err == nil {
				common := strings.TrimSpace(string(c))
				if !filepath.IsAbs(common) {
					common = filepath.Join(gd, common)
				}
				gd = common
			}
			return gd, dir, true
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", "", false
		}
		dir = up
	}
}

// excludeLine is file's line in info/exclude: its path from the work
// tree's root, anchored there.
func excludeLine(root, file string) (string, bool) {
	rel, err := filepath.Rel(root, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return "/" + filepath.ToSlash(rel), true
}

// ExcludeFromGit lists file in the info/exclude of the git repository
// it is in, so that git offers it for no commit. It returns the exclude
// file when it added a line; "" when file is in no repository or a line
// already names it.
func ExcludeFromGit(file string) (string, error) {
	exclude, line, old, err := readExclude(file)
	if exclude == "" || err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(old), "\n") {
		if strings.TrimSpace(l) == line {
			return "", nil
		}
	}
	var b bytes.Buffer
	b.Write(old)
	if len(old) > 0 && old[len(old)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString(excludeMark + "\n" + line + "\n")
	if err := os.MkdirAll(filepath.Dir(exclude), 0o755); err != nil {
		return "", fmt.Errorf("write %s: %w", exclude, err)
	}
	if err := replaceFile(exclude, b.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", exclude, err)
	}
	return exclude, nil
}

// UnexcludeFromGit takes out of info/exclude the lines ExcludeFromGit
// added for file (a line the user wrote stays). It returns the exclude
// file when it changed it.
func UnexcludeFromGit(file string) (string, error) {
	exclude, line, old, err := readExclude(file)
	if exclude == "" || err != nil || old == nil {
		return "", err
	}
	mine := excludeMark + "\n" + line + "\n"
	if !bytes.Contains(old, []byte(mine)) {
		return "", nil
	}
	if err := replaceFile(exclude, bytes.Replace(old, []byte(mine), nil, 1), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", exclude, err)
	}
	return exclude, nil
}

// readExclude returns the info/exclude of the git repository file is in,
// the line that names file there, and the exclude file's text (nil when
// it does not exist yet); exclude is "" when file is in no repository.
func readExclude(file string) (exclude, line string, old []byte, err error) {
	gitDir, root, ok := gitDirOf(file)
	if !ok {
		return "", "", nil, nil
	}
	line, ok = excludeLine(root, file)
	if !ok {
		return "", "", nil, nil
	}
	exclude = filepath.Join(gitDir, "info", "exclude")
	old, err = os.ReadFile(exclude)
	if errors.Is(err, fs.ErrNotExist) {
		return exclude, line, nil, nil
	}
	if err != nil {
		return "", "", nil, fmt.Errorf("read %s: %w", exclude, err)
	}
	return exclude, line, old, nil
}
