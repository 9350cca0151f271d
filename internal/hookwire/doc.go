// Package hookwire is the hook command's side of the contract with the
// sidecar (package internal/sidecar): the hook events and the fields
// vigil reads of them, the sidecars' folder and each session's socket,
// the HTTP exchange over that socket, and starting a sidecar detached
// when none answers. Both `vigil hook` (through internal/hook) and the
// small `vigil-hook` binary run it.
//
// It imports the standard library only, and not net/http: the hook is
// a process per agent event, and its cost is mostly what the process
// starts with. The HTTP it speaks is the little the sidecar answers:
// one POST, Connection: close, a reply with Content-Length, chunked or
// ended by the close.
//
// Every failure fails open: the caller prints nothing and exits 0, and
// [Log] says why in the sidecars' folder (hook.log).
package hookwire
