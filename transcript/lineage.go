package transcript

// lineage keeps a format's own parent links pointing at entries a reader
// yields when it drops lines (metadata, state) or merges several lines
// into one entry: a dropped line's children are re-parented to its
// nearest kept ancestor.
//
// It remembers only the last lineageSize dropped ids, so memory stays flat
// however long the file; a child that names a line dropped longer ago
// than that keeps the link as written.
type lineage struct {
	to   map[string]string // dropped id → the kept ancestor its children get
	ring []string          // dropped ids, oldest overwritten first
	next int
}

const lineageSize = 4096

// drop records that the line id, whose parent is parent, yields no entry
// of its own (or was merged into parent).
func (l *lineage) drop(id, parent string) {
	if id == "" {
		return
	}
	if l.to == nil {
		l.to = make(map[string]string)
		l.ring = make([]string, lineageSize)
	}
	parent = l.parent(parent)
	if parent == id {
		return
	}
	if old := l.ring[l.next]; old != "" {
		delete(l.to, old)
	}
	l.ring[l.next] = id
	l.next = (l.next + 1) % lineageSize
	l.to[id] = parent
}

// parent returns the id an entry whose recorded parent is id should name.
func (l *lineage) parent(id string) string {
	if p, ok := l.to[id]; ok {
		return p
	}
	return id
}
