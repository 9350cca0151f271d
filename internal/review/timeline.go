package review

import "sort"

// Timeline is a bounded summary of a run's steps, for a person to see at
// a glance where the run went wrong.
//
// Cells always cover the whole run: one cell per step while the run has
// at most Options.StripCells steps, and past that each cell covers Width
// consecutive steps (Width doubles whenever the strip fills up, so the
// strip never holds more than StripCells cells). Detail holds the full
// summary of every step of a run of at most Options.DetailSteps steps
// (Complete is then set); for a longer run it holds the steps around
// each finding (from two steps before its start to two after its end), up
// to DetailSteps of them.
type Timeline struct {
	// Cells cover steps 1 to the last step, in order.
	Cells []Cell
	// Width is how many steps a cell covers (the last may cover fewer).
	Width int
	// Detail are the kept step summaries, by step number.
	Detail []StepInfo
	// Complete is set when Detail holds every step of the run.
	Complete bool
}

// Cell is one cell of the compact strip: a stretch of steps.
type Cell struct {
	// First and Last are the steps the cell covers, inclusive.
	First, Last int
	// Calls counts the tool calls of those steps.
	Calls int
	// Failed counts the steps with a failed call.
	Failed int
}

// margin is how many steps around a finding keep their detail in a long
// run.
const margin = 2

// span is a range of steps, inclusive.
type span struct{ from, to int }

// timelineBuilder builds a Timeline step by step with bounded memory.
type timelineBuilder struct {
	detailMax, cellsMax int
	width               int
	cells               []Cell

	// While the run is short, all holds every step. Once it grows past
	// detailMax the builder is capped: ring holds the last steps (enough
	// to reach back to the start of any finding the engine can still
	// report) and pinned the steps kept around findings.
	all    []StepInfo
	capped bool
	ring   []StepInfo
	head   int // the next slot of ring to write
	pinned []StepInfo
	// pins are the ranges to keep; pinUntil is the last step of them.
	pins     []span
	pinUntil int
}

func newTimelineBuilder(detailMax, cellsMax, window int) timelineBuilder {
	return timelineBuilder{detailMax: detailMax, cellsMax: cellsMax, width: 1, ring: make([]StepInfo, 0, window+margin+1)}
}

// add takes the next step's summary.
func (b *timelineBuilder) add(si StepInfo) {
	b.addCell(si)
	if !b.capped {
		b.all = append(b.all, si)
		if len(b.all) > b.detailMax {
			b.capTo()
		}
		return
	}
	if len(b.ring) < cap(b.ring) {
		b.ring = append(b.ring, si)
	} else {
		b.ring[b.head] = si
		b.head = (b.head + 1) % len(b.ring)
	}
	if si.N <= b.pinUntil {
		b.keep(si)
	}
}

func (b *timelineBuilder) addCell(si StepInfo) {
	failed := 0
	if si.Failed() {
		failed = 1
	}
	if n := len(b.cells); n > 0 && b.cells[n-1].Last-b.cells[n-1].First+1 < b.width {
		c := &b.cells[n-1]
		c.Last, c.Calls, c.Failed = si.N, c.Calls+len(si.Calls), c.Failed+failed
		return
	}
	if len(b.cells) == b.cellsMax {
		// Halve the strip: merge neighbours, and double the width.
		for i := 0; i < len(b.cells)/2; i++ {
			x, y := b.cells[2*i], b.cells[2*i+1]
			b.cells[i] = Cell{First: x.First, Last: y.Last, Calls: x.Calls + y.Calls, Failed: x.Failed + y.Failed}
		}
		if len(b.cells)%2 == 1 {
			b.cells[len(b.cells)/2] = b.cells[len(b.cells)-1]
			b.cells = b.cells[:len(b.cells)/2+1]
		} else {
			b.cells = b.cells[:len(b.cells)/2]
		}
		b.width *= 2
		b.addCell(si)
		return
	}
	b.cells = append(b.cells, Cell{First: si.N, Last: si.N, Calls: len(si.Calls), Failed: failed})
}

// pin keeps the detail of the steps around a finding.
func (b *timelineBuilder) pin(start, end int) {
	sp := span{max(1, start-margin), end + margin}
	b.pins = append(b.pins, sp)
	b.pinUntil = max(b.pinUntil, sp.to)
	if !b.capped {
		return
	}
	var add []StepInfo
	for _, si := range b.ring {
		if si.N >= sp.from && si.N <= sp.to && !b.isPinned(si.N) {
			add = append(add, si)
		}
	}
	sort.Slice(add, func(i, j int) bool { return add[i].N < add[j].N })
	for _, si := range add {
		b.keep(si)
	}
}

// keep adds a step to pinned, in order, unless it is there or pinned is
// full.
func (b *timelineBuilder) keep(si StepInfo) {
	if len(b.pinned) >= b.detailMax || b.isPinned(si.N) {
		return
	}
	i := sort.Search(len(b.pinned), func(i int) bool { return b.pinned[i].N >= si.N })
	b.pinned = append(b.pinned, StepInfo{})
	copy(b.pinned[i+1:], b.pinned[i:])
	b.pinned[i] = si
}

func (b *timelineBuilder) isPinned(n int) bool {
	i := sort.Search(len(b.pinned), func(i int) bool { return b.pinned[i].N >= n })
	return i < len(b.pinned) && b.pinned[i].N == n
}

// capTo switches from keeping every step to keeping the steps around
// findings.
func (b *timelineBuilder) capTo() {
	b.capped = true
	for _, si := range b.all {
		if b.wanted(si.N) {
			b.keep(si)
		}
	}
	start := max(0, len(b.all)-cap(b.ring))
	b.ring = append(b.ring[:0], b.all[start:]...)
	b.head = 0 // the oldest step is first
	b.all = nil
}

func (b *timelineBuilder) wanted(n int) bool {
	for _, p := range b.pins {
		if n >= p.from && n <= p.to {
			return true
		}
	}
	return false
}

// timeline returns the result.
func (b *timelineBuilder) timeline() Timeline {
	t := Timeline{Cells: b.cells, Width: b.width}
	if b.capped {
		t.Detail = b.pinned
	} else {
		t.Detail, t.Complete = b.all, true
	}
	return t
}
