//go:build linux

package sidecar

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ShedStartPages lets the kernel take back the pages of the program's
// own file that starting it touched (package initialisation, the SDKs'
// tables) and that a long-lived sidecar never needs again, and asks it
// to map later ones a page at a time rather than with their neighbours.
// It touches only the executable's read-only mappings (code and
// constants, never written, so dropping them only means reading them
// back from the page cache on next use); data, heap and stacks are left
// alone, and so is any read-only mapping with a page written since it was
// mapped (a position-independent build's relocated constants). The
// pages stay in the page cache, shared with every other
// sidecar. It returns how many mappings it advised; errors are ignored:
// this is an optimisation.
func ShedStartPages() int {
	exe, err := os.Executable()
	if err != nil {
		return 0
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0
	}
	defer f.Close()
	type mapping struct {
		start, end uint64
		anon       bool
	}
	var maps []mapping
	cur := -1
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if v, ok := strings.CutSuffix(fields[0], ":"); ok {
			// A field of the mapping above: a page written since it was
			// mapped (relocations the loader applied before making it
			// read-only, say) would be lost, so such a mapping is kept.
			if v == "Anonymous" && cur >= 0 && len(fields) > 1 && fields[1] != "0" {
				maps[cur].anon = true
			}
			continue
		}
		// start-end perms offset dev inode path
		cur = -1
		if len(fields) < 6 || fields[5] != exe || len(fields[1]) < 2 || fields[1][1] == 'w' {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if !ok || err1 != nil || err2 != nil || end <= start {
			continue
		}
		maps = append(maps, mapping{start: start, end: end})
		cur = len(maps) - 1
	}
	n := 0
	for _, m := range maps {
		if m.anon {
			continue
		}
		if madvise(uintptr(m.start), uintptr(m.end-m.start), syscall.MADV_DONTNEED) == nil {
			madvise(uintptr(m.start), uintptr(m.end-m.start), syscall.MADV_RANDOM)
			n++
		}
	}
	return n
}

func madvise(addr, length uintptr, advice int) error {
	_, _, e := syscall.Syscall(syscall.SYS_MADVISE, addr, length, uintptr(advice))
	if e != 0 {
		return e
	}
	return nil
}
