// Package attach edits the hook settings of Claude Code and Codex so that
// they run `vigil-hook AGENT` (or `vigil hook AGENT`) on the events
// vigil's advisor needs, and removes those entries again; and installs
// and removes vigil's extension in pi and omp.
//
// # What it edits
//
// Both agents read the same shape: a top-level "hooks" object mapping an
// event name to a list of groups, each with an optional "matcher" and a list
// of handlers such as {"type": "command", "command": "...", "timeout": 10}.
// Claude Code keeps it in .claude/settings.local.json (a project's
// settings that are not shared: vigil's hooks name the user's binary,
// and may carry hookd's secret; an older vigil wrote
// .claude/settings.json, [Locations.SharedFile]) or
// ~/.claude/settings.json (user); Codex in $CODEX_HOME/hooks.json. A
// project file attach makes is listed in the repository's
// .git/info/exclude ([ExcludeFromGit]).
//
// # How it edits
//
// Files must be plain JSON, which encoding/json's scanner checks (it also
// bounds nesting); they are then parsed with github.com/tailscale/hujson
// into a tree that remembers every byte of the source, whitespace
// included, so packing an untouched tree gives back the file as it was.
// [Attach] and [Detach] walk the tree and change only the values they
// must, without reformatting anything: a new group is appended to an
// event's list, a new event to the end of "hooks", and the whitespace
// copied from the neighbouring entries. Other keys, other tools' hooks and
// their order are left alone, and attaching then detaching gives back the
// original bytes when vigil added everything it removes.
//
// vigil's own handlers are recognised by their command alone: a command
// whose first word is a file named vigil* and whose next two words are
// "hook" and the agent, or whose first word is a file named vigil-hook*
// (the small hook binary, [IsHookBinary]) and whose next word is the
// agent. That is how a second attach finds the first one (and only
// rewrites vigil's words if the binary moved or changed), and how [Detach]
// removes exactly vigil's handlers, with the groups and events it leaves
// empty.
//
// # Files
//
// [PlanAttach] and [PlanDetach] read a file and compute its new content;
// [Plan.Diff] shows the change as a unified diff and [Plan.Write] writes it:
// a backup of the old file beside it, then a temporary file in the same
// folder renamed over the original, with the original's mode. A file that
// is not valid JSON is never written; its error names FILE:LINE:COL.
//
// # pi and omp
//
// pi and omp have no command hooks. For them vigil writes its extension,
// extension/vigil.ts (embedded with go:embed), into the agent's
// extensions folder ([PlanExtension], [Plan.WriteExtension]); one line of
// it holds its configuration ([ExtensionConfig]: the agent, the hook
// command, the folders attach created), which [ParseExtension] reads
// back and [PlanExtensionDetach] uses to give the folders back as they
// were. The extension forwards the agent's events, in Claude Code's
// shape, to the session's sidecar ([ExtensionEvents]).
//
// # vigil's MCP server
//
// For Claude Code and Codex, [AttachMCP] and [DetachMCP] register and
// remove vigil's MCP server (`vigil mcp`, the ask_advisor tool) under the
// name [MCPServerName]: in Claude Code's ~/.claude.json, under
// "projects"[PROJECT] for a project (its local scope, not shared:
// [PlanMCPAttachIn]; an older vigil wrote the shared PROJECT/.mcp.json)
// or at the top level for the user, edited like the hooks (mcpjson.go), and in Codex's
// config.toml as a [mcp_servers.vigil] table, read with a TOML parser and
// edited as text, each edit checked by parsing its result (mcptoml.go).
// An entry of that name that is not vigil's is left alone, with a
// warning. [PlanMCPAttach] and [PlanMCPDetach] make the [Plan]s.
//
// [Status] reports, for each agent and scope, whether vigil is attached and
// with which binary, and its MCP server ([MCPStatus]); [Attachment.Report]
// is its row in `vigil status`.
//
// # The commands
//
// [Request.Attach] and [Request.Detach] are `vigil attach` and `vigil
// detach` once the command line has found the files: they make the
// plans above, write them (or print their diffs for a dry run) and say
// what they did.
package attach
