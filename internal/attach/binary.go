package attach

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Executable returns the path of the running binary with symbolic links
// resolved: the vigil that hook commands should run.
func Executable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the vigil binary: %w", err)
	}
	resolved, err := filepath.EvalSymlinks(exe)
	if err != nil {
		return "", fmt.Errorf("find the vigil binary: %w", err)
	}
	return resolved, nil
}

// TransientBinary returns why binary looks like one that `go run` or `go
// test` built and will delete (it lies in a go-build folder, under the
// temporary folder, or in Go's build cache), or "" when it looks
// installed. lookupEnv reads TMPDIR and GOCACHE.
func TransientBinary(binary string, lookupEnv func(string) (string, bool)) string {
	for part := range strings.SplitSeq(filepath.ToSlash(binary), "/") {
		if strings.HasPrefix(part, "go-build") {
			return "it is in a folder of Go's builds (go run or go test)"
		}
	}
	var temps []string
	if d, ok := lookupEnv("TMPDIR"); ok && d != "" {
		temps = append(temps, d)
	}
	temps = append(temps, "/tmp", os.TempDir())
	for _, d := range temps {
		if within(binary, d) {
			return "it is in the temporary folder " + d
		}
	}
	if d, ok := lookupEnv("GOCACHE"); ok && d != "" && d != "off" && within(binary, d) {
		return "it is in Go's build cache " + d
	}
	return ""
}

// within reports whether path lies below dir, comparing the two with
// symbolic links resolved where they can be.
func within(path, dir string) bool {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(path))
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// HookBinary returns the binary vigil's hook commands should run for
// the vigil binary vigil: the hook binary beside it ([HookBinaryName],
// an executable file in the same folder), which starts sidecars with
// that vigil, or vigil itself when there is none.
func HookBinary(vigil string) string {
	fast := filepath.Join(filepath.Dir(vigil), HookBinaryName)
	if fi, err := os.Stat(fast); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
		return fast
	}
	return vigil
}
