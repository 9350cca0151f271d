// Package advisor attaches a second model, the advisor, to a coding agent
// (the primary): it reads the primary's transcript in deltas and sends
// short advice back through the advise tool.
//
// This package is built from its pure core outwards: the advise tool, the
// emission guard, the delivery policy and the [Host] boundary, and on them
// the [Runtime] (cursor, queue, drain loop, retries, resets). When the
// advisor's own context nears its model's window, context maintenance
// moves it to a larger model ([Options.Promote]), compacts its earlier
// reviews into a memory ([MemoryHeading]), or starts it again from a
// bounded tail of what the agent sees.
//
// # The runtime
//
// A [Runtime] is told what happens in the agent by [Runtime.Notify]. After
// each step it reads the new entries with [Host.Since] and reviews them in
// one drain goroutine: one "### Session update" user message per review,
// holding every delta that arrived since the last one, in an append-only
// context, with the advise tool and the read-only tools. A review whose
// model call fails is rolled back and retried after [RetryDelay]; after
// [MaxConsecutiveFailures] in a row the backlog is dropped with a warning.
// A review that fails after it delivered a note is continued, not redone,
// so a note is never delivered twice.
//
// # Start points and resets
//
// [Options.Start] says where reading begins: at the transcript's start, at
// its current end (an advisor enabled mid-session replays nothing), or
// primed with a bounded tail of what the primary's model sees
// ([Host.View], [Options.PrimeTokens]) for a resumed session. An
// [EventHistoryRewritten] (compaction, branch, switch, fork) empties the
// advisor's context and primes it again the same way, so the advisor never
// replays history the primary no longer sees. Primed entries wait for the
// next step and are reviewed with it.
//
// # The advise tool
//
// The advisor model gets the advise tool, whose arguments are one note and
// an optional severity. The runtime validates a call's arguments into an
// [Advice]; its errors are written for the model. The [Severity] is one
// of
//
//   - omitted or nit: a non-interrupting aside, batched into the primary's
//     context at its next step boundary;
//   - concern or blocker: an interrupting steer, injected before the
//     primary's next model call.
//
// After each call the advisor is told, in the tool's result, what became
// of its note: delivered, queued as an aside, held as a card, or dropped
// and why.
//
// # The emission guard
//
// Advisor models flood: one recorded session sent 309 notes, 114 of them
// "Stop.". Another guard over-corrected and suppressed 7 of 8 distinct
// concerns. The runtime's guard enforces in code what the advisor's
// prompt asks: at most one delivered note per update, no content-free
// notes, and no exact or near-exact repeat of an earlier note unless it
// escalates the severity. It never drops a note whose content is new.
// Every refusal has a reason that goes back to the advisor in the tool
// result, so a model learns why it was not heard.
//
// # Delivery
//
// A note the guard lets through is routed to a channel: an aside, a
// steer, or a visible card. Two pieces of state per primary session feed
// it:
//
//   - the interrupt cooldown ([Options.ImmuneTurns], advisor.immuneTurns,
//     default [DefaultImmuneTurns]): after a steer, later concerns and
//     blockers become asides until enough primary steps have completed;
//   - the user-interrupt latch: while the user has stopped the
//     run, an interrupting note becomes a card and nothing the advisor
//     does resumes the run; the user's next resume clears it.
//
// With [Options.Withhold] (advisor.allowPromptInjection: false) every
// note is withheld: the review, the guard and the advisor's
// transcript are as usual, but the note goes to [Withholder.Withhold],
// which shows it to the user only, and nothing enters the primary's
// context. The periodic mode does the same with a correction its host
// blocks.
//
// [FormatAdvisories] renders notes as the primary sees them, one
// <advisory> element each, the body XML-escaped so a note cannot break out
// of its wrapper:
//
//	<advisory severity="concern" guidance="weigh, don't blindly obey">
//	Run the tests before committing.
//	</advisory>
//
// # The periodic mode
//
// [Periodic] is the other policy over the same boundary: instead of a
// review per step it counts the tool calls and run time of the user's
// runs, and every [PeriodicOptions.EveryToolCalls] calls or
// [PeriodicOptions.EveryMinutes] minutes, once every running call has its
// real result, forks the primary's conversation onto the primary's own
// model ([PeriodicHost.Fork]) with [ReviewPrompt]. A reply whose shape is
// CORRECTION ([ParseReview]) is steered into the run it was forked in
// ([PeriodicHost.SteerRun]); anything else delivers nothing. The run's
// end cancels a review in flight.
//
// # The host
//
// The advisor never imports the agent it watches. It talks to it through
// [Host], which it declares itself: read the transcript since a cursor,
// queue an aside, steer, record a card, resume a run. The agent reports
// back a stream of [Event] values: step ends, the end of a run, user
// interrupts and resumes, history rewrites (and, for the periodic mode,
// run starts and tool calls starting and settling). Every value crossing the
// boundary is plain data, so a host may live in another process.
//
// # Concurrency
//
// Nothing in this package is global: the guard, the interrupt cooldown
// and the user-interrupt latch belong to one advisor runtime, which
// serialises calls to them.
// The functions are pure and safe to call from any goroutine.
package advisor
