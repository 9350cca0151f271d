package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/vigil-dev/vigil/session"
)

// Follower reads a transcript file that another program is still writing:
// a Claude Code session or a Codex rollout of a running agent. Each
// [Follower.Poll] reads the complete lines appended since the last and
// returns the entries, steps and marks they complete; [Follower.Settle]
// says the writer ended its turn. Over the follower's life each entry and
// each step is returned exactly once, in the order and with the numbering
// the whole-file reader and a [Stepper] give (see the package doc for
// when a premature Settle makes them differ).
//
// The follower runs the whole-file reader's own per-line state machine,
// so entries are the same, and keeps what that machine keeps (one reply
// being merged and a bounded queue behind it) plus the line being
// written: never the file. A Follower is not safe for concurrent use.
type Follower struct {
	file followFile
	// m is the format's line machine, nil until the format is known.
	m lineMachine
	d decodeState
	// run is what is known of the run; probeMax is how many head lines
	// the whole-file reader would describe it from, probed how many were.
	run      RunInfo
	probeMax int
	probed   int
	notes    noteSet
	steps    Stepper
	// n counts the lines read; off is the bytes of complete lines read;
	// part holds the line being written, read but not complete, unless
	// it grew past maxLine (the whole-file readers' bound): then dropped
	// counts its bytes, read and thrown away until its newline, so a line
	// that does not end (a sparse file of zeros) costs reading, not
	// memory.
	n       int
	off     int64
	part    []byte
	dropped int64
	buf     []byte
	// out is the batch being filled.
	out Batch
	// err, once set, is returned by every call: the file changed, or it
	// is not a format the follower reads.
	err error
}

// Batch is what one call of a [Follower] returns.
type Batch struct {
	// Entries are the new entries, in order; each is returned once over
	// the follower's life.
	Entries []session.Entry
	// Steps are the steps these entries complete, numbered from 1 over
	// the whole file; each is returned once.
	Steps []Step
	// Marks point at the entries the caller must react to, in order.
	Marks []Mark
	// More says the file holds more than this call read (a call reads at
	// most about maxPollBytes): poll again at once.
	More bool
}

// maxPollBytes bounds what one Poll reads, so that following a long
// session from its start does not return it all in one batch.
const maxPollBytes = 4 << 20

// followReadSize is how much a follower reads from the file at a time.
const followReadSize = 64 << 10

// Follow returns a follower of the transcript at path in format, one of
// [FormatClaudeCode] and [FormatCodex]; with format "" the follower
// detects the format once enough of the file is written. The file need
// not exist yet: until it does, Poll returns an empty batch. Follow does
// not touch the file; an unsupported format is Poll's error.
func Follow(path string, format Format) *Follower {
	f := &Follower{file: followFile{path: path}, notes: noteSet{}}
	f.d = decodeState{name: path, emit: f.emit, note: f.notes.add}
	if format != "" {
		f.start(format)
	}
	return f
}

// start readies the follower for format.
func (f *Follower) start(format Format) {
	m, probes, err := newMachine(format, &f.d)
	if err != nil {
		f.err = fmt.Errorf("follow %s: %w", f.file.path, err)
		return
	}
	f.m, f.probeMax = m, probes
	f.run = RunInfo{Format: format}
}

// Poll reads the complete lines written since the last call and returns
// what they complete. A line without its newline yet is left for a later
// call: never parsed half-written. An assistant reply is held back until
// a later line shows it complete (Claude Code writes one reply over
// several lines; Codex one item a line), or until Settle.
//
// A malformed complete line is noted ([Follower.Notes]) and skipped. The
// error, when there is one, names the file; the batch then holds what was
// read before it. An error wrapping [ErrFileChanged] (the file shrank,
// was removed or replaced), saying the path names no regular file (a
// named pipe, a device, a socket, a folder, a loop of symbolic links:
// refused before it is opened, so Poll never blocks on one) or that the
// file is not a format the follower reads is returned by every later
// call too; an I/O error is not, and a later call retries from where
// this one stopped.
func (f *Follower) Poll() (Batch, error) {
	err := f.read(maxPollBytes)
	return f.take(), err
}

