package transcript

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"iter"
	"sort"
	"time"

	"github.com/vigil-dev/vigil/session"
)

// Format names a transcript format.
type Format string

// The formats this package reads.
const (
	FormatVigil        Format = "vigil"
	FormatClaudeCode   Format = "claude-code"
	FormatCodex        Format = "codex"
	FormatPi           Format = "pi"
	FormatOmp          Format = "omp"
	FormatSWEAgent     Format = "swe-agent"
	FormatMiniSWEAgent Format = "mini-swe-agent"
	FormatOpenHands    Format = "openhands"
	FormatAider        Format = "aider"
	// FormatClaudeStream is what `claude -p --output-format stream-json`
	// prints, not a session file (claudestream.go).
	FormatClaudeStream Format = "claude-stream-json"
)

// RunInfo describes one recorded run.
type RunInfo struct {
	// Format is the format the run was read from.
	Format Format
	// Index is the run's position in its file, from 0.
	Index int
	// ID is the run's own identifier where the format records one (a
	// session id, an instance id); "" otherwise.
	ID string
	// Task is a short name for what the run was asked to do, where the
	// format records one (a SWE-bench instance, a title); "" otherwise.
	Task string
	// CWD is the working folder the agent ran in, when recorded.
	CWD string
	// Model names the model as the recording spells it, when recorded.
	Model string
	// Started is when the run began, when recorded.
	Started time.Time
}

// Item is one thing a reader yields: either the start of a run (Run is
// set and Entry is zero) or one entry of the current run.
type Item struct {
	Run   *RunInfo
	Entry session.Entry
}

// Note counts something a reader skipped or tolerated, such as lines of an
// unknown type. Notes are never fatal.
type Note struct {
	// What says what was skipped, such as `unknown line type "summary"`.
	What string
	// Count is how many times it happened.
	Count int
	// FirstLine is the line (or, for JSON documents, the element) where it
	// first happened, from 1; 0 when not known.
	FirstLine int
}

// Reader reads one transcript file.
type Reader struct {
	name   string
	br     *bufio.Reader
	format format
	// runFormat is the format of the last run started, once one has.
	runFormat Format
	notes     noteSet
	// advisorOf is the session an advisor's transcript watches, when the
	// file is one.
	advisorOf string
	advisor   bool
}

// sniffSize is how much of a file detection looks at first.
const sniffSize = 64 << 10

// ErrUnknownFormat is the cause of NewReader's error for content that is
// no transcript format vigil knows.
var ErrUnknownFormat = errors.New("not a transcript format vigil knows")

// NewReader detects the format of the transcript r holds and returns a
// reader for it; name stands for the file in errors and helps detection
// when the content alone is ambiguous. It reads ahead only as much as
// detection needs: the first sniffSize bytes, or, when they hold no
// complete line and no format, the whole first line (up to maxLine), which
// a long first prompt can make that long.
//
// A leading UTF-8 byte-order mark is skipped; a UTF-16 file is refused
// with an error that says how to convert it (wrapping ErrUnknownFormat).
// A gzip-compressed file is decompressed as it is read; one that inflates
// to more than maxInflation times its size (a decompression bomb) is an
// error once it has inflated past inflationFloor.
func NewReader(r io.Reader, name string) (*Reader, error) {
	stored := &countingReader{r: r}
	br := bufio.NewReaderSize(stored, sniffSize)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		br = bufio.NewReaderSize(&inflationGuard{r: zr, stored: stored}, sniffSize)
	}
	if start, _ := br.Peek(256); isUTF16(start) {
		return nil, fmt.Errorf("read %s: %w", name, utf16Error(name))
	}
	if bom, _ := br.Peek(len(utf8BOM)); bytes.Equal(bom, utf8BOM) {
		br.Discard(len(utf8BOM))
	}
	head, err := br.Peek(sniffSize)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	f, ok := detect(head, name)
	if !ok && startsLongLine(head) {
		br, head, err = readFirstLine(br)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		f, ok = detect(head, name)
	}
	if !ok {
		return nil, fmt.Errorf("read %s: %w (%s)", name, ErrUnknownFormat, knownList())
	}
	rd := &Reader{name: name, br: br, format: f, notes: map[string]*Note{}}
	rd.advisorOf, rd.advisor = advisorTranscript(f.name, head, name)
	return rd, nil
}

// detect returns the first format whose sniffer recognises head.
func detect(head []byte, name string) (format, bool) {
	for _, f := range formats {
		if f.sniff(head, name) {
			return f, true
		}
	}
	return format{}, false
}

