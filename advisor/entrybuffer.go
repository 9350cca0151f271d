package advisor

import (
	"context"
	"sync"

	"github.com/vigil-dev/vigil/session"
)

// EntryBufferView bounds the entries an [EntryBuffer] keeps of what the
// agent's model sees; the advisor primes from a bounded tail of them
// anyway.
const EntryBufferView = 400

// EntryBuffer is the transcript side of a [Host] whose agent's entries
// are handed to it from outside (a sidecar following a transcript file,
// a fleet worker receiving a session's steps): it answers
// [Host.Since] and [Host.View] from the entries appended. It keeps
// memory bounded: entries the advisor has read are dropped (the advisor
// never reads behind its cursor but after a history rewrite, and then
// it primes from View), and the view keeps the latest
// [EntryBufferView] entries. Its zero value is empty and ready; it is
// safe for concurrent use.
type EntryBuffer struct {
	mu sync.Mutex
	// entries[i] has cursor base+i.
	entries []session.Entry
	base    int
	view    []session.Entry
}

// Append adds entries the agent wrote, in order, and returns the cursor
// after the last. A compaction entry restarts the view with itself.
func (b *EntryBuffer) Append(entries ...session.Entry) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range entries {
		b.entries = append(b.entries, e)
		if _, ok := e.Body.(*session.Compaction); ok {
			b.view = b.view[:0]
		}
		b.view = append(b.view, e)
		if len(b.view) > EntryBufferView {
			b.view = append(b.view[:0], b.view[len(b.view)-EntryBufferView/2:]...)
		}
	}
	return b.base + len(b.entries)
}

// RestartView empties the view: the agent's history was rewritten, and
// what its model sees now is appended next.
func (b *EntryBuffer) RestartView() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.view = b.view[:0]
}

// Prime seeds the view with entries the advisor has seen before (a
// session taken over from another worker): they are behind the cursor,
// for View only.
func (b *EntryBuffer) Prime(entries []session.Entry) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.view = append(b.view[:0], entries...)
	if len(b.view) > EntryBufferView {
		b.view = b.view[len(b.view)-EntryBufferView:]
	}
	b.base = len(entries)
}

// Len is the cursor at the end of the entries appended so far.
func (b *EntryBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.base + len(b.entries)
}

// Since implements [Host.Since]. Entries before the cursor are
// forgotten: the advisor's cursor only moves on.
func (b *EntryBuffer) Since(_ context.Context, cursor int) ([]session.Entry, int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	end := b.base + len(b.entries)
	if cursor >= end {
		return nil, end, nil
	}
	from := max(cursor-b.base, 0)
	out := append([]session.Entry(nil), b.entries[from:]...)
	if from > 0 {
		b.entries = append(b.entries[:0], b.entries[from:]...)
		b.base += from
	}
	return out, end, nil
}

// View implements [Host.View]: the latest entries since the last
// compaction (its summary first).
func (b *EntryBuffer) View(_ context.Context) ([]session.Entry, int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]session.Entry(nil), b.view...), b.base + len(b.entries), nil
}
