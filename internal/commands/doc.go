// Package commands is vigil's slash commands: the [Registry] of them,
// the parsing of "/name args" ([Parse]), the /help text, and what each
// command does, against the small [Target] interface of the session and
// advisor operations it needs. Every front end runs the same registry:
// the print and JSON modes and the RPC protocol today (docs/rpc.md), the
// terminal UI when it lands; each satisfies [Target] over its agent.
//
// A command that changes the session or the agent is refused while a
// turn runs ([Target.Busy]); one that only reads runs at any time.
package commands
