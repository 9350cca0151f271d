package agent

import "errors"

// ErrAborted is what a run interrupted by [Agent.Abort] returns, and the
// cause of the contexts the abort cancels.
var ErrAborted = errors.New("interrupted by user")

// ErrSteerInterrupt is the cause of the context of a tool call (or a
// boundary wait) that an interrupting steer cut short. A bash command killed
// this way says so in its result, as its one note of the interruption:
// "[interrupted by a steering message; the command's process group was
// killed]".
var ErrSteerInterrupt = errors.New("interrupted by a steering message")

// ErrBusy is returned by the methods that need the agent idle (Prompt,
// Resume, Compact, BranchFrom, SwitchSession) while a run or another of them
// is in progress. Use Steer or FollowUp to talk to a running agent.
var ErrBusy = errors.New("agent: busy: a run is in progress")

// ErrDeferred is returned by [Agent.AppendCustom] while a run is in
// progress: the message was queued and will be appended at the run's next
// step boundary, or when it ends, with an [EventCustomAppended] event.
var ErrDeferred = errors.New("agent: running: the custom message is queued for the next step boundary")
