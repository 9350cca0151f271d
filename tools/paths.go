package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxLinkHops bounds symlink resolution, as the kernel's ELOOP does.
const maxLinkHops = 255

// resolvePath returns the absolute path abs names once every symlink in it is
// resolved, the way the kernel would resolve it: a ".." after a symlink
// climbs out of the link's target, not out of the link's folder. The part of
// the path that does not exist yet is kept as written (minus "." and ".."),
// and a dangling symlink resolves to where its target would be, so a write
// through it is checked against the place it would really land.
func resolvePath(abs string) (string, error) {
	if !filepath.IsAbs(abs) {
		return "", fmt.Errorf("resolve %s: not an absolute path", abs)
	}
	vol := filepath.VolumeName(abs)
	root := vol + string(filepath.Separator)
	rest := splitPath(abs[len(vol):])
	resolved := root
	hops := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		info, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) || isNotDir(err) {
			// Nothing exists from here on, so nothing below can be a link,
			// unless a ".." climbs back into what exists: "nope/../link/x"
			// would then be cleaned to "link/x" as text while the kernel
			// would follow link. The kernel fails such a path (nope does not
			// exist), and so do we.
			for _, r := range rest {
				if r == ".." {
					return "", fmt.Errorf("resolve %s: %s does not exist, so the path cannot go through it", abs, next)
				}
			}
			return filepath.Join(append([]string{next}, rest...)...), nil
		}
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", abs, err)
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		hops++
		if hops > maxLinkHops {
			return "", fmt.Errorf("resolve %s: too many levels of symbolic links", abs)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", abs, err)
		}
		if filepath.IsAbs(target) {
			tvol := filepath.VolumeName(target)
			resolved = tvol + string(filepath.Separator)
			target = target[len(tvol):]
		}
		rest = append(splitPath(target), rest...)
	}
	return resolved, nil
}

func splitPath(p string) []string {
	var parts []string
	for _, c := range strings.Split(filepath.ToSlash(p), "/") {
		if c != "" {
			parts = append(parts, c)
		}
	}
	return parts
}

// within reports whether path is root or lies below it. Both are clean and
// absolute.
func within(path, root string) bool {
	if path == root {
		return true
	}
	if strings.HasSuffix(root, string(filepath.Separator)) {
		return strings.HasPrefix(path, root)
	}
	return strings.HasPrefix(path, root+string(filepath.Separator))
}

// access says what a tool means to do with a path.
type access int

const (
	accessRead access = iota + 1
	accessWrite
)

// resolve turns a path argument into the resolved absolute path the tool
// will use, refusing it when it lies outside the session's roots. Tools must
// do their I/O on the returned path, never on the argument, so that what was
// checked is what is touched.
func (s *Session) resolve(p string, acc access) (string, error) {
	if p == "" {
		return "", errors.New("path is empty")
	}
	if strings.ContainsRune(p, 0) {
		return "", errors.New("path contains a NUL byte")
	}
	abs := p
	if !filepath.IsAbs(p) {
		abs = s.cwd + string(filepath.Separator) + p
	}
	r, err := resolvePath(abs)
	if err != nil {
		return "", err
	}
	if s.opts.AllowOutsideRoots || s.inRoots(r) {
		return r, nil
	}
	if acc == accessRead && s.isArtifact(r) {
		return r, nil
	}
	return "", fmt.Errorf("resolves to %s, which is outside the allowed roots: %s", r, strings.Join(s.roots, ", "))
}

func (s *Session) inRoots(p string) bool {
	for _, root := range s.roots {
		if within(p, root) {
			return true
		}
	}
	return false
}

// rootOf returns the root p lies in, or "" when none holds it.
func (s *Session) rootOf(p string) string {
	best := ""
	for _, root := range s.roots {
		if within(p, root) && len(root) > len(best) {
			best = root
		}
	}
	return best
}

// display returns p as the model should see it: relative to the working
// directory when inside it, absolute otherwise.
func (s *Session) display(p string) string {
	if p == s.cwd {
		return "."
	}
	if within(p, s.cwd) {
		if rel, err := filepath.Rel(s.cwd, p); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return p
}
