package advisor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/vigil-dev/vigil/llm"
)

// adviseToolName is the name of the tool the advisor calls to send a note.
const adviseToolName = "advise"

// Severity says how strongly the primary agent should weigh a note. The
// zero value, SeverityOmitted, means the advisor gave none; it is delivered
// like a nit but rendered without a severity attribute.
type Severity string

// The severities the advise tool accepts, weakest first.
const (
	// SeverityOmitted is a note sent without a severity: a plain aside.
	SeverityOmitted Severity = ""
	// SeverityNit is cleanup, simplification or a low-risk edge case: an aside.
	SeverityNit Severity = "nit"
	// SeverityConcern is a material risk, a likely wrong direction, a missing
	// constraint or a hallucinated API: an interrupting steer.
	SeverityConcern Severity = "concern"
	// SeverityBlocker says continuing would clearly waste work or produce
	// broken output: an interrupting steer.
	SeverityBlocker Severity = "blocker"
)

// Valid reports whether s is one of the severities the advise tool accepts,
// SeverityOmitted included.
func (s Severity) Valid() bool {
	switch s {
	case SeverityOmitted, SeverityNit, SeverityConcern, SeverityBlocker:
		return true
	}
	return false
}

// Interrupting reports whether a note of this severity asks to interrupt
// the primary agent: true for concern and blocker only.
func (s Severity) Interrupting() bool {
	return s == SeverityConcern || s == SeverityBlocker
}

// rank orders severities for escalation. An omitted severity weighs the
// same as a nit: both are asides, so repeating a nit without a severity
// escalates nothing.
func (s Severity) rank() int {
	switch s {
	case SeverityConcern:
		return 1
	case SeverityBlocker:
		return 2
	}
	return 0
}

// Advice is one call of the advise tool: a note and its severity.
type Advice struct {
	// Note is the advice, as the advisor wrote it (surrounding white space
	// trimmed).
	Note string `json:"note"`
	// Severity is how strongly to weigh it; SeverityOmitted when not given.
	Severity Severity `json:"severity,omitempty"`
	// Advisor names the roster's advisor that wrote it; "" for the single
	// advisor. The runtime sets it: no model can.
	Advisor string `json:"-"`
}

const adviseDescription = `Send one concrete, terse note to the agent you are watching. Use it sparingly and stay silent when nothing matters. Call it to head off work that is likely wrong or materially wasteful.

A session update delivers only its first note or first few (a blocker always goes through); later ones are held and delivered with the next update. A note that repeats an earlier one (unless at a higher severity) or says nothing concrete ("Stop.", "Done.", "No issue; continue.") is dropped. The result tells you what happened to your note.

Severity: omit it or use "nit" for a non-interrupting aside the agent sees at its next step boundary; "concern" or "blocker" interrupts the agent.`

const adviseSchema = `{
  "type": "object",
  "properties": {
    "note": {
      "type": "string",
      "description": "One concrete piece of advice for the agent you are watching. Terse, specific, actionable."
    },
    "severity": {
      "type": "string",
      "enum": ["nit", "concern", "blocker"],
      "description": "How strongly to weigh this. Omit for a plain nit."
    }
  },
  "required": ["note"],
  "additionalProperties": false
}`

// adviseTool returns the definition of the advise tool the advisor model is
// given. Each call returns a new value, so a caller may change it freely.
func adviseTool() llm.Tool {
	return llm.Tool{
		Name:        adviseToolName,
		Description: adviseDescription,
		Schema:      json.RawMessage(adviseSchema),
	}
}

// parseAdvice validates the arguments of one advise call and returns the
// advice they hold. The arguments must be a JSON object with a non-empty
// string "note" and, optionally, a "severity" of "nit", "concern" or
// "blocker"; a null severity counts as omitted. Any other argument is an
// error. Errors begin with "advise: " and are written for the advisor
// model, which sees them as the tool's error result.
func parseAdvice(args json.RawMessage) (Advice, error) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		return Advice{}, errors.New(`advise: missing required argument "note" (string)`)
	}
	if !utf8.Valid(args) {
		return Advice{}, errors.New("advise: arguments are not valid UTF-8")
	}
	if args[0] != '{' {
		return Advice{}, errors.New("advise: arguments must be a JSON object with a \"note\" string")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil {
		return Advice{}, fmt.Errorf("advise: arguments are not valid JSON: %v", err)
	}
	var unknown []string
	for name := range obj {
		if name != "note" && name != "severity" {
			unknown = append(unknown, fmt.Sprintf("%q", name))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return Advice{}, fmt.Errorf("advise: unknown argument %s (advise takes: note, severity)", strings.Join(unknown, ", "))
	}

	var a Advice
	raw, ok := obj["note"]
	if !ok || isNull(raw) {
		return Advice{}, errors.New(`advise: missing required argument "note" (string)`)
	}
	if err := json.Unmarshal(raw, &a.Note); err != nil {
		return Advice{}, fmt.Errorf("advise: argument \"note\" must be a string, got %s", jsonKind(raw))
	}
	a.Note = strings.TrimSpace(a.Note)
	if a.Note == "" {
		return Advice{}, errors.New(`advise: argument "note" must not be empty`)
	}

	if raw, ok := obj["severity"]; ok && !isNull(raw) {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return Advice{}, fmt.Errorf("advise: argument \"severity\" must be one of \"nit\", \"concern\", \"blocker\", got %s", jsonKind(raw))
		}
		a.Severity = Severity(s)
		if a.Severity == SeverityOmitted || !a.Severity.Valid() {
			return Advice{}, fmt.Errorf("advise: argument \"severity\" must be one of \"nit\", \"concern\", \"blocker\" (or omitted), got %q", s)
		}
	}
	return a, nil
}

func isNull(raw json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// jsonKind names the JSON type of a syntactically valid value.
func jsonKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// adviseResult is the text of the tool result the advisor gets back for one
// advise call: what became of its note. d is the emission guard's decision;
// r is the route the delivery policy chose, and is ignored when d refused
// the note.
func adviseResult(d guardDecision, r noteRoute) string {
	if d.Hold {
		return "Held for the next update: " + d.Reason + "."
	}
	if !d.Deliver {
		return "Dropped, not delivered: " + d.Reason + "."
	}
	var s string
	switch r.Channel {
	case channelSteer:
		s = "Delivered: the agent is interrupted with your note before its next model call."
	case channelCard:
		s = "Held as a visible card: the user has stopped the run, so it was not resumed; the note enters the agent's context when the user resumes."
	case channelWithheld:
		s = "Shown to the user, withheld from the agent: it will not see this note. Review the next updates as usual; the agent does not act on this note because it never saw it."
	default:
		s = "Queued as an aside: the agent sees it at its next step boundary, without being interrupted."
	}
	if r.Reason != "" {
		s += " (" + r.Reason + ")"
	}
	return s
}
