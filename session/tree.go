package session

import (
	"fmt"
	"slices"
)

// Leaf returns the id of the current leaf: the parent of the next
// appended entry. It is "" only in a session with no entries.
func (s *Session) Leaf() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.leaf
}

// Len returns the number of entries in the file. Used as a cursor for
// [Session.Since], it means "everything so far".
func (s *Session) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.entries)
}

// Entries returns every entry in file order, every branch included.
func (s *Session) Entries() []Entry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.entries)
}

// Since returns the entries appended after the first cursor ones, in file
// order, and the cursor to pass next time. Entries are only ever added at
// the end of the file, so a cursor stays valid for the session's life. A
// cursor below 0 counts as 0; one beyond the end returns nothing and the
// current end.
//
// To wait for appends without missing one, take [Session.Changed] first,
// then call Since, then wait on the channel.
func (s *Session) Since(cursor int) (entries []Entry, next int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	cursor = max(cursor, 0)
	if cursor >= len(s.entries) {
		return nil, len(s.entries)
	}
	return slices.Clone(s.entries[cursor:]), len(s.entries)
}

// Changed returns a channel that is closed at the next append (or when
// the session is closed). Each call after an append returns a new
// channel; waiting costs nothing while no one appends.
func (s *Session) Changed() <-chan struct{} {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.changed
}

// Get returns the entry with the given id.
func (s *Session) Get(id string) (Entry, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i, ok := s.index[id]
	if !ok {
		return Entry{}, false
	}
	return s.entries[i], true
}

// Lineage returns every entry from the root to id, id included, in order,
// ignoring compactions. For "" it returns nothing.
func (s *Session) Lineage(id string) ([]Entry, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	idx, err := s.lineage(id)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, len(idx))
	for i, j := range idx {
		out[i] = s.entries[j]
	}
	return out, nil
}

// Path returns what the model sees of the branch ending at id (usually
// [Session.Leaf]): the entries from the root to id, with the latest
// compaction on the way applied. If there is one, Path returns the
// compaction entry first (its summary stands for everything before), then
// the entries from its FirstKeptID up to it (earlier compaction entries
// among them left out, as the newer summary replaces them), then the
// entries after it. A FirstKeptID that is not on the way keeps nothing.
//
// Path keeps every kind of entry; [Entry.ModelSees] says which of them go
// into a model request.
func (s *Session) Path(id string) ([]Entry, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	idx, err := s.lineage(id)
	if err != nil {
		return nil, err
	}
	c := -1
	for i := len(idx) - 1; i >= 0; i-- {
		if _, ok := s.entries[idx[i]].Body.(*Compaction); ok {
			c = i
			break
		}
	}
	out := make([]Entry, 0, len(idx))
	if c < 0 {
		for _, j := range idx {
			out = append(out, s.entries[j])
		}
		return out, nil
	}
	comp := s.entries[idx[c]]
	out = append(out, comp)
	kept := c // keep nothing unless FirstKeptID is found before c
	for i := range c {
		if s.entries[idx[i]].ID == comp.Body.(*Compaction).FirstKeptID {
			kept = i
			break
		}
	}
	for _, j := range idx[kept:c] {
		if _, old := s.entries[j].Body.(*Compaction); !old {
			out = append(out, s.entries[j])
		}
	}
	for _, j := range idx[c+1:] {
		out = append(out, s.entries[j])
	}
	return out, nil
}

// lineage returns the positions of the entries from the root to id. The
// caller holds mu (or writeMu).
func (s *Session) lineage(id string) ([]int, error) {
	if id == "" {
		return nil, nil
	}
	var idx []int
	for cur := id; cur != ""; {
		i, ok := s.index[cur]
		if !ok {
			return nil, fmt.Errorf("session %s: no entry %q", s.path, cur)
		}
		idx = append(idx, i)
		cur = s.entries[i].ParentID
	}
	slices.Reverse(idx)
	return idx, nil
}
