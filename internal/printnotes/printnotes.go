// Package printnotes shows the advisor's notes in print mode (vigil -p),
// where no user interface does: each note the agent delivered (steered
// into the run, queued as an aside, recorded as a card or withheld) is
// one line on stderr, its severity, the advisor and its text, so that
// stdout keeps only the final answer.
//
// A note is the advisor model's words, and its model read the agent's
// tool output: everything in a line is folded onto one line and passed
// through [report.Escape], so a note cannot move the cursor, retitle the
// terminal or make a line read backwards.
package printnotes

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/internal/report"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// Lines returns the lines for the notes an agent event delivers, one per
// note:
//
//	vigil: concern from the advisor: TEXT
//	vigil: blocker from advisor tests: TEXT
//	vigil: note from the advisor (withheld: not sent to the agent): TEXT
//
// "note" stands for a note sent without a severity; a roster's advisor is
// named. Events that deliver no note give none.
func Lines(ev agent.Event) []string {
	switch ev.Type {
	case agent.EventSteerDelivered, agent.EventInjectionDelivered, agent.EventCustomAppended:
	default:
		return nil
	}
	if ev.Entry == nil || ev.Err != nil || !history.IsAdvice(*ev.Entry) {
		return nil
	}
	var text, withheld string
	switch b := ev.Entry.Body.(type) {
	case *session.Custom:
		text = llm.Message{Content: b.Content}.Text()
		if delivery(b.Details) == "withheld" {
			withheld = " (withheld: not sent to the agent)"
		}
	case *session.Message:
		text = b.Message.Text()
	}
	notes, ok := advisor.ParseAdvisories(text)
	if !ok {
		notes = []advisor.Advice{{Note: text}}
	}
	var out []string
	for _, n := range notes {
		sev := string(n.Severity)
		if sev == "" {
			sev = "note"
		}
		who := "the advisor"
		if n.Advisor != "" {
			who = "advisor " + n.Advisor
		}
		out = append(out, report.Escape(oneLine(fmt.Sprintf("vigil: %s from %s%s: %s", sev, who, withheld, n.Note))))
	}
	return out
}

// To returns an event subscriber that writes [Lines] to w, one write a
// line, from whichever goroutine emits the event.
func To(w io.Writer) func(agent.Event) {
	var mu sync.Mutex
	return func(ev agent.Event) {
		lines := Lines(ev)
		if len(lines) == 0 {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
	}
}

// delivery is the note's delivery (steer, aside, card, withheld) as its
// details record it; "" when they do not.
func delivery(details json.RawMessage) string {
	var d struct {
		Delivery string `json:"delivery"`
	}
	_ = json.Unmarshal(details, &d)
	return d.Delivery
}

// oneLine folds white space, line breaks included, to single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
