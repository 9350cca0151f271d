package sidecar

import (
	"errors"
	"io/fs"
	"syscall"
)

// pseudoFS names the kernel's file systems whose files describe the
// system rather than hold data (their f_type, from statfs(2)). Their
// files say they are regular and empty and then read something, so a
// follower takes each poll for a file that shrank.
var pseudoFS = map[int64]string{
	0x9fa0:     "procfs",
	0x62656572: "sysfs",
	0x64626720: "debugfs",
	0x74726163: "tracefs",
	0x73636673: "securityfs",
	0x27e0eb:   "cgroupfs",
	0x63677270: "cgroup2fs",
	0x62656570: "configfs",
	0xcafe4a11: "bpffs",
	0xde5e81e4: "efivarfs",
	0x6165676c: "pstorefs",
}

// pseudoFile returns the name of the kernel file system path is on when
// it is one of [pseudoFS]; "" otherwise, and while path does not exist.
func pseudoFile(path string) (string, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		return "", &fs.PathError{Op: "statfs", Path: path, Err: err}
	}
	return pseudoFS[int64(st.Type)], nil
}
