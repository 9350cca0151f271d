package tools

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"
)

// tailCapture collects a command's output, keeping the tail that fits the
// output limits in memory and, once the output outgrows them, the whole of
// it in a file. It is not safe for concurrent use: one goroutine writes,
// and the owner reads only after that goroutine is done.
type tailCapture struct {
	maxBytes, maxLines int
	// open creates the file the whole output spills to.
	open func() (*os.File, error)

	buf   []byte // all output until spilled, then at least its last maxBytes
	total int64
	lines int // newlines seen
	file  *os.File
	err   error // why the whole output could not be saved
}

func (c *tailCapture) Write(p []byte) (int, error) {
	c.total += int64(len(p))
	c.lines += bytes.Count(p, []byte{'\n'})
	if c.file != nil {
		c.writeFile(p)
	}
	c.buf = append(c.buf, p...)
	if c.file == nil && c.err == nil && (len(c.buf) > c.maxBytes || c.lines > c.maxLines) {
		f, err := c.open()
		if err != nil {
			c.err = err
		} else {
			c.file = f
			c.writeFile(c.buf)
		}
	}
	if c.file != nil || c.err != nil {
		// Only the tail is needed now; trim in large steps to copy rarely.
		// Keep one byte more than shown, to know whether the shown part
		// starts a line.
		if len(c.buf) > 2*c.maxBytes+1 {
			n := copy(c.buf, c.buf[len(c.buf)-c.maxBytes-1:])
			c.buf = c.buf[:n]
		}
	}
	return len(p), nil
}

func (c *tailCapture) writeFile(p []byte) {
	if _, err := c.file.Write(p); err != nil && c.err == nil {
		c.err = err
	}
}

// close closes the spill file, if any.
func (c *tailCapture) close() {
	if c.file != nil {
		if err := c.file.Close(); err != nil && c.err == nil {
			c.err = err
		}
	}
}

// path returns the spill file's name, or "".
func (c *tailCapture) path() string {
	if c.file == nil {
		return ""
	}
	return c.file.Name()
}

// render returns the output to show: all of it when it fits the limits,
// else its last lines that do, after a marker saying how much was dropped
// and where the whole output is. A line cut by the byte limit is shown with
// a leading "…". It reports whether it dropped anything.
func (c *tailCapture) render() (string, bool) {
	if c.total == int64(len(c.buf)) && len(c.buf) <= c.maxBytes && c.lineCount() <= c.maxLines {
		return strings.ToValidUTF8(string(c.buf), "\uFFFD"), false
	}
	start := max(len(c.buf)-c.maxBytes, 0)
	partial := start > 0 && c.buf[start-1] != '\n'
	kept := c.buf[start:]
	for partial && len(kept) > 0 && !utf8.RuneStart(kept[0]) {
		kept = kept[1:] // a character cut in two
	}
	endsInNewline := bytes.HasSuffix(kept, []byte("\n"))
	lines := strings.Split(strings.TrimSuffix(string(kept), "\n"), "\n")
	if len(lines) > c.maxLines {
		lines = lines[len(lines)-c.maxLines:]
		partial = false
	}
	shown := strings.Join(lines, "\n")
	if endsInNewline {
		shown += "\n"
	}
	dropped := c.total - int64(len(shown))
	droppedLines := c.lineCount() - len(lines)
	if partial {
		droppedLines++ // the cut line counts as shown and as dropped
		shown = "…" + shown
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "[... %s (%s) of output dropped; showing the last %s", sizeString(dropped), plural(droppedLines, "line"), plural(len(lines), "line"))
	switch {
	case c.err != nil:
		fmt.Fprintf(&sb, "; the full output could not be saved: %v]\n", c.err)
	case c.path() != "":
		fmt.Fprintf(&sb, "; full output: %s (use read or grep on it)]\n", c.path())
	default:
		sb.WriteString("]\n")
	}
	sb.WriteString(strings.ToValidUTF8(shown, "\uFFFD"))
	return sb.String(), true
}

// lineCount is the number of lines of output: its newlines, plus one for a
// last line without one.
func (c *tailCapture) lineCount() int {
	n := c.lines
	if c.total > 0 && !bytes.HasSuffix(c.buf, []byte("\n")) {
		n++
	}
	return n
}
