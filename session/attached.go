package session

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
)

// pickDuplicate returns, when several session files have exactly the
// id sid, the one [Manager.AttachedLog] takes: the largest (the one a
// sidecar recorded in), the oldest among equals (the names start with
// the creation time); and the others. ok is false when there are not
// several.
func (m *Manager) pickDuplicate(sid string) (path string, others []string, ok bool) {
	dirs, err := os.ReadDir(m.root)
	if err != nil {
		return "", nil, false
	}
	type file struct {
		path string
		size int64
	}
	var files []file
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(m.root, d.Name()))
		if err != nil {
			continue
		}
		for _, e := range entries {
			if id, ok := idFromName(e.Name()); !ok || id != sid || !e.Type().IsRegular() {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				continue
			}
			files = append(files, file{filepath.Join(m.root, d.Name(), e.Name()), fi.Size()})
		}
	}
	if len(files) < 2 {
		return "", nil, false
	}
	slices.SortFunc(files, func(a, b file) int {
		if c := cmp.Compare(b.size, a.size); c != 0 {
			return c
		}
		return cmp.Compare(filepath.Base(a.path), filepath.Base(b.path))
	})
	for _, f := range files[1:] {
		others = append(others, f.path)
	}
	return files[0].path, others, true
}
