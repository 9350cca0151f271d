package advisor

import (
	"encoding/xml"
	"fmt"
	"strings"
)

// channel is how a delivered note reaches the primary agent.
type channel int

// The delivery channels.
const (
	// channelAside queues the note without interrupting; the host batches
	// all queued asides into one message at the primary's next step
	// boundary.
	channelAside channel = iota
	// channelSteer interrupts the primary: the note is injected before its
	// next model call, and a stopped run that the agent ended on its own is
	// resumed.
	channelSteer
	// channelCard records the note as a visible card in the transcript
	// without resuming the run; it enters the primary's context when the
	// user resumes.
	channelCard
	// channelWithheld keeps the note out of the primary's context
	// altogether ([Options.Withhold]): the user is shown it, the agent
	// never is, and no run is interrupted or resumed.
	channelWithheld
)

// String returns "aside", "steer" or "card".
func (c channel) String() string {
	switch c {
	case channelAside:
		return "aside"
	case channelSteer:
		return "steer"
	case channelCard:
		return "card"
	case channelWithheld:
		return "withheld"
	}
	return fmt.Sprintf("Channel(%d)", int(c))
}

// routeInput is the state of the primary that decides a note's channel.
type routeInput struct {
	// UserStopped is the user-interrupt latch: the user stopped the run and
	// has not resumed it since (see [interruptLatch]).
	UserStopped bool
	// Streaming says the primary's loop is running a step now.
	Streaming bool
	// Aborting says an abort of the primary is in progress.
	Aborting bool
	// Immune says the interrupt cooldown is active (see [interruptCooldown]).
	Immune bool
	// Withhold says no note may enter the primary's context
	// ([Options.Withhold]).
	Withhold bool
}

// noteRoute is the channel chosen for a note and, when the note asked for
// more than it gets, why.
type noteRoute struct {
	Channel channel
	// Reason explains a downgrade (an interrupting note sent as an aside or
	// a card); empty otherwise.
	Reason string
}

// withheldReason is the reason a withheld note's route gives.
const withheldReason = "advisor.allowPromptInjection is false"

// routeAdvice chooses the channel of a note that passed the emission
// guard. The rules apply in order:
//
//  0. with in.Withhold, every note is withheld, whatever its severity;
//  1. a nit, or a note without a severity, is an aside;
//  2. while the user has stopped the run (in.UserStopped), an interrupting
//     note becomes a card if the primary is idle or being aborted, so that
//     advice never resumes a run the user stopped; a run the user stopped
//     but something else restarted (the primary is streaming and not
//     aborting) is steered as usual, so the note is not stranded mid-run;
//  3. during the interrupt cooldown (in.Immune), it is an aside;
//  4. otherwise it is a steer.
func routeAdvice(sev Severity, in routeInput) noteRoute {
	switch {
	case in.Withhold:
		return noteRoute{Channel: channelWithheld, Reason: withheldReason}
	case !sev.Interrupting():
		return noteRoute{Channel: channelAside}
	case in.UserStopped && (in.Aborting || !in.Streaming):
		return noteRoute{Channel: channelCard, Reason: "the user stopped the run; advice does not resume it"}
	case in.Immune:
		return noteRoute{Channel: channelAside, Reason: "interrupt cooldown: a recent interrupt is still being acted on, so this " + string(sev) + " was sent as an aside"}
	}
	return noteRoute{Channel: channelSteer}
}

// DefaultImmuneTurns is the default of the advisor.immuneTurns setting.
const DefaultImmuneTurns = 3

// interruptCooldown is the interrupt cooldown of one primary session.
// After a note is delivered as a steer, later concerns and blockers become asides until
// the step that was running when it was delivered and Turns more primary
// steps have completed. (The steer takes effect only at the next step, so
// the step in flight does not count.) Nits are unaffected.
//
// The zero value has Turns 0 and is never active. It is not safe for
// concurrent use; its owner serialises calls.
type interruptCooldown struct {
	// Turns is how many primary steps the cooldown lasts; 0 turns it off.
	Turns int

	completed int // primary steps completed
	start     int // the step in flight at the last steer, 1-based
	started   bool
}

