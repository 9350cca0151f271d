package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
)

// Progress draws a one-line progress bar, meant for a terminal's stderr:
// how much of the input has been read, in bytes as stored, and the file
// being read. It redraws at most every 100 ms, and Clear erases it. It is
// not safe for concurrent use.
type Progress struct {
	w     io.Writer
	total int64
	// done is the size of the files finished; cur how far the current
	// one has been read.
	done, cur int64
	name      string
	last      time.Time
	drawn     bool
	now       func() time.Time
}

// NewProgress returns a bar for total bytes of input written to w.
func NewProgress(w io.Writer, total int64) *Progress {
	return &Progress{w: w, total: max(total, 1), now: time.Now}
}

// StartFile says that the file name is being read next.
func (p *Progress) StartFile(name string) {
	p.name, p.cur = name, 0
	p.draw(true)
}

// Read says how much of the current file has been read so far.
func (p *Progress) Read(n int64) {
	p.cur = n
	p.draw(false)
}

// EndFile says that the current file, of size bytes, is done.
func (p *Progress) EndFile(size int64) {
	p.done += size
	p.cur = 0
	p.draw(false)
}

// Clear erases the bar, leaving the cursor at the start of the line.
func (p *Progress) Clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

const barWidth = 30

func (p *Progress) draw(force bool) {
	now := p.now()
	if !force && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	read := min(p.done+p.cur, p.total)
	frac := float64(read) / float64(p.total)
	fill := int(frac * barWidth)
	name := []rune(Escape(filepath.Base(p.name)))
	if len(name) > 40 {
		name = append([]rune("…"), name[len(name)-39:]...)
	}
	fmt.Fprintf(p.w, "\r\x1b[Kreviewing %3d%% [%s%s] %s/%s %s",
		int(frac*100), strings.Repeat("=", fill), strings.Repeat(" ", barWidth-fill), megabytes(read), megabytes(p.total), string(name))
	p.drawn = true
}

func megabytes(n int64) string {
	return fmt.Sprintf("%.0f MB", float64(n)/1e6)
}
