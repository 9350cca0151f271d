// Package fleet runs vigil's advisors as a service on NATS JetStream, for
// agents by the hundred: agents publish each completed step to a durable
// stream, a pool of workers (`vigil serve`) reviews them, and the notes
// come back on the session's subject.
//
// The wire (wire.go): a [Step] is one completed step of one session (its
// entries as session-file lines), published on
// vigil.<tenant>.steps.<session> with the message id <session>.<seq>, so
// JetStream drops a retried publish; a [Note] is one note of the advisor,
// published on vigil.<tenant>.notes.<session> with its id
// <session>.<seq>.<index> as message id, so a step reviewed twice (a
// redelivery after a crash) publishes its notes once.
//
// Each tenant has its own streams and lease bucket ([Ensure], with the
// bounds of [Limits]). A [Worker] serves one tenant: it takes new sessions
// from a durable consumer its peers share (the queue group), owns each
// session through a lease key with a time to live in a KeyValue bucket,
// and reviews the session's steps in order through a durable consumer of
// its own, acknowledging a step only once its notes are published. When a
// worker dies its leases expire, another worker sees the expiry and takes
// the session over from the last acknowledged step, its advisor primed
// from a bounded tail of the steps already reviewed.
//
// A [Client] is the agent's side: it publishes completed steps, their
// secrets redacted first ([ClientOptions.Redactor]), failing
// open (an unreachable fleet drops the step and counts it, within a
// bounded wait), and delivers the notes of its session once each.
package fleet