// StepEnded records that a primary step completed.
func (im *interruptCooldown) StepEnded() { im.completed++ }

// Steered records that a note was delivered as a steer, which starts the
// cooldown (again). Asides and cards do not start it.
func (im *interruptCooldown) Steered() {
	im.start = im.completed + 1
	im.started = true
}

// Active reports whether the cooldown is running: a steer was delivered,
// Turns is positive, and fewer than Turns steps have completed after the
// step in flight at that steer.
func (im *interruptCooldown) Active() bool {
	return im.started && im.Turns > 0 && im.completed < im.start+im.Turns
}

// Reset forgets the steps and the last steer, for a new conversation.
// Turns is kept.
func (im *interruptCooldown) Reset() {
	*im = interruptCooldown{Turns: im.Turns}
}

// interruptLatch is the user-interrupt latch of one primary session. It is
// set when the user stops the run (Esc, a cancel from a client) and cleared when the
// user resumes it (a new message, a continue, a steer or follow-up the user
// typed). Aborts the user did not ask for, and prompts the agent starts by
// itself, do neither. While it is set, interrupting advice becomes a card
// and nothing the advisor does resumes the run (see [routeAdvice]).
//
// The zero value is clear.
type interruptLatch struct {
	stopped bool
}

// UserInterrupted sets the latch.
func (l *interruptLatch) UserInterrupted() { l.stopped = true }

// UserResumed clears the latch.
func (l *interruptLatch) UserResumed() { l.stopped = false }

// Stopped reports whether the user has stopped the run and not resumed it.
func (l *interruptLatch) Stopped() bool { return l.stopped }

// advisoryGuidance is the framing the primary gets with every note; its
// system prompt never mentions advisories, so the tag is its only cue.
const advisoryGuidance = "weigh, don't blindly obey"

// FormatAdvisories renders notes as the content of one message to the
// primary, in order, joined by newlines. Each note is
//
//	<advisory severity="concern" guidance="weigh, don't blindly obey">
//	BODY
//	</advisory>
//
// with no severity attribute when the severity was omitted (an explicit
// nit gives severity="nit"), and advisor="NAME" first when a roster's
// advisor wrote it. BODY is the note XML-escaped by
// [xml.EscapeText], line by line so that a multi-line note keeps its line
// breaks; nothing in it can close the wrapper. A steer or a card carries
// one note; an aside batch carries every note queued since the last step
// boundary.
func FormatAdvisories(notes []Advice) string {
	var b strings.Builder
	for i, n := range notes {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("<advisory ")
		if n.Advisor != "" {
			b.WriteString(`advisor="`)
			escapeText(&b, n.Advisor)
			b.WriteString(`" `)
		}
		if n.Severity != SeverityOmitted {
			b.WriteString(`severity="`)
			escapeText(&b, string(n.Severity))
			b.WriteString(`" `)
		}
		b.WriteString(`guidance="` + advisoryGuidance + "\">\n")
		escapeLines(&b, n.Note)
		b.WriteString("\n</advisory>")
	}
	return b.String()
}

// escapeLines writes s XML-escaped line by line, so that its line breaks
// are kept (a CR before a line break is dropped).
func escapeLines(b *strings.Builder, s string) {
	for j, line := range strings.Split(s, "\n") {
		if j > 0 {
			b.WriteByte('\n')
		}
		escapeText(b, strings.TrimSuffix(line, "\r"))
	}
}

// escapeText writes s XML-escaped. EscapeText writes to a strings.Builder,
// which never fails.
func escapeText(b *strings.Builder, s string) {
	_ = xml.EscapeText(b, []byte(s))
}
