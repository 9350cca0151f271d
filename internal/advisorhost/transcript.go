package advisorhost

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// UpdateType is the custom type of the session updates in an advisor
// transcript: agent-written prompts, never the user's.
const UpdateType = "advisor_update"

// MemoryType is the custom type of the summaries that replaced older
// reviews when the advisor's context was compacted.
const MemoryType = "advisor_memory"

// ReviewType is the custom type of the prompts of the periodic mode's
// reviews, each followed by the reply of the fork it was sent to.
const ReviewType = "advisor_review"

// ConsultType is the custom type of the agent's questions to its advisor
// (the ask_advisor tool), each with the session update it came with and
// followed by the advisor's answer; in the periodic mode, the consult's
// prompt to the fork.
const ConsultType = "advisor_consult"

// PromotionType is the custom type of the entries that record the
// advisor's moves to a larger model, in its transcript and, displayed and
// outside the model's context, in the agent's session. Their details are
// {"from", "to", "fromWindow", "window", "need"}.
const PromotionType = "advisor_promotion"

// Transcript is an [advisor.Recorder] that appends the advisor's turns to
// its session's advisor transcript, <artifacts>/__advisor.jsonl, in the
// session format. Update prompts are custom entries of [UpdateType] (the
// periodic mode's review prompts of [ReviewType], the agent's questions
// of [ConsultType]), so nothing counts them
// as user messages; replies are assistant messages
// with their model and usage. The file only ever grows: resets of the
// advisor's context do not touch it, and a later advisor of the same
// session appends to it.
type Transcript struct {
	mu     sync.Mutex
	s      *session.Session
	model  func() llm.Ref
	logf   func(format string, args ...any)
	closed bool
}

var _ advisor.PromotionRecorder = (*Transcript)(nil)

// TranscriptPath is where the advisor transcript of sess lives.
func TranscriptPath(sess *session.Session) string {
	return filepath.Join(sess.ArtifactsDir(), session.AdvisorTranscript)
}

// NamedTranscriptPath is where the transcript of the roster's advisor
// name lives: __advisor-NAME.jsonl; "" is [TranscriptPath].
func NamedTranscriptPath(sess *session.Session, name string) string {
	if name == "" {
		return TranscriptPath(sess)
	}
	return filepath.Join(sess.ArtifactsDir(), strings.TrimSuffix(session.AdvisorTranscript, ".jsonl")+"-"+name+".jsonl")
}

// OpenTranscript opens the advisor transcript of sess, creating it when
// there is none. model names the advisor model of each reply as it is
// recorded; logf reports write failures (nil discards them).
func OpenTranscript(sess *session.Session, model func() llm.Ref, logf func(string, ...any)) (*Transcript, error) {
	return OpenNamedTranscript(sess, "", model, logf)
}

// OpenNamedTranscript is [OpenTranscript] for the roster's advisor name
// ("": the single advisor), whose transcript is its own file.
func OpenNamedTranscript(sess *session.Session, name string, model func() llm.Ref, logf func(string, ...any)) (*Transcript, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	path := NamedTranscriptPath(sess, name)
	// The transcript is only ever appended to: its entries' bodies need
	// not stay in memory for the rest of a long session.
	opts := session.Options{DropBodies: true}
	s, err := session.Open(path, opts)
	if errors.Is(err, fs.ErrNotExist) {
		s, err = session.Create(path, session.Header{
			ID:     strings.TrimSuffix("advisor-"+name, "-") + "-" + sess.ID(),
			Cwd:    sess.Header().Cwd,
			Parent: &session.Parent{Kind: session.ParentAdvisor, ID: sess.ID(), Path: sess.File(), EntryID: sess.Leaf()},
		}, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("advisor transcript: %w", err)
	}
	return &Transcript{s: s, model: model, logf: logf}, nil
}

// Record implements [advisor.Recorder].
func (t *Transcript) Record(m llm.Message, u llm.Usage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return // a late write after Close must not reopen the file
	}
	var body session.Body
	switch {
	case advisor.IsConsult(m):
		// Before the update it may open with: a consult is counted apart.
		body = &session.Custom{CustomType: ConsultType, Content: m.Content, InContext: true}
	case m.Role == llm.RoleUser && strings.HasPrefix(m.Text(), "### Session update"):
		body = &session.Custom{CustomType: UpdateType, Content: m.Content, InContext: true}
	case m.Role == llm.RoleUser && strings.HasPrefix(m.Text(), advisor.MemoryHeading):
		body = &session.Custom{CustomType: MemoryType, Content: m.Content, InContext: true}
	case m.Role == llm.RoleUser && strings.HasPrefix(m.Text(), advisor.ReviewHeading):
		body = &session.Custom{CustomType: ReviewType, Content: m.Content, InContext: true}
	case m.Role == llm.RoleAssistant:
		var ref llm.Ref
		if t.model != nil {
			ref = t.model()
		}
		body = &session.Message{Message: m, Model: ref, Usage: u}
	default:
		body = &session.Message{Message: m}
	}
	if _, err := t.s.Append(body); err != nil {
		t.logf("advisor transcript %s: %v", t.s.File(), err)
	}
}

// RecordPromotion implements [advisor.PromotionRecorder]: the replies
// after it are the new model's.
func (t *Transcript) RecordPromotion(p advisor.PromotionRecord) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	if _, err := t.s.Append(PromotionEntry(p)); err != nil {
		t.logf("advisor transcript %s: %v", t.s.File(), err)
	}
}

// PromotionEntry is the displayed entry, outside any model's context, that
// records promotion p.
func PromotionEntry(p advisor.PromotionRecord) *session.Custom {
	details, _ := json.Marshal(map[string]any{"from": p.From, "to": p.To, "fromWindow": p.FromWindow, "window": p.Window, "need": p.Need})
	text := fmt.Sprintf("Advisor moved from %s to %s: its context needed about %d tokens of %d.", p.From, p.To, p.Need, p.FromWindow)
	return &session.Custom{CustomType: PromotionType, Content: []llm.Block{llm.Text(text)}, Display: true, Details: details}
}

// Close stops recording and closes the file. Record calls after Close do
// nothing. Close may be called more than once.
func (t *Transcript) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	t.closed = true
	return t.s.Close()
}
