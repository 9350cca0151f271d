package session

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/vigil-dev/vigil/llm"
)

// Append adds an entry holding b as a child of the current leaf, and makes
// it the leaf. It assigns the entry's id, parent and time, writes its line
// and returns the entry exactly as a reader of the file will see it.
//
// Append returns only after the whole line, newline included, was handed
// to the operating system, so an entry it reported survives the process
// being killed; with [SyncEveryAppend] it also waits for the disk. If the
// write fails, the partial line is cut off again and nothing is appended;
// if even that fails, the session refuses every later append rather than
// write after a partial line.
// If only the sync fails, the entry is appended and returned together
// with the error.
//
// Append checks b first: a message needs a role of user or assistant, a
// custom message a type, a compaction's FirstKeptID must be on the path
// to the leaf, a branch summary's FromID must exist, a model change needs
// a model. An [*Unknown] body cannot be appended.
func (s *Session) Append(b Body) (Entry, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.f == nil {
		return Entry{}, fmt.Errorf("append to session %s: %w", s.path, ErrClosed)
	}
	if s.broken != nil {
		return Entry{}, fmt.Errorf("append to session %s: an earlier write failed: %w", s.path, s.broken)
	}
	if err := s.check(b); err != nil {
		return Entry{}, fmt.Errorf("append to session %s: %w", s.path, err)
	}
	line, err := encodeEntry(Entry{ID: s.newID(), ParentID: s.leaf, Time: s.opts.now(), Body: b})
	if err != nil {
		return Entry{}, fmt.Errorf("append to session %s: %w", s.path, err)
	}
	e, err := decodeEntry(line[:len(line)-1])
	if err != nil { // a bug: what we encode we must decode
		return Entry{}, fmt.Errorf("append to session %s: re-read own line: %w", s.path, err)
	}
	if _, err := s.f.Write(line); err != nil {
		if terr := s.f.Truncate(s.size); terr != nil {
			s.broken = errors.Join(err, terr)
		}
		return Entry{}, fmt.Errorf("append to session %s: %w", s.path, err)
	}
	sp := span{off: s.size, n: len(line) - 1}
	s.size += int64(len(line))
	var syncErr error
	if s.opts.Sync == SyncEveryAppend {
		if err := s.f.Sync(); err != nil {
			syncErr = fmt.Errorf("append to session %s: written but not synced: %w", s.path, err)
		}
	}

	s.mu.Lock()
	s.index[e.ID] = len(s.entries)
	kept := e
	if s.opts.DropBodies {
		kept.Body = nil
	}
	s.entries = append(s.entries, kept)
	s.spans = append(s.spans, sp)
	s.leaf = e.ID
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
	return e, syncErr
}

// BranchFrom moves the leaf to the entry id: the next appended entry
// becomes its child, starting a new branch beside the entries that
// followed it. Nothing is written until then; a session reopened before
// its next append has its leaf at the last entry in the file again.
func (s *Session) BranchFrom(id string) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if _, ok := s.index[id]; !ok {
		return fmt.Errorf("branch session %s: no entry %q", s.path, id)
	}
	s.mu.Lock()
	s.leaf = id
	s.mu.Unlock()
	return nil
}

// check validates a body before it is written. The caller holds writeMu.
func (s *Session) check(b Body) error {
	switch b := b.(type) {
	case nil:
		return errors.New("no body")
	case *Message:
		if r := b.Message.Role; r != llm.RoleUser && r != llm.RoleAssistant {
			return fmt.Errorf("message role %q: want user or assistant", r)
		}
		if b.Model != (llm.Ref{}) {
			return checkRef(b.Model)
		}
	case *Custom:
		if b.CustomType == "" {
			return errors.New("custom message has no CustomType")
		}
	case *Compaction:
		if b.FirstKeptID != "" && !s.onPathToLeaf(b.FirstKeptID) {
			return fmt.Errorf("compaction keeps from %q, which is not on the path to the leaf %q", b.FirstKeptID, s.leaf)
		}
	case *BranchSummary:
		if _, ok := s.index[b.FromID]; !ok {
			return fmt.Errorf("branch summary from %q: no such entry", b.FromID)
		}
	case *ModelChange:
		if err := checkRef(b.Model); err != nil {
			return err
		}
		if b.Thinking != "" {
			if _, err := llm.ParseThinkingLevel(string(b.Thinking)); err != nil {
				return err
			}
		}
	case *Unknown:
		return fmt.Errorf("cannot append an entry of unknown type %q", b.Type)
	}
	return nil
}

// checkRef makes sure a model reference reads back as itself.
func checkRef(r llm.Ref) error {
	got, err := llm.ParseRef(r.String())
	if err != nil {
		return fmt.Errorf("model reference %+v: %w", r, err)
	}
	if got != r {
		return fmt.Errorf("model reference %+v would read back as %+v", r, got)
	}
	return nil
}

// onPathToLeaf reports whether id is the leaf or one of its ancestors.
// The caller holds writeMu or mu.
func (s *Session) onPathToLeaf(id string) bool {
	for cur := s.leaf; cur != ""; cur = s.entries[s.index[cur]].ParentID {
		if cur == id {
			return true
		}
	}
	return false
}

// newID returns a random id not yet used in the file. The caller holds
// writeMu.
func (s *Session) newID() string {
	for {
		id := randomHex(4)
		if _, taken := s.index[id]; !taken {
			return id
		}
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails, per crypto/rand
	return hex.EncodeToString(b)
}
