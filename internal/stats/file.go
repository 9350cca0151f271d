package stats

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// The custom types of the prompts that start an advisor's review in its
// transcript (docs/session-format.md): the session updates, and the
// periodic mode's review prompts. vigil writes them; they are never
// prompts.
const (
	advisorUpdate = "advisor_update"
	advisorReview = "advisor_review"
	// advisorConsult is a question of the agent to its advisor
	// (ask_advisor): counted apart from the reviews.
	advisorConsult = "advisor_consult"
	// requestAborted marks a model request a steer aborted (agent's
	// CustomRequestAborted): a turn, with the request's model and usage
	// in its details.
	requestAborted = "request_aborted"
)

// file is what one session file holds, once read and filtered.
type file struct {
	path    string
	header  session.Header
	role    Role
	prompts int
	// title is the first prompt's first line; updated the time of the
	// last entry.
	title    string
	updated  time.Time
	reviews  int
	consults int
	usage    Usage
	models   map[string]*Model
	// active is set when the file has an entry, or was created, at or
	// after Options.Since.
	active bool
	// problem is set when the file could not be read whole.
	problem *Problem
}

// readFile reads the file at path; nested says it lies in an artifacts
// folder. A file read in part carries its problem; a file whose header
// cannot be read is only a problem, and nothing in it counts.
func (s *scanner) readFile(path string, nested bool) (*file, *Problem) {
	h, entries, err := session.ReadFile(path)
	var prob *Problem
	if err != nil {
		var torn *session.TruncatedError
		var bad *session.LineError
		switch {
		case errors.As(err, &torn):
			prob = &Problem{File: path, Kind: ProblemTorn, Error: err.Error()}
		case errors.As(err, &bad) && bad.Line > 1:
			prob = &Problem{File: path, Kind: ProblemBadLine, Error: err.Error()}
		default:
			return nil, &Problem{File: path, Kind: ProblemUnreadable, Error: err.Error()}
		}
	}
	f := &file{path: path, header: h, role: roleOf(path, h, nested), models: make(map[string]*Model), problem: prob}
	since := s.opts.Since
	f.active = since.IsZero() || !h.Created.Before(since)
	for _, e := range ownEntries(h, entries) {
		if !since.IsZero() && e.Time.Before(since) {
			continue
		}
		f.active = true
		if e.Time.After(f.updated) {
			f.updated = e.Time
		}
		switch b := e.Body.(type) {
		case *session.Message:
			switch {
			case b.Message.Role == llm.RoleAssistant:
				f.addTurn(s, b)
			case f.role == RolePrimary && isPrompt(b.Message):
				f.prompts++
				if f.title == "" {
					f.title = titleOf(b.Message)
				}
			}
		case *session.Custom:
			if f.role == RoleAdvisor && (b.CustomType == advisorUpdate || b.CustomType == advisorReview) {
				f.reviews++
			}
			if f.role == RoleAdvisor && b.CustomType == advisorConsult {
				f.consults++
			}
			if b.CustomType == requestAborted {
				if m, ok := abortedTurn(b); ok {
					f.addTurn(s, m)
				}
			}
		}
	}
	return f, nil
}

// addTurn counts one assistant message.
func (f *file) addTurn(s *scanner, m *session.Message) {
	ref := llm.Ref{Provider: m.Model.Provider, Model: m.Model.Model}
	key := ref.String()
	mu := f.models[key]
	if mu == nil {
		mu = &Model{Model: key}
		mu.Priced = key != ""
		f.models[key] = mu
	}
	u := Usage{Turns: 1, Tokens: tokensOf(m.Usage)}
	price, ok := s.price(ref)
	if ok {
		u.Cost = price.Cost(m.Usage)
	} else {
		u.Unpriced = 1
		mu.Priced = false
	}
	mu.add(u)
	f.usage.add(u)
}

// abortedTurn reads the model and usage of an aborted request's marker as
// the assistant message it would have been; ok is false when its details
// say neither.
func abortedTurn(c *session.Custom) (*session.Message, bool) {
	var d struct {
		Model string    `json:"model"`
		Usage llm.Usage `json:"usage"`
	}
	if json.Unmarshal(c.Details, &d) != nil || d.Model == "" && d.Usage == (llm.Usage{}) {
		return nil, false
	}
	m := &session.Message{Usage: d.Usage}
	if d.Model != "" {
		ref, err := llm.ParseRef(d.Model)
		if err != nil {
			return nil, false
		}
		m.Model = ref
	}
	return m, true
}

// ownEntries drops the entries a fork copied from its source: the path up
// to the fork point, which the source already counts.
func ownEntries(h session.Header, entries []session.Entry) []session.Entry {
	if h.Parent == nil || h.Parent.Kind != session.ParentFork || h.Parent.EntryID == "" {
		return entries
	}
	i := slices.IndexFunc(entries, func(e session.Entry) bool { return e.ID == h.Parent.EntryID })
	if i < 0 {
		return entries
	}
	return entries[i+1:]
}

// roleOf says who wrote a file, from its header and where it is.
func roleOf(path string, h session.Header, nested bool) Role {
	kind := ""
	if h.Parent != nil {
		kind = h.Parent.Kind
	}
	switch {
	case kind == session.ParentAdvisor || filepath.Base(path) == session.AdvisorTranscript:
		return RoleAdvisor
	case kind == session.ParentSubagent || nested:
		return RoleSubagent
	}
	return RolePrimary
}

// isPrompt reports whether a user message is something a person typed:
// it holds text, and no tool result.
// maxTitle bounds a session's title, in runes.
const maxTitle = 120

// titleOf is a prompt's first non-blank line, cut at maxTitle runes.
func titleOf(m llm.Message) string {
	for _, line := range strings.Split(m.Text(), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if r := []rune(line); len(r) > maxTitle {
				line = string(r[:maxTitle-1]) + "…"
			}
			return line
		}
	}
	return ""
}

func isPrompt(m llm.Message) bool {
	text := false
	for _, b := range m.Content {
		switch b.Type {
		case llm.BlockToolResult:
			return false
		case llm.BlockText:
			text = text || strings.TrimSpace(b.Text) != ""
		}
	}
	return text
}
