package history

import (
	"crypto/sha256"
	"sync"

	"github.com/vigil-dev/vigil/session"
)

// A Renderer turns deltas of a primary transcript into the "### Session
// update" messages the advisor reads, and remembers, per kind of primary
// context, a hash of the text it last showed, so that context repeated
// unchanged is shown as [Unchanged] instead of in full. It keeps nothing
// else: no entries, no text.
//
// The zero value is ready to use. A Renderer is safe for concurrent use;
// updates are serialised.
type Renderer struct {
	mu   sync.Mutex
	seen map[string][sha256.Size]byte
}

// Update renders a delta (the entries appended since the last update) as
// one update message: [Heading], a blank line, then what [Render] would
// show, except that primary context (custom entries of the primary-context
// types, and opts.Context) whose kind was last shown with the same text
// reads [Unchanged]. opts.Title is ignored.
//
// To coalesce several pending deltas into one message, pass them
// concatenated, in order: the message has one heading, and a tool call in
// one delta meets its result in the next.
//
// Update returns "" when the entries show nothing (only advice, aborted or
// failed replies, hidden notices, blank text): context alone is never an
// update, and the remembered hashes are left as they were, so context that
// was not sent is shown in full next time. The hashes are updated when the
// message is rendered, not when it is delivered: if the caller drops a
// rendered message, it must call [Renderer.Reset].
func (r *Renderer) Update(entries []session.Entry, opts Options) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := &dedupe{seen: r.seen}
	w := newWriter(entries, &opts, d)
	w.line(Heading) // the first section's gap adds the blank line
	w.contexts()
	mark := w.sb.Len()
	w.entries(entries)
	if w.sb.Len() == mark {
		return ""
	}
	if len(d.fresh) > 0 {
		if r.seen == nil {
			r.seen = make(map[string][sha256.Size]byte, len(d.fresh))
		}
		for k, h := range d.fresh {
			r.seen[k] = h
		}
	}
	return w.finish()
}

// Reset forgets every context shown, so the next update shows all of it
// in full. The advisor calls it whenever its own context no longer holds
// what was shown: on a reset or re-prime, when it seeds its cursor, when
// the primary transcript shrank, and when it drops undelivered updates.
func (r *Renderer) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = nil
}

// dedupe is the context state of one update: what was seen before it and
// what it showed itself.
type dedupe struct {
	seen  map[string][sha256.Size]byte
	fresh map[string][sha256.Size]byte
}

// unchanged reports whether kind was last shown with text, and records
// text as its latest.
func (d *dedupe) unchanged(kind, text string) bool {
	h := sha256.Sum256([]byte(text))
	last, ok := d.fresh[kind]
	if !ok {
		last, ok = d.seen[kind]
	}
	if ok && last == h {
		return true
	}
	if d.fresh == nil {
		d.fresh = map[string][sha256.Size]byte{}
	}
	d.fresh[kind] = h
	return false
}
