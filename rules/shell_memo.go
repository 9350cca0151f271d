package rules

import "sync"

// shellMemo remembers the commands of recently parsed lines: agents
// repeat commands (the same test run, the same sed -n window), and a
// remembered line costs a map lookup instead of a parse.
var shellMemo = newParseMemo(512, 1<<20, 16<<10)

// parseMemo is a bounded memo from a command line to its simple commands,
// safe for concurrent use. It keeps two generations of at most entries
// lines and bytes bytes each: lines go into the current one; when that is
// full it becomes the previous one and the oldest generation is dropped.
// A line found in the previous generation moves to the current one, so
// lines in use survive, as in an LRU, without a list to maintain. Lines
// longer than lineMax are not kept: a long line (a file written with a
// here-document) is rarely repeated, and would hold its memory.
type parseMemo struct {
	mu        sync.Mutex
	cur, prev map[string][]simpleCmd
	curBytes  int
	entries   int
	bytes     int
	lineMax   int
}

func newParseMemo(entries, bytes, lineMax int) *parseMemo {
	return &parseMemo{cur: make(map[string][]simpleCmd), entries: entries, bytes: bytes, lineMax: lineMax}
}

func (m *parseMemo) get(line string) ([]simpleCmd, bool) {
	if len(line) > m.lineMax {
		return nil, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if cmds, ok := m.cur[line]; ok {
		return cmds, true
	}
	if cmds, ok := m.prev[line]; ok {
		m.add(line, cmds)
		return cmds, true
	}
	return nil, false
}

func (m *parseMemo) put(line string, cmds []simpleCmd) {
	if len(line) > m.lineMax {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.add(line, cmds)
}

func (m *parseMemo) add(line string, cmds []simpleCmd) {
	if _, ok := m.cur[line]; ok {
		return
	}
	// The commands' words are at most the line's text again, with
	// some overhead per command.
	size := 2*len(line) + 64*len(cmds)
	if len(m.cur) >= m.entries || m.curBytes+size > m.bytes {
		m.prev, m.cur, m.curBytes = m.cur, make(map[string][]simpleCmd, len(m.cur)), 0
	}
	m.cur[line] = cmds
	m.curBytes += size
}
