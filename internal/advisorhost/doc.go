// Package advisorhost is the glue between vigil's built-in agent and its
// advisor: a [Host] implements [advisor.Host] over an [agent.Agent], and
// forwards the agent's events to the advisor runtime as [advisor.Event]
// values. Neither the agent nor the advisor imports the other; this
// package imports both.
//
// # Delivery
//
//   - Since reads the agent's current session after the cursor
//     ([session.Session.Since]); choosing what to show the advisor is the
//     runtime's job.
//   - Aside queues the note; the [agent.Hook] returned by [Host.Hook]
//     drains every queued note, formatted by [advisor.FormatAdvisories],
//     into one custom entry of type [CustomType] (displayed, in context)
//     at the agent's next step boundary.
//   - Steer queues an interrupting steer ([agent.Agent.SteerCustomWith])
//     of type [CustomType] (displayed, in context); a blocker's may also
//     abort the model request in flight, which is sent again with it
//     ([agent.SteerOptions].AbortRequest), a concern's waits for the
//     boundary.
//   - Card writes an [agent.Agent.AppendCustom] of type [CustomType],
//     displayed but not in context; [agent.ErrDeferred] (queued while a
//     run holds the agent) counts as success.
//   - Resume starts [agent.Agent.Resume] on a goroutine the Host owns;
//     [Host.Close] cancels and waits for it. A run already going is left
//     alone.
//   - Withhold (advisor.allowPromptInjection: false) writes the note as a
//     custom entry of type [CustomType], displayed and not in context,
//     with delivery [DeliveryWithheld]: through the hook at the run's next
//     step boundary, at the run's end if no boundary took it, or at once
//     when no run is going. The model never reads it.
//
// # Events
//
// [Host.Forward] subscribes to the agent and maps its events:
//
//	agent event                                advisor event
//	step_end                                   step_ended, Cursor = session length
//	turn_end, idle                             run_ended
//	aborted                                    user_interrupted
//	turn_start with cause prompt or follow_up  user_resumed
//	turn_start with cause resume, the user's   user_resumed
//	history_rewritten                          history_rewritten, Cursor = session length
//
// A turn_start with cause resume that opens with [ResumeText] is a run
// the advisor started ([Host.Resume]), not a user resume, and is not
// forwarded; nor is any other event. Any other resume is the user's
// (vigil's resume command).
//
// # The periodic mode
//
// [Periodic] adds to a Host what the advisor's periodic mode needs
// ([advisor.PeriodicHost]): [Periodic.Forward] reports runs and tool
// calls (a task call's subagent calls nested under it, in a numbering of
// their own); [Periodic.Fork] forks the session at its last settled point
// onto the agent's own model with the agent's own request
// ([agent.Agent.Fork]), so the provider's cache is warm, and runs no tool
// of the reply; [Periodic.SteerRun] steers a correction into the run it
// names only ([agent.Agent.SteerRun]), and refuses when
// advisor.allowPromptInjection is false.
package advisorhost
