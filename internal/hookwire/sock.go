package hookwire

// Sockets through package syscall rather than package net: a program
// that imports net is linked against the C library (its resolver) where
// cgo is on, the default, and a dynamically linked program takes
// milliseconds longer to start than a static one. The hook needs only a
// unix socket, and a loopback probe.

import (
	"context"
	"errors"
	"net/netip"
	"os"
	"syscall"
	"time"
)

// socket makes a socket that is closed on exec.
func socket(family int, nonblock bool) (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM, 0)
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	syscall.CloseOnExec(fd)
	if nonblock {
		if err := syscall.SetNonblock(fd, true); err != nil {
			syscall.Close(fd)
			return -1, os.NewSyscallError("setnonblock", err)
		}
	}
	return fd, nil
}

// dialUnix connects to the unix socket at path. The connection's reads
// and writes wait in Go's poller, so its deadlines work. A listener too
// busy to take it (its backlog full) is an error, not a wait.
func dialUnix(ctx context.Context, path string) (*os.File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fd, err := socket(syscall.AF_UNIX, true)
	if err != nil {
		return nil, err
	}
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "connect", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// listening reports whether something accepts TCP connections on addr,
// an IP address and port, waiting at most d.
func listening(addr string, d time.Duration) bool {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return false
	}
	family, sa := syscall.AF_INET6, syscall.Sockaddr(&syscall.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()})
	if ap.Addr().Is4() {
		family, sa = syscall.AF_INET, &syscall.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	}
	fd, err := socket(family, false)
	if err != nil {
		return false
	}
	defer syscall.Close(fd)
	// A blocking connect gives up after the send timeout.
	tv := syscall.NsecToTimeval(d.Nanoseconds())
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv)
	end := time.Now().Add(d)
	for {
		err := syscall.Connect(fd, sa)
		switch {
		case err == nil, errors.Is(err, syscall.EISCONN):
			return true
		case (errors.Is(err, syscall.EINTR) || errors.Is(err, syscall.EALREADY)) && time.Now().Before(end):
			continue // a signal cut the wait short: the connect goes on
		}
		return false
	}
}
