package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/session"
)

// Step is one completed step of a watched session, as published to the
// fleet: the entries the step appended, and the events to report before
// its end (a history rewrite, a user's resume).
type Step struct {
	// Tenant and Session name the session; both are subject tokens (see
	// [ValidName]).
	Tenant  string `json:"tenant"`
	Session string `json:"session"`
	// Seq numbers the session's steps from 1; with Session it is the
	// message id JetStream deduplicates on.
	Seq uint64 `json:"seq"`
	// Events are reported to the advisor, in order, before the step ends:
	// EventHistoryRewritten, EventUserResumed, EventRunEnded and the like
	// (never EventStepEnded: the step itself is that).
	Events []advisor.Event `json:"events,omitempty"`
	// Entries are the step's transcript entries, each a session-file line
	// ([session.EncodeEntry]).
	Entries []json.RawMessage `json:"entries"`
	// Published is when the agent published the step, for latency.
	Published time.Time `json:"published"`
}

// NewStep encodes entries as a step.
func NewStep(tenant, sess string, seq uint64, entries []session.Entry, events ...advisor.Event) (Step, error) {
	st := Step{Tenant: tenant, Session: sess, Seq: seq, Events: events}
	for _, e := range entries {
		line, err := session.EncodeEntry(e)
		if err != nil {
			return Step{}, fmt.Errorf("fleet: step %d: %w", seq, err)
		}
		st.Entries = append(st.Entries, json.RawMessage(trimNewline(line)))
	}
	return st, nil
}

// Decode returns the step's entries.
func (s Step) Decode() ([]session.Entry, error) {
	out := make([]session.Entry, 0, len(s.Entries))
	for i, line := range s.Entries {
		e, err := session.DecodeEntry(line)
		if err != nil {
			return nil, fmt.Errorf("fleet: step %d: entry %d: %w", s.Seq, i, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// MsgID is the step's JetStream message id.
func (s Step) MsgID() string { return fmt.Sprintf("%s.%d", s.Session, s.Seq) }

// The ways a note reaches the agent, as [advisor.Host] names them.
const (
	KindAside    = "aside"
	KindSteer    = "steer"
	KindCard     = "card"
	KindWithhold = "withhold"
	// KindResume asks the agent to start a run so that the steer before
	// it is acted on; it carries no advice.
	KindResume = "resume"
	// KindReviewed is the last message of each step's review, notes or
	// none: the agent counts its backlog by them. It carries no advice
	// and is not one of [Client.Notes].
	KindReviewed = "reviewed"
)

// Note is one thing the advisor of a session told its host, as published
// back to the agent.
type Note struct {
	// ID is <session>.<seq>.<index>: the index-th note of the review of
	// step Seq. It is the JetStream message id, and the client
	// deduplicates on it.
	ID      string `json:"id"`
	Tenant  string `json:"tenant"`
	Session string `json:"session"`
	Seq     uint64 `json:"seq"`
	// Kind is one of KindAside, KindSteer, KindCard, KindWithhold,
	// KindResume, KindReviewed.
	Kind   string         `json:"kind"`
	Advice advisor.Advice `json:"advice,omitzero"`
	// Advisor names the roster's advisor that wrote it ("" for the
	// single advisor).
	Advisor string `json:"advisor,omitempty"`
	// StepPublished is the Published time of the step reviewed.
	StepPublished time.Time `json:"step_published"`
}

// noteID names the index-th note of a session's step seq.
func noteID(sess string, seq uint64, index int) string {
	return fmt.Sprintf("%s.%d.%d", sess, seq, index)
}

// validName is what a tenant or session id may be: one subject token that
// is also a valid stream, consumer and key name.
var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`) })

// ValidName reports whether s can name a tenant or a session: 1 to 128
// letters, digits, '-' or '_' (a subject token, and a stream, consumer
// and key name).
func ValidName(s string) bool { return validName().MatchString(s) }

func checkNames(tenant, sess string) error {
	if !ValidName(tenant) {
		return fmt.Errorf("fleet: tenant %q: %w", tenant, errBadName)
	}
	if sess != "" && !ValidName(sess) {
		return fmt.Errorf("fleet: session %q: %w", sess, errBadName)
	}
	return nil
}

var errBadName = errors.New("want 1 to 128 letters, digits, '-' or '_'")

// StepSubject is the subject a session's steps are published on.
func StepSubject(tenant, sess string) string { return "vigil." + tenant + ".steps." + sess }

// NoteSubject is the subject a session's notes are published on.
func NoteSubject(tenant, sess string) string { return "vigil." + tenant + ".notes." + sess }

// StepStream names a tenant's stream of steps.
func StepStream(tenant string) string { return "VIGIL_" + tenant + "_STEPS" }

// NoteStream names a tenant's stream of notes.
func NoteStream(tenant string) string { return "VIGIL_" + tenant + "_NOTES" }

// LeaseBucket names a tenant's KeyValue bucket of session leases.
func LeaseBucket(tenant string) string { return "vigil_" + tenant + "_leases" }

// sessionOf returns the session token of a step or note subject.
func sessionOf(subject string) string {
	for i := len(subject) - 1; i >= 0; i-- {
		if subject[i] == '.' {
			return subject[i+1:]
		}
	}
	return subject
}

func trimNewline(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		return b[:n-1]
	}
	return b
}