// Settle is Poll for when the writer has ended its turn (the agent's Stop
// hook fired): it reads the rest of the file, then completes what the
// follower holds back, as the whole-file reader does at the end of the
// file: the reply being merged, with the tool results and context queued
// behind it, and the step waiting for results (its unanswered calls stay
// unanswered). Numbering and the context gathered for the next step carry
// on.
//
// A Settle is premature when the writer goes on with what it held: Claude
// Code sometimes writes the last line of a reply after its Stop hook has
// fired. Then nothing is returned twice: the later lines of the same
// message.id are read as a reply of their own (a new entry and a new
// step, noted as "reply continued after Settle"), a tool result for a
// call of a settled step is context of the next step, and a compaction's
// summary line after its settled boundary is a compaction entry of its
// own. So a premature Settle makes the entries and numbering differ from
// the whole-file reader's, never repeat them.
func (f *Follower) Settle() (Batch, error) {
	if err := f.read(-1); err != nil {
		return f.take(), err
	}
	if f.m != nil {
		f.m.settle()
		if st, ok := settleStep(&f.steps); ok {
			f.out.Steps = append(f.out.Steps, st)
		}
	}
	return f.take(), nil
}

// Run returns what is known of the run: its format once detected, and
// its id, working folder, model and start once lines have told them (from
// the same head lines the whole-file reader looks at).
func (f *Follower) Run() RunInfo { return f.run }

// Release is Poll, then, when the reply the follower holds back makes the
// tool call callID, completes that reply as Settle would (with the tool
// results and context queued behind it), but not the step, which waits
// for its results as usual. Call it when the agent says the call ran (a
// tool hook): agents run a reply's calls only once the whole reply is
// written, so no later line continues it. It returns what was read and
// completed.
func (f *Follower) Release(callID string) (Batch, error) {
	if err := f.read(maxPollBytes); err != nil {
		return f.take(), err
	}
	if f.Holds(callID) {
		f.m.settle()
	}
	return f.take(), nil
}

// Holds reports whether the reply the follower holds back (in case more
// of it is still to be written: Claude Code writes a reply's blocks on
// lines of their own) makes the tool call with id callID. A hook about
// that call (which the agent fires once the whole reply is written)
// tells that the transcript has been read up to it, although the step is
// returned only once the reply is complete.
func (f *Follower) Holds(callID string) bool {
	return f.m != nil && callID != "" && f.m.holds(callID)
}

// Offset returns the bytes of complete lines read: where the next call
// goes on reading (a line being written is read again once complete).
func (f *Follower) Offset() int64 { return f.off }

// Notes returns what the follower skipped or tolerated so far, as
// [Reader.Notes].
func (f *Follower) Notes() []Note { return f.notes.list() }

// read reads the file from where the last call stopped, up to limit bytes
// (all there is when limit < 0), into f.out.
func (f *Follower) read(limit int64) error {
	if f.err != nil {
		return f.err
	}
	pos := f.off + int64(len(f.part)) + f.dropped
	file, size, err := f.file.open(pos)
	if err != nil {
		if errors.Is(err, ErrFileChanged) || errors.Is(err, errNotRegular) {
			f.err = err
		}
		return err
	}
	if file == nil {
		return nil
	}
	defer file.Close()
	if f.m == nil {
		if err := f.detect(file, size); err != nil || f.m == nil {
			return err
		}
	}
	if f.buf == nil {
		f.buf = make([]byte, followReadSize)
	}
	for read := int64(0); limit < 0 || read < limit; {
		n, err := file.ReadAt(f.buf, pos)
		pos += int64(n)
		read += int64(n)
		f.feed(f.buf[:n], size-pos)
		if f.err != nil {
			return f.err
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("follow %s: %w", f.file.path, err)
		}
	}
	f.out.More = true
	return nil
}

// detect looks for the format at the head of the file and starts the
// follower once it is known.
func (f *Follower) detect(file *os.File, size int64) error {
	head := make([]byte, min(size, sniffSize))
	n, err := file.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return fmt.Errorf("follow %s: %w", f.file.path, err)
	}
	head = head[:n]
	if isUTF16(head) {
		f.err = fmt.Errorf("follow %s: %w", f.file.path, utf16Error(f.file.path))
		return f.err
	}
	if n == sniffSize && bytes.IndexByte(head, '\n') < 0 {
		// A first line longer than the sniffed bytes (a long `claude -p`
		// prompt): detect from the whole of it, once it is written.
		line, complete, err := firstLine(file, size)
		if err != nil {
			f.err = fmt.Errorf("follow %s: %w", f.file.path, err)
			return f.err
		}
		if !complete {
			return nil
		}
		head = line
	}
	format, ok, err := sniffFollow(trimBOM(head), filepath.Base(f.file.path))
	if err != nil {
		f.err = fmt.Errorf("follow %s: %w", f.file.path, err)
		return f.err
	}
	if ok {
		f.start(format)
	}
	return f.err
}

