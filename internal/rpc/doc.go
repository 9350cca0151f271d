// Package rpc serves vigil's RPC protocol (docs/rpc.md): JSON commands
// read line by line from a reader (prompt, steer, follow_up, approve,
// abort, resume, command, get_state), and the replies and every agent
// event written as JSON lines. In the approval mode, approve answers an
// approval_request; when the input ends, the calls still waiting are
// denied, as no one is left to answer. A prompt, a resume and /compact run in the
// background as the current turn, so steer, follow_up and abort reach
// them; a second one is refused until the first has said idle.
//
// The server drives an [App], the small interface of what it needs from
// the agent and its session; the CLI's app satisfies it. [LineWriter]
// writes the JSON lines, for the RPC mode and the JSON mode alike.
package rpc
