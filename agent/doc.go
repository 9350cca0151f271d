// Package agent is vigil's coding-agent loop: it sends a session's
// conversation to a model, runs the tools the model calls, writes every
// message to the session, and lets a user and an advisor steer it while
// it works.
//
// # Turns and steps
//
// A step is one model request: the assistant message it produces and the
// results of that message's tool calls. A turn is the steps that follow
// one opening message (a prompt, a resume, a follow-up), until the model
// answers without calling a tool and nothing is delivered at the last
// boundary. [Agent.Prompt] runs a turn, then one more turn per queued
// follow-up, and returns when the last one ends; that is a run.
//
// Tool calls of one step run one after the other, in the order the model
// wrote them, on the loop goroutine. Each result is appended to the
// session (as a user message holding one tool_result block) as soon as its
// call returns, so a crash loses at most the running call. Requests merge
// consecutive messages of one role, so the step's results and what a
// boundary delivers after them travel in one user message.
//
// # Step boundaries, steering and hooks
//
// A boundary follows every step that was not aborted and did not fail.
// There, in order:
//
//  1. every [Hook]'s Boundary is called, with a bounded context;
//  2. the steers queued by [Agent.Steer] and [Agent.SteerCustom] are
//     appended, in the order they were queued;
//  3. the messages the hooks returned are appended, in hook order;
//  4. the custom messages [Agent.AppendCustom] queued during the run are
//     appended.
//
// So a steer is in the next request after the step's tool results. If the
// step was the turn's last (no tool calls), a delivered steer or a
// model-visible injection continues the turn with another step; queued
// custom messages do not. Steers queued while no turn runs (also one that
// arrives after a turn's last boundary delivered) are appended right
// after the next turn's opening message, before its first request;
// [Agent.SteerRun] queues one for the run in progress only, dropped if
// that run ends without delivering it.
//
// An interrupting steer cancels the running tool call's context with cause
// [ErrSteerInterrupt] (bash kills the command's process group at once),
// answers the step's remaining calls as not run, and cancels the hooks'
// context at the boundary. It does not cut the model's reply: a steer
// that arrives while the model streams makes that step's calls all
// skipped.
//
// A steer with [SteerOptions].AbortRequest ([Agent.SteerCustomWith]; an
// advisor's blocker) does cut it. Arriving while the step's model request
// is in flight, it cancels that request (cause ErrSteerInterrupt), writes
// a [CustomRequestAborted] marker (displayed, not in context, with the
// request's usage; nothing of the cut reply is written, as the model is
// to answer anew with the steer), emits request_aborted, delivers the
// queued steers and sends the request again, in the same step. It is
// delivered when it aborts, so it aborts one request at most. Queued
// when a request is about to be sent, it is delivered before it; while
// tools or hooks run, it interrupts them as any interrupting steer does.
// A reply that arrived whole before the cancel took effect is kept, and
// its calls are skipped. A user abort wins: once the run's context is
// cancelled no request is sent again.
//
// [Agent.FollowUp] queues a message that opens a new turn once the
// current one ends.
//
// # Abort
//
// [Agent.Abort] is a user interrupt. It cancels the run's context with
// cause [ErrAborted]: the model stream ends at once (the part received is
// kept as an assistant entry with stop reason "aborted", without its tool
// calls), the running tool call is cancelled and the remaining ones are
// answered as not run, a custom entry of type [CustomAborted] reading
// "[Interrupted by user]" (displayed and sent to the model) marks the
// place, and Prompt returns ErrAborted. Cancelling Prompt's context does
// the same with that context's cause.
//
// # Errors
//
// A model error ends the turn and the run: a custom entry of type
// [CustomError] (displayed, not sent to the model) records it, with the
// partial reply in its details, and Prompt returns it. Retrying is the
// model's job (llm.WithRetry). The one exception: when compaction is
// enabled, a request refused with llm.ContextTooLong before anything
// streamed is retried once after a compaction.
//
// # Compaction
//
// Before each request, if the context (the last reply's reported prompt
// and output tokens, plus an estimate of what was appended since) exceeds
// [CompactionOptions.Threshold] of the model's context window, the agent asks the
// model, in a separate request, to summarise the older part of the
// context, keeps the most recent entries worth about KeepRecentTokens
// (never starting at a tool result), and appends a session.Compaction.
// The next request carries the summary instead of the entries it
// replaces. [Agent.Compact] does the same on demand. An automatic
// compaction that fails is reported in compaction_end; the request goes
// ahead uncompacted and the turn does not try again.
//
// # Advisory tags
//
// An advisor's notes reach the model as <advisory …> elements, and the
// model must be able to trust that tag: nothing but a real note may carry
// it. Real notes are custom entries of type [CustomAdvisor] (or
// "advisor:KIND", "advisor-KIND"), which only a host writes, through
// SteerCustom, SteerRun, AppendCustom or a hook's Injection.Custom. In
// everything else the model is sent (the system prompt and the AGENTS.md
// in it, prompts, steers, follow-ups, a hook's Injection.Text, tool
// results and the files and command output in them, subagents' prompts
// and answers, other custom entries, compaction and branch summaries, and
// a compaction's summary request) the agent escapes each advisory tag: its
// opening bracket becomes "&lt;", in any case and spacing, with
// look-alike brackets and letters and invisible characters inside the
// name, and a line after the escaped text says what "&lt;" stands for, so
// the model can still quote or edit such a file exactly. A summary tag in
// a summary, which would end its <summary> element early, is escaped too.
// The model's own replies are sent as written (their thinking is signed).
// The escape is made on the way to the model: the session keeps every
// byte as it was said.
//
// # Events
//
// [Agent.Subscribe] receives every event. A run emits them in this order
// (the notation is that of a grammar: [x] is optional, {x} repeats, a|b
// is one or the other):
//
//	run        = [rewrite] turn {[follow_up_delivered] turn} [aborted] {custom_appended} idle
//	turn       = turn_start {steer_delivered} step {step} turn_end
//	step       = [rewrite] [compaction] step_start request {request_aborted request}
//	             [message_end] {tool} step_end [boundary | aborted]
//	           | [rewrite] compaction aborted
//	request    = {steer_delivered} [compaction] {message_delta}
//	tool       = [approval] tool_start {subagent_event} tool_end | [approval] tool_end
//	approval   = approval_request approval_end
//	boundary   = {steer_delivered} {injection_delivered} {custom_appended}
//	compaction = compaction_start compaction_end [history_rewritten]
//	rewrite    = history_rewritten
//
// In words:
//
//   - turn_start comes after the opening message is written and carries
//     it; a follow-up's turn is preceded by follow_up_delivered with the
//     same entry.
//   - A compaction before step_start is one the threshold triggered; one
//     after step_start is the request's overflow retry. history_rewritten
//     follows compaction_end only when the compaction was written.
//   - message_end carries the assistant entry. It is missing when the
//     request failed, or was aborted before anything arrived.
//   - request_aborted says a steer aborted the request in flight: the
//     message_delta events before it were of a reply that is dropped.
//     The steers delivered after it (and any an AbortRequest steer made
//     the agent deliver before a request) go into the request that
//     follows, in the same step.
//   - Each tool call has tool_start then tool_end (carrying the result
//     entry); a call skipped by an interrupt has tool_end alone, with
//     Skipped set. A task call's subagent events come between them.
//   - A call that waits for the user's approval ([Approvals]) is preceded
//     by approval_request and approval_end; a denied call then has
//     tool_end alone, with Denied set, and so has one whose wait an
//     interrupt cut short (Skipped).
//   - step_end lists every entry the step wrote, in order: the
//     request_aborted markers, the assistant entry, the results, or the
//     error entry (the steers delivered within the step are reported by
//     their steer_delivered events only).
//   - The boundary's hooks run after step_end. An aborted step ends with
//     step_end then aborted, a failed one with step_end alone; turn_end
//     follows either.
//   - turn_end closes every turn_start. Its Err is the error that ended the
//     run, if any (ErrAborted after Abort).
//   - If the run is interrupted between two turns, aborted follows the
//     first turn's turn_end and no follow-up starts.
//   - idle is the last event of every run. Custom messages queued during
//     the run are written just before it; one a subscriber appends while
//     handling idle is written right after it, with its custom_appended.
//
// Outside a run: [Agent.AppendCustom] on an idle agent emits
// custom_appended; [Agent.Compact] emits compaction; [Agent.BranchFrom] and
// [Agent.SwitchSession] emit history_rewritten. Every event that reports
// an entry is emitted after the entry is in the session.
//
// # Approval
//
// With [Options.Approvals] set, the calls of the tools it names (vigil
// names bash, write and edit) wait for the user's approval before they
// run: once, always (that tool, for the rest of the session) or deny. A
// denied call is not an error of the agent: its result, which the model
// reads, is [DeniedText] and the user's message. The wait lasts as long
// as the user takes; Abort and an interrupting steer end it, as they end
// a running call.
//
// # Concurrency
//
// An Agent is safe for concurrent use. It starts no goroutines of its own:
// the loop runs on the goroutine that called Prompt or Resume, and tool
// calls, hooks and subagents run on it too.
//
// Everything that writes the session or emits events holds the agent's
// busy token: a run, Compact, BranchFrom, SwitchSession, and AppendCustom
// while idle. One holds it at a time; the others fail with [ErrBusy]
// (AppendCustom queues instead, returning [ErrDeferred]), except that
// they wait for an AppendCustom of the idle agent, which holds it for one
// write: a card or warning a host shows in the background never makes
// the user's prompt fail. Hence the
// agent's entries are written in the order of the grammar above, and
// events are delivered one at a time, synchronously, on the goroutine
// holding the token, in the order of the grammar: a subscriber is never
// called concurrently with itself or with another subscriber of the same
// agent, and the loop waits for it. Subscribers run in the order they
// subscribed.
//
// Steer, SteerCustom, SteerCustomWith, SteerRun, FollowUp, Abort, State
// and Subscribe never wait for the loop: they take a short lock and
// return; Fork takes none. They may be called from any goroutine, from
// subscribers and from hooks.
//
// Every wait of the loop is bounded by a context: the model stream,
// tool calls and approval waits by the run's (which Abort cancels), the hooks by a boundary
// deadline (Options.BoundaryTimeout, 30 seconds by default) that
// interrupting steers and Abort also end. A hook that ignores its context
// breaks this guarantee; the contract of [Hook] forbids it.
//
// The session may be read by anyone at any time (the advisor follows it
// with session.Since). Appending to it behind the agent's back while it
// runs breaks the pairing of tool calls and results; an append or branch
// made while the agent is idle is picked up at the next run (a moved leaf
// emits history_rewritten with reason branch).
//
// # Cost
//
// The agent keeps the model's view of the session up to date as it
// appends, so a step costs the same however long the session is: only a
// history rewrite reads the whole branch again.
package agent
