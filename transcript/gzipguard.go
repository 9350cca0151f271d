package transcript

import (
	"fmt"
	"io"
)

// A transcript compresses well (JSON repeats its keys; the dev set's
// gzip files inflate 9 to 10 times) but not a thousand times, which is
// what a gzip bomb does: a few megabytes that inflate to gigabytes of
// one byte. Past inflationFloor, a stream that has inflated to more than
// maxInflation times what was read of the file is refused, so a bomb
// costs a fraction of a second instead of minutes of reading blank lines.
const (
	maxInflation   = 200
	inflationFloor = 8 << 20
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// inflationGuard passes on a decompressed stream r until it has inflated
// too far beyond stored, the bytes of the file read to make it; then it
// fails, and goes on failing.
type inflationGuard struct {
	r      io.Reader
	stored *countingReader
	out    int64
	err    error
}

func (g *inflationGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	g.out += int64(n)
	if g.out > inflationFloor && g.out > maxInflation*g.stored.n {
		g.err = fmt.Errorf("gzip: %.1f MB inflated to %.0f MB, more than %d times: refused as a decompression bomb",
			float64(g.stored.n)/1e6, float64(g.out)/1e6, maxInflation)
		return n, g.err
	}
	return n, err
}