// startsLongLine reports whether head, a full sniffSize of a file, is
// the start of a JSON Lines record that goes on past it: it opens an
// object and has no newline after the leading space.
func startsLongLine(head []byte) bool {
	lead := bytes.TrimLeft(head, " \t\r\n\ufeff")
	return len(head) == sniffSize && len(lead) > 0 && lead[0] == '{' && bytes.IndexByte(lead, '\n') < 0
}

// readFirstLine reads the first line of br whole, for detection, and
// returns a reader that yields the file from its start again, and a head
// for the sniffers: the line with its newline (one is added when the line
// is the whole file) and up to sniffSize bytes after it.
func readFirstLine(br *bufio.Reader) (*bufio.Reader, []byte, error) {
	line, err := nextTextLine(br, nil)
	if long, _ := isLongLine(err); long {
		return nil, nil, fmt.Errorf("the first line is longer than %d MiB: %w", maxLine>>20, ErrUnknownFormat)
	}
	if err != nil && err != io.EOF {
		return nil, nil, fmt.Errorf("line 1: %w", err)
	}
	next, _ := br.Peek(sniffSize)
	head := make([]byte, 0, len(line)+1+len(next))
	head = append(head, line...)
	if err == io.EOF {
		head = append(head, '\n')
	}
	head = append(head, next...)
	again := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(line), br), sniffSize)
	return again, head, nil
}

// Format returns the format the reader detected. Once a run has started,
// it is that run's format, which may be more precise than detection from
// the file's head (omp, which shares pi's reader).
func (r *Reader) Format() Format {
	if r.runFormat != "" {
		return r.runFormat
	}
	return r.format.name
}

// Items streams the file's runs and entries; see the package doc. It may
// be ranged over once. The error, when there is one, ends the stream and
// names the file and, where it can, the line.
func (r *Reader) Items() iter.Seq2[Item, error] {
	return func(yield func(Item, error) bool) {
		stopped := false
		emit := func(it Item) bool {
			if stopped {
				return false
			}
			if it.Run != nil && it.Run.Format != "" {
				r.runFormat = it.Run.Format
			}
			if !yield(it, nil) {
				stopped = true
			}
			return !stopped
		}
		err := r.format.read(&decodeState{name: r.name, in: r.br, emit: emit, note: r.note})
		if err != nil && !stopped {
			yield(Item{}, fmt.Errorf("read %s: %w", r.name, err))
		}
	}
}

// Notes returns what the reader skipped or tolerated so far, in the order
// each kind first happened.
func (r *Reader) Notes() []Note { return r.notes.list() }

func (r *Reader) note(line int, what string) { r.notes.add(line, what) }

// noteSet counts what a reader skipped, by kind.
type noteSet map[string]*Note

// add counts one more of what, first seen at line.
func (s noteSet) add(line int, what string) {
	if n, ok := s[what]; ok {
		n.Count++
		return
	}
	s[what] = &Note{What: what, Count: 1, FirstLine: line}
}

// list returns the notes in the order each kind first happened.
func (s noteSet) list() []Note {
	out := make([]Note, 0, len(s))
	for _, n := range s {
		out = append(out, *n)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].FirstLine < out[j].FirstLine })
	return out
}

// decodeState is what a format's read function works with.
type decodeState struct {
	// name stands for the file in messages.
	name string
	// in is the whole file, positioned at its start.
	in *bufio.Reader
	// emit hands one item on; it returns false when the consumer stopped,
	// and the read function must then return nil at once.
	emit func(Item) bool
	// note records something skipped; line is from 1, 0 when not known.
	note func(line int, what string)
}

// format is one transcript format: how to recognise it and how to read it.
type format struct {
	name Format
	// sniff reports whether head (the first bytes of the file, possibly
	// all of it) is this format; name is the file's name.
	sniff func(head []byte, name string) bool
	// read decodes the whole stream.
	read func(d *decodeState) error
}

// formats lists the formats in the order detection tries them: the most
// specific signatures first.
var formats = [...]format{
	{FormatVigil, sniffVigil, readVigil},
	{FormatPi, sniffPi, readPi},
	{FormatClaudeCode, sniffClaudeCode, readClaudeCode},
	{FormatClaudeStream, sniffClaudeStream, readClaudeStream},
	{FormatCodex, sniffCodex, readCodex},
	{FormatMiniSWEAgent, sniffMiniSWEAgent, readMiniSWEAgent},
	{FormatSWEAgent, sniffSWEAgent, readSWEAgent},
	{FormatOpenHands, sniffOpenHands, readOpenHands},
	{FormatAider, sniffAider, readAider},
}

func knownList() string {
	s := ""
	for i, f := range formats {
		if i > 0 {
			s += ", "
		}
		s += string(f.name)
	}
	return s
}
