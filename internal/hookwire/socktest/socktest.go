// Package socktest serves fakes of a sidecar on its Unix socket, for the
// tests of what talks to one: the hooks, the hook wire and the MCP server.
package socktest

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"testing"
)

// Serve answers on the socket at path with Go's HTTP server and h, as the
// sidecar does, until the test ends.
func Serve(t testing.TB, path string, h http.Handler) {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
}

// ServeRaw answers every connection on the socket at path with reply,
// written as it is (a malformed or hostile answer), after reading the
// request's head and a two-byte body, and closes it; until the test ends.
func ServeRaw(t testing.TB, path string, reply string) {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			var head []byte
			b := make([]byte, 1)
			for !bytes.HasSuffix(head, []byte("\r\n\r\n")) {
				if _, err := c.Read(b); err != nil {
					break
				}
				head = append(head, b[0])
			}
			io.ReadFull(c, make([]byte, 2)) // the body, {}: unread, the close would reset
			io.WriteString(c, reply)
			c.Close()
		}
	}()
}