// firstLine reads the first line of a file of size bytes, with its
// newline; complete is false while it has none yet. A first line longer
// than maxLine is an error: no format can be told from it.
func firstLine(file *os.File, size int64) (line []byte, complete bool, err error) {
	buf := make([]byte, followReadSize)
	for off := int64(0); off < size && off <= maxLine; {
		n, err := file.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			line = make([]byte, off+int64(i)+1)
			if _, err := file.ReadAt(line, 0); err != nil && err != io.EOF {
				return nil, false, err
			}
			return line, true, nil
		}
		if err != nil && err != io.EOF {
			return nil, false, err
		}
		if n == 0 {
			break
		}
		off += int64(n)
	}
	if size > maxLine {
		return nil, false, fmt.Errorf("the first line is longer than %d MiB: %w", maxLine>>20, ErrUnknownFormat)
	}
	return nil, false, nil
}

// feed splits what was read into lines and reads each complete one;
// rest is how much of the file is left after chunk.
func (f *Follower) feed(chunk []byte, rest int64) {
	for len(chunk) > 0 && f.err == nil {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			f.hold(chunk, rest)
			return
		}
		if f.dropped > 0 || len(f.part)+i > maxLine {
			f.drop(int64(i))
			chunk = chunk[i+1:]
			continue
		}
		line := chunk[:i]
		if len(f.part) > 0 {
			f.part = append(f.part, line...)
			line = f.part
		}
		f.line(line)
		chunk = chunk[i+1:]
		f.part = f.part[:0]
		if cap(f.part) > maxKeptBuffer {
			f.part = nil
		}
	}
}

// hold keeps chunk, the start of a line not yet complete, unless the
// line grew too long; rest is how much of the file is left after it.
func (f *Follower) hold(chunk []byte, rest int64) {
	if f.dropped > 0 || len(f.part)+len(chunk) > maxLine {
		f.dropped += int64(len(f.part) + len(chunk))
		f.part = nil
		return
	}
	if need := len(f.part) + len(chunk); need > cap(f.part) && len(f.part) > 0 {
		// A long line: make room for the rest of the file at once
		// (up to the bound) rather than copying it at each doubling.
		grown := make([]byte, len(f.part), min(int64(need)+max(rest, 0), maxLine))
		copy(grown, f.part)
		f.part = grown
	}
	f.part = append(f.part, chunk...)
}

// drop ends a line too long to keep, whose last n bytes are at hand: it
// is counted and noted, never read.
func (f *Follower) drop(n int64) {
	f.n++
	f.off += int64(len(f.part)) + f.dropped + n + 1
	f.part, f.dropped = f.part[:0], 0
	if cap(f.part) > maxKeptBuffer {
		f.part = nil
	}
	f.notes.add(f.n, skippedLongNote)
}

// line reads one complete line, without its newline.
func (f *Follower) line(raw []byte) {
	f.n++
	first := f.off == 0
	f.off += int64(len(raw)) + 1
	if first {
		raw = trimBOM(raw)
	}
	if len(bytes.TrimSpace(raw)) > 0 && f.probed < f.probeMax && f.off <= sniffSize {
		f.probed++
		f.m.probe(raw, &f.run)
	}
	if _, err := handleLine(&f.d, f.n, raw, true, f.m.line); err != nil {
		f.err = fmt.Errorf("follow %s: %w", f.file.path, err)
	}
}

// emit takes an entry from the line machine.
func (f *Follower) emit(it Item) bool {
	if it.Run != nil {
		return true
	}
	i := len(f.out.Entries)
	f.out.Entries = append(f.out.Entries, it.Entry)
	if k, ok := markOf(it.Entry); ok {
		f.out.Marks = append(f.out.Marks, Mark{Kind: k, Entry: i})
	}
	f.out.Steps = append(f.out.Steps, f.steps.Add(it.Entry)...)
	return true
}

// take returns the batch filled so far and starts a new one.
func (f *Follower) take() Batch {
	b := f.out
	f.out = Batch{}
	return b
}

// settleStep returns the step s waits on for results, if any, and stops
// waiting; unlike Flush it keeps the numbering and the context gathered
// for the next step.
func settleStep(s *Stepper) (Step, bool) {
	if s.pending == nil {
		return Step{}, false
	}
	st := *s.pending
	s.pending, s.open = nil, nil
	return st, true
}
